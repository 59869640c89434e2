import { Effect, Option, TestServices } from "effect"

/**
 * Reads `read` every 10 ms (real time, also under a TestClock) until it answers `Some`, and
 * answers that value; `None` once `within` ms have passed. Background work is waited for by a
 * deadline, not by a count of reads: on a loaded CI machine each read can take long, and a count
 * then gives up early.
 */
export const eventually = <A, E, R>(
  read: Effect.Effect<Option.Option<A>, E, R>,
  within: number = 30_000
): Effect.Effect<Option.Option<A>, E, R> =>
  Effect.gen(function*() {
    const deadline = Date.now() + within
    for (;;) {
      const found = yield* read
      if (Option.isSome(found) || Date.now() > deadline) return found
      yield* TestServices.provideLive(Effect.sleep("10 millis"))
    }
  })
