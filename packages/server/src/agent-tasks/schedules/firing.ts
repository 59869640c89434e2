/**
 * The firing of agent run schedules (docs/agent-tasks.md "Run schedules"), background work of the
 * durable engine: a loop per server process, started with the engine's other work (so it runs on
 * the engine's scheduler, engine/backgroundScheduler.ts), every `tickMillis`:
 *
 * 1. Due schedules (`next_fire_at` passed, not paused, not deleted) are moved on in one
 *    transaction: `next_fire_at` set to the next time of the cadence with a compare-and-set on its
 *    old value, and the fire's row inserted (`ON CONFLICT DO NOTHING` on the fire id): however many
 *    processes share the database, one moves a schedule and one stores a fire. A cadence fire due
 *    while the schedule's previous one is still pending is stored `skipped` (reason `overlap`,
 *    agentex's overlap policy SKIP). A fire the process claims is leased to it (`lease_until`);
 *    it claims no more than its free delivery slots (`deliverySlots`), the others are stored
 *    pending without a lease.
 * 2. Pending fires whose lease ran out or that have none (a process killed mid-delivery, a
 *    trigger, a retry whose time came, a fire beyond the slots) are claimed, up to the free
 *    slots, one UPDATE each that only one process wins; one tried `maxAttempts` times is skipped.
 * 3. Each claimed fire is delivered (`launch`): the task `scheduled-run:<schedule_id>:<fire_id>`
 *    got or created through the agent's RPC (rpc/rpc.ts), the first input sent (`message/send`
 *    to a sync agent, `event/send` to an async one), `scheduled_input_delivered` set in its
 *    metadata, the fire `launched`. A failed try is tried again after 2, 4, 8, 16 s, then the
 *    fire is `skipped` (`delivery_failed`, its `error` kept). The lease is renewed while a
 *    delivery runs and given back when the process stops. A claim counts an attempt, and the
 *    renewals, the end and the give-back name the attempt they claimed: a process that stalled
 *    past its lease while another claimed the fire again neither ends nor renews it, and stops
 *    its delivery at its next renewal.
 *
 * Not a workflow execution per fire: a lifecycle costs about 10 ms of the event loop
 * (docs/engine.md), a fire a few statements. Due times a tick finds passed (a late tick, or a
 * time when no process ran): those of the last `catchUpMillis` are stored, the latest fires, the
 * others are `skipped` (`missed`); older ones are neither fired nor stored (the schedule moves on).
 */
import { SqlClient } from "@effect/sql"
import { AgentRpcRequest, AgentRpcResponse } from "@platform-kit/schema"
import { Array as Arr, Cause, Effect, Layer, Option, type Scope } from "effect"
import * as Crypto from "node:crypto"
import type { FamilyWorkflows } from "../../engine/Lifecycles.js"
import { EventsRepo } from "../../events/EventsRepo.js"
import { transactionLock } from "../../sql/dialect.js"
import { AgentsRepo, type StoredAgent } from "../agents/AgentsRepo.js"
import { MessagesRepo } from "../messages/MessagesRepo.js"
import { AgentCalls } from "../rpc/acp.js"
import { makeAgentRpc } from "../rpc/rpc.js"
import { TaskStreams, taskFrame } from "../streams.js"
import { TasksRepo } from "../tasks/TasksRepo.js"
import { dueTimes, iso, isoSeconds } from "./cadence.js"
import { decodeSchedule, type Fire, SchedulesRepo, type StoredSchedule } from "./SchedulesRepo.js"

/** How often the loop looks for due schedules and pending fires (ms). */
export const tickMillis = 100
/** How old a passed due time may be and still be stored (the latest of them fired, the others `missed`) (ms). */
export const catchUpMillis = 60_000
/** How long a claimed fire is the claiming process's (ms); renewed every `renewMillis` while it is delivered. */
export const leaseMillis = 30_000
const renewMillis = 10_000
/** How many times a fire's delivery is tried before it is skipped (`delivery_failed`). */
export const maxAttempts = 5
/** When a failed try is tried again: 2 s, then twice as long each time (agentex's activity retries). */
const retryAfter = (attempts: number) => 2_000 * 2 ** Math.max(0, attempts - 1)
/** How many due schedules one tick moves on. */
const batch = 1_000
/** Rows of one statement of a tick (its parameters stay far below either database's limit). */
const rowsPerStatement = 200
/** How many stored schedules the loop keeps decoded. */
const decodedMax = 10_000
/**
 * How many fires a process delivers at once, and so claims at most: a fire claimed is delivered at
 * once (its lease renewed from the start), never queued behind others while its lease runs out
 * and another process (or this one) claims it again.
 */
