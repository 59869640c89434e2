/**
 * Agent run schedules (docs/agent-tasks.md "Run schedules"), agentex's 16 methods: by id and by
 * name, under the agent. The definition is a row; the firing loop (firing.ts) is the clock, and
 * the live fields are read from its state: the next times from the cadence and the skips, the
 * fires taken so far from its table. The cases agentex answers 400 are a 409 (a name in use) or a
 * 422 (the rest: bad input) here. Served always (agentex registers these routes only when
 * `ENABLE_AGENT_RUN_SCHEDULES` is set).
 */
import { CurrentCaller } from "@platform-kit/api"
import {
  AgentTasksDeleteResponse,
  Conflict,
  CreatorPrincipal,
  NotFound,
  RunSchedule,
  RunScheduleList,
  ScheduleInitialInput,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import type { UpdateRunSchedule } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { callerAccounts } from "../../auth/access.js"
import type { ImplementGroup } from "../../http/groups.js"
import { Ids } from "../../platform/Ids.js"
import { AgentsRepo, type StoredAgent } from "../agents/AgentsRepo.js"
import { cadenceAfter, iso, upcoming } from "./cadence.js"
import { manualFireId } from "./firing.js"
import { SchedulesRepo, type StoredSchedule, type Taken } from "./SchedulesRepo.js"

/** How many upcoming times `next_action_times` lists. */
const upcomingCount = 10
/** agentex's repository reads 50 schedules when it is given no limit, before `limit` truncates. */
const listCap = 50

/** A given instant as every timestamp is answered (UTC, milliseconds, `Z`). */
const instant = (given: string | null | undefined) => (given == null ? null : iso(Date.parse(given)))

const invalid = (loc: ReadonlyArray<string>, msg: string, input: unknown = null) =>
  new ValidationError({ detail: [new ValidationIssue({ loc: [...loc], msg, type: "value_error", input })] })

const bothCadences = (loc: ReadonlyArray<string>) => invalid(loc, "Provide exactly one of cron_expression or interval_seconds")

/** The first input with its defaults (`author` user, `type` text). */
const inputOf = (given: { readonly content: string; readonly author?: "user" | "agent" | null | undefined }) =>
  new ScheduleInitialInput({ content: given.content, author: given.author ?? "user", type: "text" }, true)

/** The next fire of a definition from now (null: none left in its window). */
const nextFireOf = (schedule: StoredSchedule) => {
  const next = cadenceAfter(schedule, Date.now())
  return next === null ? null : iso(next)
}

/** The one-off skips still ahead (the past ones pruned). */
const futureSkips = (skipped: ReadonlyArray<string>, now: number) => skipped.filter((at) => Date.parse(at) > now)

/** The upcoming times (epoch ms), skips left out. */
const upcomingOf = (schedule: StoredSchedule, now: number) =>
  upcoming(schedule, now, upcomingCount, new Set(schedule.skipped.map((at) => Date.parse(at))))

/** The schedule as answered; `live` when the live fields were read (`taken` from the fires table). */
const scheduleOf = (schedule: StoredSchedule, agent: StoredAgent, taken: Taken | undefined, live: boolean) => {
  const now = Date.now()
  const { account_id: _, skipped, deleted_at: __, ...definition } = schedule
  return new RunSchedule({
    ...definition,
    initial_input_method: agent.acp_type === "sync" ? "message/send" : "event/send",
    state: schedule.paused ? "PAUSED" : "ACTIVE",
    next_action_times: live ? upcomingOf(schedule, now).map(iso) : [],
    skipped_action_times: live ? futureSkips(skipped, now).sort() : [],
    last_action_time: live ? taken?.last ?? null : null,
    num_actions_taken: live ? taken?.count ?? 0 : 0,
    live_data_available: live ? true : null
  }, true)
}

export const AgentRunSchedulesHttp = (group: ImplementGroup) =>
  group("agentRunSchedules", (handlers) =>
  Effect.gen(function*() {
    const agents = yield* AgentsRepo
    const schedules = yield* SchedulesRepo
    const ids = yield* Ids

    /** The live agent `agentId` of the caller's accounts, else 404. */
    const agentOf = (agentId: string) =>
      Effect.flatMap(callerAccounts, (accounts) => agents.getLive(agentId, accounts, `Agent '${agentId}' does not exist.`))

    /** The agent and its active schedule, by id or by name, else 404 in agentex's words (row-locked in a transaction). */
    const scheduleOfPath = (path: { readonly agent_id: string; readonly schedule_id?: string; readonly schedule_name?: string }) =>
      Effect.gen(function*() {
        const agent = yield* agentOf(path.agent_id)
        const key = path.schedule_id ?? path.schedule_name!
        const found = path.schedule_id !== undefined
          ? yield* schedules.find(path.schedule_id, agent.id, agent.account_id)
          : yield* schedules.findByName(key, agent.id, agent.account_id)
        if (Option.isNone(found)) {
          return yield* Effect.fail(new NotFound({ detail: `Run schedule '${key}' for agent '${path.agent_id}' does not exist.` }))
        }
        return { agent, schedule: found.value }
      })

    /** The schedule answered with its live fields. */
    const live = (schedule: StoredSchedule, agent: StoredAgent) =>
      Effect.map(schedules.taken([schedule.id]), (taken) => scheduleOf(schedule, agent, taken.get(schedule.id), true))

    const nameTaken = (name: string, agentId: string) => () =>
      Effect.fail(new Conflict({ detail: `Run schedule '${name}' already exists for agent '${agentId}'` }))

    /** An update (agentex's `exclude_unset` merge), the cadence rebuilt, the skips dropped. */
    const update = (path: Parameters<typeof scheduleOfPath>[0], payload: UpdateRunSchedule) =>
      schedules.transaction(Effect.gen(function*() {
        if (payload.cron_expression != null && payload.interval_seconds != null) return yield* Effect.fail(bothCadences(["body"]))
        const { agent, schedule } = yield* scheduleOfPath(path)
        const given = <K extends keyof UpdateRunSchedule>(key: K) => Object.prototype.hasOwnProperty.call(payload, key)
        const next: { -readonly [K in keyof StoredSchedule]: StoredSchedule[K] } = { ...schedule }
        if (given("name") && payload.name != null) next.name = payload.name
        if (given("description")) next.description = payload.description ?? null
        if (given("task_params")) next.task_params = payload.task_params ?? null
        if (given("task_metadata")) next.task_metadata = payload.task_metadata ?? null
        if (given("start_at")) next.start_at = instant(payload.start_at)
        if (given("end_at")) next.end_at = instant(payload.end_at)
        if (given("timezone") && payload.timezone != null) next.timezone = payload.timezone
        if (given("paused") && payload.paused != null) next.paused = payload.paused
        if (given("initial_input") && payload.initial_input != null) next.initial_input = inputOf(payload.initial_input)
        if (given("cron_expression")) {
          next.cron_expression = payload.cron_expression ?? null
          if (payload.cron_expression != null) next.interval_seconds = null
        }
        if (given("interval_seconds")) {
          next.interval_seconds = payload.interval_seconds ?? null
          if (payload.interval_seconds != null) next.cron_expression = null
        }
        if ((next.cron_expression === null) === (next.interval_seconds === null)) {
          return yield* Effect.fail(invalid(["body"], "Schedule must have exactly one of cron_expression or interval_seconds"))
        }
        // the spec is rebuilt whole, without the one-off skips (as agentex's Temporal update)
        const written = { ...next, skipped: [], updated_at: iso(Date.now()) }
        yield* schedules.write(written, nextFireOf(written)).pipe(Effect.catchTag("ScheduleNameTaken", nameTaken(written.name, agent.id)))
        return yield* live(written, agent)
      }))

    /** Pause or resume: the flag; a resume's cadence goes on from now (the fires due while paused are not made up). */
    const setPaused = (path: Parameters<typeof scheduleOfPath>[0], paused: boolean) =>
      schedules.transaction(Effect.gen(function*() {
        const { agent, schedule } = yield* scheduleOfPath(path)
        const written = { ...schedule, paused, updated_at: iso(Date.now()) }
        yield* Effect.orDie(schedules.write(written, paused ? undefined : nextFireOf(written)))
        return yield* live(written, agent)
      }))

    /** A fire now, outside the cadence, paused or not: a pending fire the firing loop delivers at its next tick. */
    const trigger = (path: Parameters<typeof scheduleOfPath>[0]) =>
      Effect.gen(function*() {
        const { agent, schedule } = yield* scheduleOfPath(path)
        const now = Date.now()
        yield* Effect.orDie(schedules.insertFire({
          fire_id: manualFireId(schedule.id, now),
          schedule_id: schedule.id,
          account_id: schedule.account_id,
          trigger_type: "manual",
          scheduled_at: iso(now),
          status: "pending",
          reason: null,
          error: null,
          task_id: null,
          attempts: 0,
          lease_until: null,
          created_at: iso(now),
          updated_at: iso(now)
        }))
        return yield* live(schedule, agent)
      })

    /** Soft delete: out of the reads, its name free, no more fires (pending ones end `schedule_deleted`). */
    const remove = (path: Parameters<typeof scheduleOfPath>[0]) =>
      schedules.transaction(Effect.gen(function*() {
        const { schedule } = yield* scheduleOfPath(path)
        const now = iso(Date.now())
        yield* Effect.orDie(schedules.write({ ...schedule, deleted_at: now, updated_at: now }, null))
        const named = path.schedule_name ?? schedule.id
        return new AgentTasksDeleteResponse({ id: schedule.id, message: `Run schedule '${named}' deleted successfully` }, true)
      }))

    return handlers
      .handle("create", ({ path, payload }) =>
        Effect.gen(function*() {
          const agent = yield* agentOf(path.agent_id)
          if ((payload.cron_expression == null) === (payload.interval_seconds == null)) return yield* Effect.fail(bothCadences(["body"]))
          const caller = yield* CurrentCaller
          const now = iso(Date.now())
          const schedule: StoredSchedule = {
            id: yield* ids.make,
            agent_id: agent.id,
            name: payload.name,
            description: payload.description ?? null,
            initial_input: inputOf(payload.initial_input),
            cron_expression: payload.cron_expression ?? null,
            interval_seconds: payload.interval_seconds ?? null,
            timezone: payload.timezone ?? "UTC",
            start_at: instant(payload.start_at),
            end_at: instant(payload.end_at),
            paused: payload.paused ?? false,
            task_params: payload.task_params ?? null,
            task_metadata: payload.task_metadata ?? null,
            creator_principal: new CreatorPrincipal({
              account_id: agent.account_id,
              principal_type: caller.identityType,
              user_id: caller.identityType === "user" ? caller.identityId : null,
              service_account_id: caller.identityType === "service_account" ? caller.identityId : null
            }, true),
            created_at: now,
            updated_at: now,
            skipped: [],
            deleted_at: null,
            account_id: agent.account_id
          }
          yield* schedules.insert(schedule, nextFireOf(schedule)).pipe(Effect.catchTag("ScheduleNameTaken", nameTaken(schedule.name, agent.id)))
          return yield* live(schedule, agent)
        }))
      .handle("list", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const agent = yield* agentOf(path.agent_id)
          const listed = yield* schedules.list(agent.id, agent.account_id, Math.min(listCap, urlParams.limit ?? 100))
          const withLive = urlParams.include_live === true
          const taken = withLive ? yield* schedules.taken(listed.map((schedule) => schedule.id)) : new Map<string, Taken>()
          const run_schedules = listed.map((schedule) => scheduleOf(schedule, agent, taken.get(schedule.id), withLive))
          return new RunScheduleList({ run_schedules, total: run_schedules.length }, true)
        }))
      .handle("get", ({ path }) => Effect.flatMap(scheduleOfPath(path), ({ agent, schedule }) => live(schedule, agent)))
      .handle("getByName", ({ path }) => Effect.flatMap(scheduleOfPath(path), ({ agent, schedule }) => live(schedule, agent)))
      .handle("update", ({ path, payload }) => update(path, payload))
      .handle("updateByName", ({ path, payload }) => update(path, payload))
      .handle("delete", ({ path }) => remove(path))
      .handle("deleteByName", ({ path }) => remove(path))
      .handle("pause", ({ path }) => setPaused(path, true))
      .handle("pauseByName", ({ path }) => setPaused(path, true))
      .handle("resume", ({ path }) => setPaused(path, false))
      .handle("resumeByName", ({ path }) => setPaused(path, false))
      .handle("trigger", ({ path }) => trigger(path))
      .handle("triggerByName", ({ path }) => trigger(path))
      .handle("skip", ({ path, payload }) =>
        schedules.transaction(Effect.gen(function*() {
          const { agent, schedule } = yield* scheduleOfPath(path)
          const now = Date.now()
          const at = Date.parse(payload.scheduled_time)
          if (at <= now) return yield* Effect.fail(invalid(["body", "scheduled_time"], "Cannot skip a past scheduled time", payload.scheduled_time))
          if (!upcomingOf(schedule, now).includes(at)) {
            return yield* Effect.fail(
              invalid(["body", "scheduled_time"], "Cannot skip a time that is not an upcoming schedule action", payload.scheduled_time)
            )
          }
          const skipped = [...futureSkips(schedule.skipped, now).filter((time) => Date.parse(time) !== at), iso(at)].sort()
          const written = { ...schedule, skipped, updated_at: iso(now) }
          yield* Effect.orDie(schedules.write(written))
          return yield* live(written, agent)
        })))
      .handle("unskip", ({ path, payload }) =>
        schedules.transaction(Effect.gen(function*() {
          const { agent, schedule } = yield* scheduleOfPath(path)
          const now = Date.now()
          const at = Date.parse(payload.scheduled_time)
          const ahead = futureSkips(schedule.skipped, now)
          if (at <= now || !ahead.some((time) => Date.parse(time) === at)) {
            return yield* Effect.fail(
              invalid(["body", "scheduled_time"], "Cannot unskip a time that is not currently skipped", payload.scheduled_time)
            )
          }
          const written = { ...schedule, skipped: ahead.filter((time) => Date.parse(time) !== at), updated_at: iso(now) }
          yield* Effect.orDie(schedules.write(written))
          return yield* live(written, agent)
        })))
  })
).pipe(Layer.provide([AgentsRepo.Default, SchedulesRepo.Default]))
