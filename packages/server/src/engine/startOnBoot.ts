/**
 * What a family's workflow layer makes sure of when the engine starts: the lifecycles of entities
 * left unfinished without one (accepted just before a crash, or written by a release before the
 * engine). Run in the background, so the engine's start does not wait for it; starting a lifecycle
 * is idempotent, and several processes starting together may race to store the same start: the
 * loser's failure is reported, not fatal (the lifecycle was stored by the winner).
 */
import { Effect, Layer } from "effect"

export const startOnBoot = <R>(what: string, starts: Effect.Effect<void, unknown, R>) =>
  Layer.scopedDiscard(
    Effect.forkScoped(
      starts.pipe(
        Effect.catchAllCause((cause) => Effect.logInfo(`starting the unfinished ${what} on boot stopped`, cause))
      )
    )
  )
