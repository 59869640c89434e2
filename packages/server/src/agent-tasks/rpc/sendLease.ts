/**
 * One `message/send` at a time per task (docs/agent-tasks.md "Calling agents"; agentex takes a lock
 * per agent and task): the second waits until the first's answer has ended, in every server
 * process on the database. In a process, the sends to a task queue on a semaphore of its own;
 * across processes, the first of each process takes a lease on the task's row (`send_lease`, a
 * token of its own, until `send_lease_until`), asking again every 50 ms while another holds it,
 * renewed while the answer runs, and given back after it. A process that dies holding it leaves
 * the lease to expire (`leaseMillis`).
 */
import { SqlClient } from "@effect/sql"
import { Clock, Duration, Effect, Schedule } from "effect"
import * as Crypto from "node:crypto"

/**
 * How long a lease lasts unless renewed (every 5 s while its answer runs, however long that is):
 * the longest a process that died holding it keeps the task's next send waiting.
 */
const leaseMillis = 15_000
/** How often a held lease is renewed, and a taken one asked for again. */
const renewEvery = Duration.seconds(5)
const askEvery = Duration.millis(50)

/** Leases are times on the wall clock, whatever clock the program runs on (a test's too). */
const wallClock = Clock.make()

export const makeSendLease = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const local = new Map<string, { readonly semaphore: Effect.Semaphore; users: number }>()

  /**
   * The lease of `taskId` taken for `token` if it is free (or expired); whether it was. Read first:
   * a send waiting on a held lease asks every 50 ms, and a read commits nothing.
   */
  const take = (taskId: string, token: string) =>
    Effect.gen(function*() {
      const now = Date.now()
      const held = yield* sql<{ send_lease: string | null; send_lease_until: number | null }>`SELECT send_lease, send_lease_until FROM agent_tasks WHERE id = ${taskId}`
      const lease = held[0]
      if (lease !== undefined && lease.send_lease !== null && Number(lease.send_lease_until ?? 0) >= now) return false
      const taken = yield* sql<{ id: string }>`UPDATE agent_tasks SET send_lease = ${token}, send_lease_until = ${now + leaseMillis}
        WHERE id = ${taskId} AND (send_lease IS NULL OR send_lease_until < ${now}) RETURNING id`
      return taken.length > 0
    }).pipe(Effect.orDie)

  const renew = (taskId: string, token: string) =>
    sql`UPDATE agent_tasks SET send_lease_until = ${Date.now() + leaseMillis} WHERE id = ${taskId} AND send_lease = ${token}`

  /** Gives the lease back, if `token` holds it (so it can run whether it was taken or not). */
  const giveBack = (taskId: string, token: string) =>
    Effect.ignore(sql`UPDATE agent_tasks SET send_lease = NULL, send_lease_until = NULL WHERE id = ${taskId} AND send_lease = ${token}`)

  /** `effect` run holding the task's lease: taken first (waiting for it), renewed meanwhile, given back after. */
  const leased = <A, E, R>(taskId: string, effect: Effect.Effect<A, E, R>) =>
    Effect.suspend(() => {
      const token = Crypto.randomUUID()
      const waitForIt = take(taskId, token).pipe(
        Effect.repeat({ schedule: Schedule.spaced(askEvery), until: (taken) => taken }),
        Effect.withClock(wallClock)
      )
      return Effect.acquireUseRelease(
        // asked for again until taken; a wait interrupted gives back what it may just have taken
        Effect.interruptible(waitForIt).pipe(Effect.onInterrupt(() => giveBack(taskId, token))),
        () =>
          Effect.raceFirst(
            effect,
            // a renewal that fails is tried at the next one (the lease lasts 15 s)
            Effect.forever(Effect.zipRight(Effect.sleep(renewEvery), Effect.ignore(renew(taskId, token)))).pipe(Effect.withClock(wallClock))
          ),
        () => giveBack(taskId, token)
      )
    })

  /** Runs `effect` as the only `message/send` of task `taskId` (waiting for the others first). */
  const exclusive = <A, E, R>(taskId: string, effect: Effect.Effect<A, E, R>) =>
    Effect.suspend(() => {
      const entry = local.get(taskId) ?? { semaphore: Effect.unsafeMakeSemaphore(1), users: 0 }
      local.set(taskId, entry)
      entry.users++
      return entry.semaphore.withPermits(1)(leased(taskId, effect)).pipe(
        Effect.ensuring(Effect.sync(() => {
          if (--entry.users === 0) local.delete(taskId)
        }))
      )
    })

  return { exclusive } as const
})
