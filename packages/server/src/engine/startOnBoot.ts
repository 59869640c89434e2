/**
 * What a family's workflow layer makes sure of when the engine starts: the lifecycles of entities
 * left unfinished without one (accepted just before a crash, or written by a release before the
 * engine). Run in the background, so the engine's start does not wait for it; starting a lifecycle
 * is idempotent, and several processes starting together may race to store the same start: the
 * loser's failure is reported, not fatal (the lifecycle was stored by the winner).
 */
import { Effect, Layer } from "effect"
import type { LifecycleEntity } from "./Lifecycles.js"

/** Starts, in the background, the lifecycle (`start`) of each entity `unfinished` reads. */
export const startOnBoot = <R, R2>(
  what: string,
  unfinished: Effect.Effect<ReadonlyArray<LifecycleEntity>, never, R>,
  start: (entity: LifecycleEntity) => Effect.Effect<unknown, unknown, R2>
) =>
  Layer.scopedDiscard(
    Effect.forkScoped(
      Effect.flatMap(unfinished, (entities) => Effect.forEach(entities, start, { discard: true })).pipe(
        Effect.catchAllCause((cause) => Effect.logInfo(`starting the unfinished ${what} on boot stopped`, cause))
      )
    )
  )