export const deliverySlots = 64
/** How long a fire's `error` is kept (agent-controlled text); `\u0000` is dropped (PostgreSQL's text refuses it). */
const errorChars = 4_000
const errorOf = (message: string) => message.replaceAll("\u0000", "").slice(0, errorChars)


/** The id of a cadence fire: the schedule's Temporal-style workflow id and the nominal time. */
export const cadenceFireId = (scheduleId: string, nominalMs: number) => `agent-run-schedule:${scheduleId}-run-${isoSeconds(nominalMs)}`
/** The id of a trigger's fire: a uuid and the time of the trigger. */
export const manualFireId = (scheduleId: string, nowMs: number) =>
  `agent-run-schedule:${scheduleId}-manual-${Crypto.randomUUID()}-${isoSeconds(nowMs)}`
/** The name of a fire's task: deterministic, so the create is a get-or-create across retries. */
export const fireTaskName = (scheduleId: string, fireId: string) => `scheduled-run:${scheduleId}:${fireId}`

/** A cadence fire of `schedule` due at `at`, stored at `now`: pending, or skipped for `reason` (`missed`, `overlap`). */
const cadenceFire = (schedule: StoredSchedule, at: number, now: number, reason: "missed" | "overlap" | null): Fire => ({
  fire_id: cadenceFireId(schedule.id, at),
  schedule_id: schedule.id,
  account_id: schedule.account_id,
  trigger_type: "scheduled",
  scheduled_at: iso(at),
  status: reason === null ? "pending" : "skipped",
  reason,
  error: null,
  task_id: null,
  attempts: 0,
  lease_until: null,
  created_at: iso(now),
  updated_at: iso(now)
})

/** A fire's end: launched with its task, or skipped with the reason (agentex's outcomes). */
type Outcome =
  | { readonly status: "launched"; readonly task_id: string }
  | { readonly status: "skipped"; readonly reason: string; readonly task_id: string | null }

const skipped = (reason: string, taskId: string | null = null): Outcome => ({ status: "skipped", reason, task_id: taskId })

