/**
 * A step's work retried when it fails or dies (a dropped database connection, a busy SQLite file):
 * five more tries, 200 ms apart and doubling; then `giveUp` with the last cause, which records the
 * failure where a poller sees it. An interruption (the engine shutting down) is not retried: the
 * step runs again when its workflow resumes.
 */
import { Cause, Effect, Schedule } from "effect"

export const retried = <A, R, R2>(
  work: Effect.Effect<A, unknown, R>,
  giveUp: (cause: Cause.Cause<unknown>) => Effect.Effect<A, never, R2>
): Effect.Effect<A, never, R | R2> =>
  work.pipe(
    Effect.sandbox,
    Effect.retry({
      schedule: Schedule.exponential("200 millis"),
      times: 5,
      while: (cause) => !Cause.isInterruptedOnly(cause)
    }),
    Effect.catchAll((cause) => (Cause.isInterruptedOnly(cause) ? Effect.failCause(cause as Cause.Cause<never>) : giveUp(cause)))
  )
