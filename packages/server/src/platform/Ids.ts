/** Id generation and wall time, as services so tests can make them deterministic. */
import { Clock, Context, Effect, Layer } from "effect"
import * as Crypto from "node:crypto"

export class Ids extends Context.Tag("@platform-kit/server/Ids")<Ids, {
  /** A new UUID v4. */
  readonly make: Effect.Effect<string>
}>() {
  static readonly Live = Layer.succeed(Ids, { make: Effect.sync(() => Crypto.randomUUID()) })
}

/** Now, as the contract's ISO 8601 UTC string (`2026-11-22T10:00:00.000Z`), from Effect's Clock. */
export const nowIso: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** A new id and the current time: what every create needs. */
export const freshIdentity = Effect.zip(Effect.flatMap(Ids, (ids) => ids.make), nowIso)