export const makeFiring = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const repo = yield* SchedulesRepo
  const agents = yield* AgentsRepo
  const tasks = yield* TasksRepo
  const streams = yield* TaskStreams
  const rpc = yield* makeAgentRpc

  /** Fires claimed by this process and not yet ended (at most `deliverySlots`). */
  let inFlight = 0

  /** Stored schedules by id as last read, with the `doc` they were read from: most ticks read the same documents again. */
  const decoded = new Map<string, { readonly doc: string; readonly schedule: StoredSchedule }>()
  const scheduleOf = (id: string, doc: string) => {
    const known = decoded.get(id)
    if (known !== undefined && known.doc === doc) return known.schedule
    const schedule = decodeSchedule(doc)
    if (decoded.size >= decodedMax) decoded.clear()
    decoded.set(id, { doc, schedule })
    return schedule
  }

  /**
   * Moves each schedule of `moves` from its old `next_fire_at` to its new one, where it still is at
   * the old (a compare-and-set: one process moves it): one statement per `rowsPerStatement`; the
   * ids moved.
   */
  const moveOn = (moves: ReadonlyArray<{ readonly id: string; readonly from: string; readonly to: string | null }>) =>
    Effect.map(
      Effect.forEach(Arr.chunksOf(moves, rowsPerStatement), (chunk) =>
        sql.onDialectOrElse({
          pg: () =>
            sql<{ id: string }>`WITH v (id, old, next) AS (VALUES ${
              sql.csv(chunk.map((move) => sql`(${move.id}, ${move.from}::timestamptz, ${move.to}::timestamptz)`))
            }) UPDATE agent_run_schedules s SET next_fire_at = v.next FROM v WHERE s.id = v.id AND s.next_fire_at = v.old RETURNING s.id`,
          orElse: () =>
            sql<{ id: string }>`WITH v (id, old, next) AS (VALUES ${sql.csv(chunk.map((move) => sql`(${move.id}, ${move.from}, ${move.to})`))})
              UPDATE agent_run_schedules SET next_fire_at = v.next FROM v
              WHERE agent_run_schedules.id = v.id AND agent_run_schedules.next_fire_at = v.old RETURNING agent_run_schedules.id`
        })),
      (chunks) => new Set(chunks.flat().map((row) => row.id))
    )

  /**
   * Step 1: the due schedules moved on, their fires stored; answers the fires this process
   * claimed, at most `limit`; the others are stored pending without a lease (any process claims them).
   * The times are worked out before the transaction, which holds the database's writer (SQLite's
   * one connection) only for a few statements: the moves, their fires.
   */
  const fireDue = (now: number, limit = deliverySlots) =>
    Effect.gen(function*() {
      // read outside a transaction: most ticks find nothing due and write nothing
      const rows = yield* sql<{ id: string; doc: string; next_fire_at: string }>`
        SELECT id, doc, next_fire_at FROM agent_run_schedules
        WHERE deleted_at IS NULL AND paused = 0 AND next_fire_at <= ${iso(now)} ORDER BY next_fire_at, id LIMIT ${batch}`
      if (rows.length === 0) return []
      const plans = rows.map((row) => {
        const schedule = scheduleOf(row.id, row.doc)
        const { next, times } = dueTimes(schedule, Date.parse(row.next_fire_at), now, catchUpMillis)
        // the one-off skips left out; none due in the window (missed while no process ran, longer ago): nothing stored
        const due = times.filter((at) => !schedule.skipped.includes(iso(at)))
        return { schedule, from: row.next_fire_at, to: next === null ? null : iso(next), due }
      })
      return yield* repo.transaction(Effect.gen(function*() {
        // one process's move at a time (SQLite: the write lock before the read; PostgreSQL: an advisory lock)
        yield* transactionLock(sql, "agent-run-schedules")
        // moved by another process since the read: its fires are its own
        const moved = yield* moveOn(plans.map((plan) => ({ id: plan.schedule.id, from: plan.from, to: plan.to })))
        const firing = plans.filter((plan) => moved.has(plan.schedule.id) && plan.due.length > 0)
        if (firing.length === 0) return []
        const busy = new Set(
          (yield* Effect.forEach(Arr.chunksOf(firing, rowsPerStatement), (chunk) =>
            sql<{ schedule_id: string }>`SELECT DISTINCT schedule_id FROM agent_run_schedule_fires
              WHERE status = 'pending' AND trigger_type = 'scheduled' AND ${sql.in("schedule_id", chunk.map((plan) => plan.schedule.id))}`))
            .flat().map((row) => row.schedule_id)
        )
        const fires: Array<Fire> = []
        const claims = new Set<string>()
        for (const { due, schedule } of firing) {
          const latest = due[due.length - 1]!
          // due times a late tick passed (a busy machine, or a restart within the window): stored skipped, the latest fires
          for (const at of due.slice(0, -1)) fires.push(cadenceFire(schedule, at, now, "missed"))
          const overlap = busy.has(schedule.id)
          const claim = !overlap && claims.size < limit
          const fire: Fire = overlap ? cadenceFire(schedule, latest, now, "overlap") : {
            ...cadenceFire(schedule, latest, now, null),
            attempts: claim ? 1 : 0,
            lease_until: claim ? iso(now + leaseMillis) : null
          }
          fires.push(fire)
          if (claim) claims.add(fire.fire_id)
        }
        const stored = yield* repo.insertFires(fires)
        return fires.filter((fire) => claims.has(fire.fire_id) && stored.has(fire.fire_id))
      }))
    })

  /**
   * Step 2: pending fires free to take (no lease, or one run out) claimed by this process, at most
   * `limit`. One tried `maxAttempts` times already (its end write failed, or its process died each
   * time) is not tried again: it ends `skipped` (`delivery_failed`).
   */
  const reclaim = (now: number, limit = deliverySlots) =>
    Effect.gen(function*() {
      if (limit <= 0) return []
      // a read first: most ticks find nothing free and write nothing
      const free = yield* sql<{ fire_id: string; attempts: number | string }>`SELECT fire_id, attempts FROM agent_run_schedule_fires
        WHERE status = 'pending' AND (lease_until IS NULL OR lease_until < ${iso(now)}) ORDER BY created_at LIMIT ${limit}`
      const claimed: Array<Fire> = []
      for (const { attempts, fire_id } of free) {
        if (Number(attempts) >= maxAttempts) {
          yield* sql`UPDATE agent_run_schedule_fires SET status = 'skipped', reason = 'delivery_failed', lease_until = ${null}, updated_at = ${iso(now)}
            WHERE fire_id = ${fire_id} AND status = 'pending' AND (lease_until IS NULL OR lease_until < ${iso(now)})`
          continue
        }
        const rows = yield* sql<Fire>`UPDATE agent_run_schedule_fires
          SET lease_until = ${iso(now + leaseMillis)}, attempts = attempts + 1, updated_at = ${iso(now)}
          WHERE fire_id = ${fire_id} AND status = 'pending' AND (lease_until IS NULL OR lease_until < ${iso(now)}) RETURNING *`
        if (rows[0] !== undefined) claimed.push(rows[0])
      }
      return claimed
    })

  /** A call of the agent's RPC, as a client would make it: its result, or its error's message. */
  const call = (agent: StoredAgent, method: AgentRpcRequest["method"], params: Record<string, unknown>) =>
    Effect.scoped(rpc.handle(agent, new AgentRpcRequest({ jsonrpc: "2.0", id: null, method, params }))).pipe(
      Effect.flatMap((response) =>
        response instanceof AgentRpcResponse
          ? response.error === null ? Effect.succeed(response.result) : Effect.fail(response.error.message)
          : Effect.fail(`${method} answered a stream`)
      )
    )

  /** Step 3: one fire delivered (agentex's `launch_scheduled_agent_run_activity`); fails with a message to try again. */
  const launch = (fire: Fire): Effect.Effect<Outcome, string> =>
    Effect.gen(function*() {
      const found = yield* repo.byId(fire.schedule_id)
      if (Option.isNone(found)) return skipped("schedule_not_found")
      const schedule = found.value
      if (schedule.deleted_at !== null) return skipped("schedule_deleted")
      if (schedule.paused && fire.trigger_type === "scheduled") return skipped("schedule_paused")
      const agent = yield* agents.find(schedule.agent_id, [schedule.account_id])
      if (Option.isNone(agent)) return skipped("agent_deleted")
      const name = fireTaskName(schedule.id, fire.fire_id)
      const existing = yield* tasks.findByName(name, schedule.account_id)
      if (Option.isSome(existing) && existing.value.task_metadata?.scheduled_input_delivered === true) {
        return skipped("input_already_delivered", existing.value.id)
      }
      const fireTime = /(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)$/.exec(fire.fire_id)?.[1]
      // later keys win: a user's `display_name` over the default, the system keys over the user's
      const metadata = {
        display_name: schedule.name,
        ...schedule.task_metadata,
        schedule_id: schedule.id,
        scheduled_fire_id: fire.fire_id,
        trigger_type: fire.trigger_type,
        ...(fireTime === undefined ? {} : { fire_time: fireTime })
      }
      const task = (yield* call(agent.value, "task/create", { name, params: schedule.task_params, task_metadata: metadata })) as { id: string }
      const content = { type: "text", author: schedule.initial_input.author, content: schedule.initial_input.content }
      if (agent.value.acp_type === "sync") yield* call(agent.value, "message/send", { task_id: task.id, content, stream: false })
      else yield* call(agent.value, "event/send", { task_id: task.id, content })
      // delivered: said in the task's metadata, so that a retry after this point does not send it again
      yield* tasks.transaction(Effect.gen(function*() {
        const current = yield* tasks.get(task.id, [schedule.account_id])
        const updated = yield* tasks.update({
          ...current,
          task_metadata: { ...current.task_metadata, scheduled_input_delivered: true },
          updated_at: iso(Date.now())
        })
        yield* streams.publish(updated, taskFrame(updated))
      }))
      return { status: "launched", task_id: task.id } as const
    }).pipe(
      // agentex's activity timeout (120 s), less the time a delivery's end takes to write
      Effect.timeoutFail({ duration: "110 seconds", onTimeout: () => "the delivery took longer than 110 s" }),
      Effect.catchAllCause((cause) => Effect.fail(Cause.isFailType(cause) ? String(cause.error) : Cause.pretty(cause)))
    )

  /**
   * The rows of `fire` as this process claimed it: a claim counts an attempt, so a fire whose
   * `attempts` moved on was claimed again by another process (this one's lease ran out) and is no
   * longer this one's to renew, end or give back.
   */
  const claimedHere = (fire: Fire) => sql`fire_id = ${fire.fire_id} AND status = 'pending' AND attempts = ${fire.attempts}`

  /** Renews the lease of a fire being delivered: false when it is no longer this process's. */
  const renew = (fire: Fire) =>
    Effect.map(sql`UPDATE agent_run_schedule_fires SET lease_until = ${iso(Date.now() + leaseMillis)} WHERE ${claimedHere(fire)} RETURNING fire_id`, (rows) => rows.length > 0)

  /** A claimed fire delivered and its end written (or its next try planned). */
  const deliver = (fire: Fire) =>
    Effect.gen(function*() {
      const outcome = yield* Effect.either(launch(fire))
      const now = iso(Date.now())
      if (outcome._tag === "Right") {
        const end = outcome.right
        yield* sql`UPDATE agent_run_schedule_fires SET status = ${end.status}, reason = ${end.status === "skipped" ? end.reason : null},
          task_id = ${end.task_id}, lease_until = ${null}, error = ${null}, updated_at = ${now}
          WHERE ${claimedHere(fire)}`
      } else if (fire.attempts >= maxAttempts) {
        yield* Effect.logWarning(`the run schedule fire ${fire.fire_id} failed ${fire.attempts} times: skipped`, outcome.left)
        yield* sql`UPDATE agent_run_schedule_fires SET status = 'skipped', reason = 'delivery_failed', error = ${errorOf(outcome.left)},
          lease_until = ${null}, updated_at = ${now} WHERE ${claimedHere(fire)}`
      } else {
        yield* sql`UPDATE agent_run_schedule_fires SET lease_until = ${iso(Date.now() + retryAfter(fire.attempts))}, error = ${errorOf(outcome.left)},
          updated_at = ${now} WHERE ${claimedHere(fire)}`
      }
    }).pipe(
      // the lease renewed while it runs (a failed renewal is tried at the next); the delivery stopped
      // once the fire is another process's (claimed again after this one's lease ran out: this one
      // stalled), so that it is not sent twice at once; given back if the process stops meanwhile
      (delivery) =>
        Effect.raceFirst(
          delivery,
          Effect.repeat(Effect.delay(Effect.orElseSucceed(renew(fire), () => true), `${renewMillis} millis`), { while: (held) => held }).pipe(
            Effect.zipRight(Effect.logWarning(`the run schedule fire ${fire.fire_id} was claimed by another process: its delivery here stopped`))
          )
        ),
      Effect.onInterrupt(() => Effect.ignore(sql`UPDATE agent_run_schedule_fires SET lease_until = ${null} WHERE ${claimedHere(fire)}`)),
      Effect.catchAllCause((cause) => Effect.logWarning(`the run schedule fire ${fire.fire_id} was not delivered`, cause))
    )

  /**
   * One turn: due schedules fired, free fires claimed (no more than the free delivery slots), what
   * this process claimed delivered at once in the background (in `scope`).
   */
  const tick = (scope: Scope.Scope) =>
    Effect.gen(function*() {
      const now = Date.now()
      const due = yield* fireDue(now, deliverySlots - inFlight)
      const claimed = [...due, ...(yield* reclaim(now, deliverySlots - inFlight - due.length))]
      if (claimed.length > 0) {
        inFlight += claimed.length
        yield* Effect.forkIn(
          Effect.forEach(claimed, (fire) => Effect.ensuring(deliver(fire), Effect.sync(() => inFlight--)), {
            concurrency: "unbounded",
            discard: true
          }),
          scope
        )
      }
      return claimed.length
    })

  return { tick, fireDue, reclaim, deliver } as const
})

/**
 * The loop of this process: a tick every `tickMillis`, a failed one logged (the next tries
 * again). Deliveries run in this layer's scope: closing it interrupts them, and their leases are
 * given back.
 */
const loop = Effect.gen(function*() {
  const firing = yield* makeFiring
  const scope = yield* Effect.scope
  const turn = firing.tick(scope).pipe(
    Effect.catchAllCause((cause) => Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logWarning("a run schedules' tick failed", cause)),
    Effect.zipRight(Effect.sleep(`${tickMillis} millis`))
  )
  yield* Effect.forkIn(Effect.forever(turn), scope)
})

/**
 * The firing loop with what it needs besides the application's database, ids and `SecretBox` (the
 * application's: the key that opens the agents' sealed keys, ephemeral for an in-memory database).
 */
export const RunScheduleFiringLive = Layer.scopedDiscard(loop).pipe(
  Layer.provide([
    SchedulesRepo.Default,
    AgentsRepo.Default,
    TasksRepo.Default,
    MessagesRepo.Default,
    EventsRepo.Default,
    AgentCalls.Default,
    TaskStreams.Default
  ])
)

/** What the engine starts (../../workflows.ts): no workflow, the firing loop. */
export const RunScheduleWorkflows = {
  workflows: {},
  layer: RunScheduleFiringLive
} satisfies FamilyWorkflows
