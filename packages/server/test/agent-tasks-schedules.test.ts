/**
 * Agent run schedules (docs/agent-tasks.md "Run schedules"): the 16 methods by id and by name,
 * their shapes and rules (422s for bad input, 409 for a name in use, 404s in agentex's words, the
 * update's `null`s, skips), and the firing: an interval schedule of 1 s makes its named tasks with
 * the schedule's params and metadata and its input delivered to a real agent (an async agent's as an
 * event); a pause stops the cadence, a trigger runs while paused; a second firing loop on the same
 * database fires nothing twice; a fire left pending by a killed process is delivered; missed fires
 * follow the catch-up rule.
 */
import { SqlClient } from "@effect/sql"
import { assert, it as unit, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option, TestServices } from "effect"
import { cadenceAfter, dueTimes } from "../src/agent-tasks/schedules/cadence.js"
import { makeFiring } from "../src/agent-tasks/schedules/firing.js"
import { SchedulesRepo } from "../src/agent-tasks/schedules/SchedulesRepo.js"
import { AgentsRepo } from "../src/agent-tasks/agents/AgentsRepo.js"
import { TasksRepo } from "../src/agent-tasks/tasks/TasksRepo.js"
import { MessagesRepo } from "../src/agent-tasks/messages/MessagesRepo.js"
import { EventsRepo } from "../src/events/EventsRepo.js"
import { AgentCalls } from "../src/agent-tasks/rpc/acp.js"
import { SecretBox } from "../src/credentials/SecretBox.js"
import { TaskStreams } from "../src/agent-tasks/streams.js"
import { eventually, isoPattern, provision, request, TestServerLive } from "../src/testing.js"
import { echoAgent } from "./support/echoAgent.js"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

const scheduleKeys = [
  "agent_id",
  "created_at",
  "creator_principal",
  "cron_expression",
  "description",
  "end_at",
  "id",
  "initial_input",
  "initial_input_method",
  "interval_seconds",
  "last_action_time",
  "live_data_available",
  "name",
  "next_action_times",
  "num_actions_taken",
  "paused",
  "skipped_action_times",
  "start_at",
  "state",
  "task_metadata",
  "task_params",
  "timezone",
  "updated_at"
]

const live = (millis: number) => TestServices.provideLive(Effect.sleep(`${millis} millis`))

const register = (key: string, name: string, acp_url: string, acp_type: "sync" | "async" = "sync") =>
  Effect.map(request("POST", "/agents/register", { key, body: { name, description: `${name} agent`, acp_url, acp_type } }), (response) => {
    assert.strictEqual(response.status, 200, JSON.stringify(response.body))
    return response.body as { id: string; name: string }
  })

const ok = (response: { status: number; body: any }) => {
  assert.strictEqual(response.status, 200, JSON.stringify(response.body))
  return response.body
}

const detailOf = (response: { status: number; body: any }, status: number) => {
  assert.strictEqual(response.status, status, JSON.stringify(response.body))
  return typeof response.body.detail === "string" ? response.body.detail : response.body.detail.map((issue: any) => issue.msg).join("; ")
}

/** The tasks of a schedule (their names say so), oldest first. */
const tasksOf = (key: string, agentId: string, scheduleId: string) =>
  Effect.map(request("GET", `/tasks?agent_id=${agentId}&limit=1000&order_direction=asc`, { key }), (response) =>
    (ok(response) as Array<any>).filter((task) => String(task.name).startsWith(`scheduled-run:${scheduleId}:`)))

/**
 * One secret key for the server and the second loop below (an in-memory database's is random per
 * `SecretBox`): the second loop opens the agents' keys the server sealed, as a second process on
 * the same database does with the key both are configured with.
 */
const keyed = ConfigProvider.fromMap(new Map([["PLATFORM_SECRET_KEY", "11".repeat(32)]])).pipe(
  ConfigProvider.orElse(() => ConfigProvider.fromEnv())
)

/** A firing loop of its own over the test server's database: a second process's, for the races. */
const SecondFiring = Layer.mergeAll(
  SchedulesRepo.Default,
  AgentsRepo.Default,
  TasksRepo.Default,
  MessagesRepo.Default,
  EventsRepo.Default,
  AgentCalls.Default,
  SecretBox.Live,
  TaskStreams.Default
).pipe(Layer.provide(Layer.setConfigProvider(keyed)))

layer(TestServerLive.pipe(Layer.provide(Layer.setConfigProvider(keyed))), { timeout: 60_000 })("agent run schedules", (it) => {
  it.scoped("create, read, list, update, skip, pause, delete: shapes and rules, by id and by name", () =>
    Effect.gen(function*() {
      const { key, identityId, accountId } = yield* provision()
      const acp = yield* echoAgent
      const agent = yield* register(key, "scheduled", acp.url)
      const base = `/agents/${agent.id}/schedules`

      const created = ok(yield* request("POST", base, {
        key,
        body: {
          name: "every-minute",
          initial_input: { content: "hello" },
          interval_seconds: 3600,
          description: "a test",
          task_params: { depth: 1 },
          task_metadata: { team: "a" }
        }
      }))
      assert.deepStrictEqual(Object.keys(created).sort(), scheduleKeys)
      assert.include(created, {
        agent_id: agent.id,
        name: "every-minute",
        cron_expression: null,
        interval_seconds: 3600,
        timezone: "UTC",
        start_at: null,
        end_at: null,
        paused: false,
        state: "ACTIVE",
        description: "a test",
        initial_input_method: "message/send",
        last_action_time: null,
        num_actions_taken: 0,
        live_data_available: true
      })
      assert.deepStrictEqual(created.initial_input, { content: "hello", author: "user", type: "text" })
      assert.deepStrictEqual(created.creator_principal, { account_id: accountId, principal_type: "user", user_id: identityId, service_account_id: null })
      assert.match(created.created_at, isoPattern)
      // the next ten hours, on the hour (intervals count from the epoch)
      assert.strictEqual(created.next_action_times.length, 10)
      const times = created.next_action_times.map(Date.parse)
      assert.isAbove(times[0], Date.now() - 1_000)
      for (let i = 0; i < times.length; i++) {
        assert.strictEqual(times[i] % 3600_000, 0)
        if (i > 0) assert.strictEqual(times[i] - times[i - 1], 3600_000)
      }
      assert.deepStrictEqual(created.skipped_action_times, [])

      // a cron in a time zone: weekdays at 17:00 in New York, weekday names taken
      const cron = ok(yield* request("POST", base, {
        key,
        body: { name: "weekdays", initial_input: { content: "report", author: "agent" }, cron_expression: "0 17 * * MON-FRI", timezone: "America/New_York" }
      }))
      assert.include(cron, { interval_seconds: null, cron_expression: "0 17 * * MON-FRI", timezone: "America/New_York" })
      const format = new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", weekday: "short", hour: "2-digit", minute: "2-digit", hour12: false })
      for (const at of cron.next_action_times) {
        const parts = Object.fromEntries(format.formatToParts(new Date(at)).map((part) => [part.type, part.value]))
        assert.include(["Mon", "Tue", "Wed", "Thu", "Fri"], parts.weekday)
        assert.deepStrictEqual([parts.hour, parts.minute], ["17", "00"])
      }

      // the active window: the times inside it only, answered in UTC
      const windowed = ok(yield* request("POST", base, {
        key,
        body: { name: "windowed", initial_input: { content: "w" }, interval_seconds: 3600, start_at: "2030-01-01T02:00:00+02:00", end_at: "2030-01-01T03:00:00Z" }
      }))
      assert.include(windowed, { start_at: "2030-01-01T00:00:00.000Z", end_at: "2030-01-01T03:00:00.000Z" })
      assert.deepStrictEqual(windowed.next_action_times, ["00", "01", "02", "03"].map((hour) => `2030-01-01T${hour}:00:00.000Z`))
      ok(yield* request("DELETE", `${base}/${windowed.id}`, { key }))

      // bad input: 422
      const body = { name: "bad", initial_input: { content: "x" } }
      assert.strictEqual(
        detailOf(yield* request("POST", base, { key, body: { ...body, interval_seconds: 5, cron_expression: "* * * * *" } }), 422),
        "Provide exactly one of cron_expression or interval_seconds"
      )
      assert.strictEqual(detailOf(yield* request("POST", base, { key, body }), 422), "Provide exactly one of cron_expression or interval_seconds")
      assert.include(detailOf(yield* request("POST", base, { key, body: { ...body, cron_expression: "0 17 * * *", timezone: "Mars/Base" } }), 422), "Unknown time zone")
      assert.include(detailOf(yield* request("POST", base, { key, body: { ...body, cron_expression: "not a cron" } }), 422), "Invalid cron expression")
      // one that parses but never matches (February 30th): refused, not a 500 when its next time is read
      assert.include(detailOf(yield* request("POST", base, { key, body: { ...body, cron_expression: "0 0 30 2 *" } }), 422), "never matches")
      assert.strictEqual((yield* request("POST", base, { key, body: { ...body, interval_seconds: 0 } })).status, 422)
      assert.strictEqual((yield* request("POST", base, { key, body: { ...body, name: "Bad_Name", interval_seconds: 5 } })).status, 422)
      assert.strictEqual((yield* request("POST", base, { key, body: { name: "no-input", interval_seconds: 5 } })).status, 422)
      // a name in use: 409 (agentex: 400)
      assert.strictEqual(
        detailOf(yield* request("POST", base, { key, body: { ...body, name: "every-minute", interval_seconds: 5 } }), 409),
        `Run schedule 'every-minute' already exists for agent '${agent.id}'`
      )
      // another agent's, another account's: 404
      assert.strictEqual(detailOf(yield* request("POST", `/agents/nope/schedules`, { key, body: { ...body, interval_seconds: 5 } }), 404), "Agent 'nope' does not exist.")
      const stranger = yield* provision()
      assert.strictEqual((yield* request("GET", `${base}/${created.id}`, { key: stranger.key })).status, 404)

      // reads: by id and by name the same, with live data
      const byId = ok(yield* request("GET", `${base}/${created.id}`, { key }))
      assert.deepStrictEqual(byId, created)
      assert.deepStrictEqual(ok(yield* request("GET", `${base}/name/every-minute`, { key })), created)
      assert.strictEqual(detailOf(yield* request("GET", `${base}/name/missing`, { key }), 404), `Run schedule 'missing' for agent '${agent.id}' does not exist.`)
      assert.strictEqual(detailOf(yield* request("GET", `${base}/missing-id`, { key }), 404), `Run schedule 'missing-id' for agent '${agent.id}' does not exist.`)

      // list: newest first; live fields only with include_live
      const listed = ok(yield* request("GET", base, { key }))
      assert.deepStrictEqual(Object.keys(listed).sort(), ["run_schedules", "total"])
      assert.strictEqual(listed.total, 2)
      assert.deepStrictEqual(listed.run_schedules.map((s: any) => s.name), ["weekdays", "every-minute"])
      assert.include(listed.run_schedules[1], { live_data_available: null, num_actions_taken: 0, state: "ACTIVE" })
      assert.deepStrictEqual(listed.run_schedules[1].next_action_times, [])
      const withLive = ok(yield* request("GET", `${base}?include_live=true&limit=1`, { key }))
      assert.strictEqual(withLive.total, 1)
      assert.deepStrictEqual(withLive.run_schedules[0], cron)
      assert.strictEqual((yield* request("GET", `${base}?limit=0`, { key })).status, 422)

      // update: one cadence clears the other; both is a 422; none left is a 422; null clears or is ignored
      const toCron = ok(yield* request("PATCH", `${base}/${created.id}`, { key, body: { cron_expression: "*/5 * * * *", timezone: null, paused: null, description: null } }))
      assert.include(toCron, { cron_expression: "*/5 * * * *", interval_seconds: null, timezone: "UTC", paused: false, description: null })
      assert.deepStrictEqual(toCron.task_params, { depth: 1 })
      assert.strictEqual(
        detailOf(yield* request("PATCH", `${base}/${created.id}`, { key, body: { cron_expression: "* * * * *", interval_seconds: 5 } }), 422),
        "Provide exactly one of cron_expression or interval_seconds"
      )
      assert.strictEqual(
        detailOf(yield* request("PATCH", `${base}/${created.id}`, { key, body: { cron_expression: null } }), 422),
        "Schedule must have exactly one of cron_expression or interval_seconds"
      )
      assert.include(detailOf(yield* request("PATCH", `${base}/${created.id}`, { key, body: { timezone: "Nowhere/Land" } }), 422), "Unknown time zone")
      assert.include(detailOf(yield* request("PATCH", `${base}/${created.id}`, { key, body: { cron_expression: "0 0 30 2 *" } }), 422), "never matches")
      assert.strictEqual(
        detailOf(yield* request("PATCH", `${base}/${created.id}`, { key, body: { name: "weekdays" } }), 409),
        `Run schedule 'weekdays' already exists for agent '${agent.id}'`
      )
      // nothing was saved by the refusals
      assert.deepStrictEqual(ok(yield* request("GET", `${base}/${created.id}`, { key })).cron_expression, "*/5 * * * *")
      const back = ok(yield* request("PATCH", `${base}/name/every-minute`, {
        key,
        body: { name: "every-minute-2", interval_seconds: 3600, task_params: null, initial_input: { content: "again", author: "agent" } }
      }))
      assert.include(back, { name: "every-minute-2", interval_seconds: 3600, cron_expression: null, task_params: null })
      assert.deepStrictEqual(back.task_metadata, { team: "a" })
      assert.deepStrictEqual(back.initial_input, { content: "again", author: "agent", type: "text" })
      const path = `${base}/${created.id}`

      // skip and unskip: one of the upcoming times only
      const [first, second] = back.next_action_times
      assert.strictEqual(
        detailOf(yield* request("POST", `${path}/skip`, { key, body: { scheduled_time: new Date(Date.now() - 60_000).toISOString() } }), 422),
        "Cannot skip a past scheduled time"
      )
      assert.strictEqual(
        detailOf(yield* request("POST", `${path}/skip`, { key, body: { scheduled_time: new Date(Date.parse(first) + 1_000).toISOString() } }), 422),
        "Cannot skip a time that is not an upcoming schedule action"
      )
      assert.strictEqual(
        detailOf(yield* request("POST", `${path}/skip`, { key, body: { scheduled_time: first.replace(".000Z", "") } }), 422),
        "scheduled_time must include timezone information."
      )
      // the same instant with an offset is the same time
      const offset = new Date(Date.parse(second) + 2 * 3600_000).toISOString().replace(".000Z", "+02:00")
      const skipped = ok(yield* request("POST", `${path}/skip`, { key, body: { scheduled_time: offset } }))
      assert.deepStrictEqual(skipped.skipped_action_times, [second])
      assert.strictEqual(skipped.next_action_times[0], first)
      assert.notInclude(skipped.next_action_times, second)
      assert.strictEqual(skipped.next_action_times.length, 10)
      // a skipped time is not upcoming: a second skip is refused; an unskip of a time not skipped too
      assert.strictEqual((yield* request("POST", `${path}/skip`, { key, body: { scheduled_time: second } })).status, 422)
      assert.strictEqual(
        detailOf(yield* request("POST", `${path}/unskip`, { key, body: { scheduled_time: first } }), 422),
        "Cannot unskip a time that is not currently skipped"
      )
      const unskipped = ok(yield* request("POST", `${path}/unskip`, { key, body: { scheduled_time: second } }))
      assert.deepStrictEqual(unskipped.skipped_action_times, [])
      assert.strictEqual(unskipped.next_action_times[1], second)
      // an update drops the skips
      ok(yield* request("POST", `${path}/skip`, { key, body: { scheduled_time: second } }))
      assert.deepStrictEqual(ok(yield* request("PATCH", path, { key, body: { description: "kept" } })).skipped_action_times, [])

      // pause and resume, with a note, none, or null
      assert.include(ok(yield* request("POST", `${path}/pause`, { key, body: { note: "why" } })), { paused: true, state: "PAUSED" })
      assert.include(ok(yield* request("POST", `${path}/resume`, { key, body: {} })), { paused: false, state: "ACTIVE" })
      assert.include(ok(yield* request("POST", `${base}/name/every-minute-2/pause`, { key, body: { note: null } })), { paused: true })
      assert.include(ok(yield* request("POST", `${base}/name/every-minute-2/resume`, { key, body: {} })), { paused: false })
      // created paused
      const sleeping = ok(yield* request("POST", base, { key, body: { name: "sleeping", initial_input: { content: "x" }, interval_seconds: 5, paused: true } }))
      assert.include(sleeping, { paused: true, state: "PAUSED" })

      // delete: soft, the name free again; by name the message names it
      assert.deepStrictEqual(ok(yield* request("DELETE", path, { key })), { id: created.id, message: `Run schedule '${created.id}' deleted successfully` })
      assert.strictEqual((yield* request("GET", path, { key })).status, 404)
      assert.strictEqual((yield* request("DELETE", path, { key })).status, 404)
      assert.deepStrictEqual(ok(yield* request("DELETE", `${base}/name/sleeping`, { key })), { id: sleeping.id, message: "Run schedule 'sleeping' deleted successfully" })
      const again = ok(yield* request("POST", base, { key, body: { name: "every-minute-2", initial_input: { content: "x" }, interval_seconds: 5 } }))
      assert.notStrictEqual(again.id, created.id)
      assert.deepStrictEqual(ok(yield* request("GET", base, { key })).run_schedules.map((s: any) => s.name), ["every-minute-2", "weekdays"])
    }))

  it.scoped("an interval of 1 s fires: the named task with the params and metadata, its input delivered; pause stops it, trigger runs while paused", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const acp = yield* echoAgent
      const agent = yield* register(key, "fired", acp.url)
      const base = `/agents/${agent.id}/schedules`
      const created = ok(yield* request("POST", base, {
        key,
        body: {
          name: "every-second",
          initial_input: { content: "tick" },
          interval_seconds: 1,
          task_params: { depth: 2 },
          task_metadata: { team: "a", display_name: "mine", schedule_id: "user's, overridden" }
        }
      }))
      const path = `${base}/${created.id}`
      const fired = yield* eventually(Effect.map(tasksOf(key, agent.id, created.id), (tasks) => tasks.length >= 2 ? Option.some(tasks) : Option.none()))
      assert.isTrue(Option.isSome(fired), "two fires within 30 s")
      const [task] = Option.getOrThrow(fired)
      const fireId = task.name.slice(`scheduled-run:${created.id}:`.length)
      assert.match(fireId, new RegExp(`^agent-run-schedule:${created.id}-run-\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$`))
      const fireTime = fireId.slice(-20)
      // a fire is one task, its params and metadata as agentex makes them; the input delivered
      const full = ok(yield* request("GET", `/tasks/${task.id}`, { key }))
      assert.deepStrictEqual(full.params, { depth: 2 })
      const delivered = yield* eventually(Effect.map(request("GET", `/tasks/${task.id}`, { key }), (response) =>
        response.body.task_metadata?.scheduled_input_delivered === true ? Option.some(response.body) : Option.none()))
      assert.deepStrictEqual(Option.getOrThrow(delivered).task_metadata, {
        display_name: "mine",
        team: "a",
        schedule_id: created.id,
        scheduled_fire_id: fireId,
        trigger_type: "scheduled",
        fire_time: fireTime,
        scheduled_input_delivered: true
      })
      const messages = ok(yield* request("GET", `/messages?task_id=${task.id}&order_direction=asc`, { key }))
      assert.deepStrictEqual(messages.map((m: any) => [m.content.author, m.content.content]), [["user", "tick"], ["agent", "You said: tick"]])
      assert.isTrue(acp.seen.some((call) => call.method === "message/send" && call.params.task.id === task.id))
      // the live fields read the fires
      const read = ok(yield* request("GET", path, { key }))
      assert.isAtLeast(read.num_actions_taken, 2)
      assert.match(read.last_action_time, isoPattern)

      // paused: no cadence fire after the ones already made
      ok(yield* request("POST", `${path}/pause`, { key }))
      yield* live(300)
      const before = (yield* tasksOf(key, agent.id, created.id)).length
      yield* live(1_500)
      assert.strictEqual((yield* tasksOf(key, agent.id, created.id)).length, before)

      // a trigger runs while paused: a manual fire, its own task
      const triggered = ok(yield* request("POST", `${base}/name/every-second/trigger`, { key }))
      assert.include(triggered, { id: created.id, paused: true })
      const manual = yield* eventually(Effect.map(tasksOf(key, agent.id, created.id), (tasks) =>
        Option.fromNullable(tasks.find((t) => t.task_metadata?.trigger_type === "manual" && t.task_metadata?.scheduled_input_delivered === true))))
      assert.isTrue(Option.isSome(manual), "the trigger's task")
      assert.match(Option.getOrThrow(manual).task_metadata.scheduled_fire_id, new RegExp(`^agent-run-schedule:${created.id}-manual-[0-9a-f-]{36}-\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$`))
      // each fire delivered once: one message/send per task
      const sends = acp.seen.filter((call) => call.method === "message/send").map((call) => call.params.task.id)
      assert.strictEqual(new Set(sends).size, sends.length)
      ok(yield* request("DELETE", path, { key }))
    }))

  it.scoped("an async agent's fire: the task created, then the input sent as an event (`event/send`), recorded on the task", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      // an async agent's ACP server: every call answered with an empty JSON-RPC result, each kept
      const acp = yield* Effect.acquireRelease(
        Effect.async<{ readonly url: string; readonly server: Http.Server; readonly seen: Array<any> }>((resume) => {
          const seen: Array<any> = []
          const server = Http.createServer((req, res) => {
            const chunks: Array<Buffer> = []
            req.on("data", (chunk: Buffer) => chunks.push(chunk))
            req.on("end", () => {
              const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
              seen.push(body)
              res.writeHead(200, { "content-type": "application/json" })
              res.end(JSON.stringify({ jsonrpc: "2.0", id: body.id, result: {}, error: null }))
            })
          })
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, seen })))
        }),
        ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
      )
      const agent = yield* register(key, "async-fired", acp.url, "async")
      const base = `/agents/${agent.id}/schedules`
      // hourly, so that only the trigger fires within the test
      const created = ok(yield* request("POST", base, { key, body: { name: "hourly", initial_input: { content: "wake up" }, interval_seconds: 3_600 } }))
      ok(yield* request("POST", `${base}/${created.id}/trigger`, { key }))
      const delivered = yield* eventually(Effect.map(tasksOf(key, agent.id, created.id), (tasks) =>
        Option.fromNullable(tasks.find((task) => task.task_metadata?.scheduled_input_delivered === true))))
      assert.isTrue(Option.isSome(delivered), "the fire's task, its input delivered")
      const task = Option.getOrThrow(delivered)
      // the agent got the task's creation, then the input as an event of that task: no message/send
      const calls = acp.seen.filter((call) => call.params?.task?.id === task.id)
      assert.deepStrictEqual(calls.map((call) => call.method), ["task/create", "event/send"])
      assert.include(calls[1].params.event.content, { type: "text", author: "user", content: "wake up" })
      // the event is the task's, as a client lists it
      const events = ok(yield* request("GET", `/events?task_id=${task.id}&agent_id=${agent.id}`, { key }))
      assert.deepStrictEqual(events.map((event: any) => [event.id, event.content.content]), [[calls[1].params.event.id, "wake up"]])
      const fires = ok(yield* request("GET", `${base}/${created.id}`, { key }))
      assert.strictEqual(fires.num_actions_taken, 0, "a trigger is not a cadence fire")
    }))

  it.scoped("two firing loops on one database: each fire once; a fire a killed process left pending is delivered; missed fires follow the catch-up rule", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { key } = yield* provision()
      const acp = yield* echoAgent
      const agent = yield* register(key, "raced", acp.url)
      const base = `/agents/${agent.id}/schedules`
      // a second process's loop: its own services over the same database, ticking as fast as it can
      const scope = yield* Effect.scope
      const second = yield* Effect.provide(makeFiring, yield* Layer.build(SecondFiring))
      yield* Effect.forkScoped(Effect.forever(Effect.zipRight(second.tick(scope), live(20))).pipe(Effect.ignore))
      const made = []
      for (const name of ["race-a", "race-b", "race-c"]) {
        made.push(ok(yield* request("POST", base, { key, body: { name, initial_input: { content: name }, interval_seconds: 1 } })))
      }
      yield* live(3_500)
      for (const schedule of made) ok(yield* request("POST", `${base}/${schedule.id}/pause`, { key }))
      yield* live(500)
      for (const schedule of made) {
        const fires = yield* sql<{ fire_id: string; scheduled_at: string; status: string }>`
          SELECT fire_id, scheduled_at, status FROM agent_run_schedule_fires WHERE schedule_id = ${schedule.id} ORDER BY scheduled_at`
        assert.isAtLeast(fires.length, 2, schedule.name)
        // one fire a second, none missing, none twice
        for (let i = 1; i < fires.length; i++) assert.strictEqual(Date.parse(fires[i]!.scheduled_at) - Date.parse(fires[i - 1]!.scheduled_at), 1_000)
        // every fire settles: launched, or skipped as the rules say (one due while the previous was
        // still delivering on a busy machine; one still pending when the schedule was paused)
        const settled = yield* eventually(Effect.map(
          sql<{ status: string; reason: string | null }>`SELECT status, reason FROM agent_run_schedule_fires WHERE schedule_id = ${schedule.id}`,
          (rows) => rows.every((row) => row.status !== "pending") ? Option.some(rows) : Option.none()
        ), 10_000)
        assert.isTrue(Option.isSome(settled), `every fire of ${schedule.name} settled`)
        const rows = Option.getOrThrow(settled)
        assert.deepStrictEqual(rows.filter((row) => row.status !== "launched" && !["overlap", "schedule_paused"].includes(row.reason ?? "")), [])
        const launched = rows.filter((row) => row.status === "launched").length
        assert.isAtLeast(launched, 2, schedule.name)
        const done = yield* eventually(Effect.map(tasksOf(key, agent.id, schedule.id), (tasks) =>
          tasks.length === launched && tasks.every((t) => t.task_metadata?.scheduled_input_delivered === true) ? Option.some(tasks) : Option.none()), 10_000)
        assert.isTrue(Option.isSome(done), `every launched fire of ${schedule.name} delivered`)
        const sends = acp.seen.filter((call) => call.method === "message/send" && String(call.params.task.name).startsWith(`scheduled-run:${schedule.id}:`))
        assert.strictEqual(sends.length, launched, `one message/send per launched fire of ${schedule.name}`)
      }

      // a process killed after it stored a fire, before it delivered it: the lease runs out, another delivers it
      const [orphaned] = made
      const orphan = `agent-run-schedule:${orphaned.id}-run-2020-01-01T00:00:00Z`
      const now = new Date().toISOString()
      // a pending manual fire of `orphaned` whose lease ran out, as a killed process leaves one
      const accountOfOrphaned = (yield* sql<{ account_id: string }>`SELECT account_id FROM agent_run_schedules WHERE id = ${orphaned.id}`)[0]!.account_id
      const storePending = (fire_id: string, attempts: number) =>
        sql`INSERT INTO agent_run_schedule_fires ${sql.insert({
          fire_id,
          schedule_id: orphaned.id,
          account_id: accountOfOrphaned,
          trigger_type: "manual",
          scheduled_at: now,
          status: "pending",
          reason: null,
          error: null,
          task_id: null,
          attempts,
          lease_until: new Date(Date.now() - 1_000).toISOString(),
          created_at: now,
          updated_at: now
        })}`
      yield* storePending(orphan, 1)
      const recovered = yield* eventually(Effect.map(
        sql<{ status: string; task_id: string | null }>`SELECT status, task_id FROM agent_run_schedule_fires WHERE fire_id = ${orphan}`,
        (rows) => rows[0]?.status === "launched" ? Option.some(rows[0]) : Option.none()
      ), 10_000)
      assert.isTrue(Option.isSome(recovered), "the orphaned fire delivered")
      const recoveredTask = ok(yield* request("GET", `/tasks/${Option.getOrThrow(recovered).task_id}`, { key }))
      assert.strictEqual(recoveredTask.name, `scheduled-run:${orphaned.id}:${orphan}`)
      assert.strictEqual(recoveredTask.task_metadata.fire_time, "2020-01-01T00:00:00Z")

      // a pending fire tried `maxAttempts` times already (its end could not be written): skipped, not claimed again
      const exhausted = `agent-run-schedule:${orphaned.id}-run-2020-01-02T00:00:00Z`
      yield* storePending(exhausted, 5)
      const exhaustedEnd = yield* eventually(Effect.map(
        sql<{ status: string; reason: string | null; attempts: number; task_id: string | null }>`
          SELECT status, reason, attempts, task_id FROM agent_run_schedule_fires WHERE fire_id = ${exhausted}`,
        (rows) => rows[0]?.status !== "pending" ? Option.some(rows[0]) : Option.none()
      ), 10_000)
      assert.deepStrictEqual({ ...Option.getOrThrow(exhaustedEnd), attempts: Number(Option.getOrThrow(exhaustedEnd).attempts) }, { status: "skipped", reason: "delivery_failed", attempts: 5, task_id: null })

      // a fire this process claimed (attempt 2) that another then claimed again (attempt 3, its lease
      // running) after this one's lease ran out: this one's delivery ends nothing of the other's
      const stolen = `agent-run-schedule:${orphaned.id}-run-2020-01-03T00:00:00Z`
      yield* sql`INSERT INTO agent_run_schedule_fires ${sql.insert({
        fire_id: stolen,
        schedule_id: orphaned.id,
        account_id: accountOfOrphaned,
        trigger_type: "manual",
        scheduled_at: now,
        status: "pending",
        reason: null,
        error: null,
        task_id: null,
        attempts: 3,
        lease_until: new Date(Date.now() + 60_000).toISOString(),
        created_at: now,
        updated_at: now
      })}`
      const [row] = yield* sql<any>`SELECT * FROM agent_run_schedule_fires WHERE fire_id = ${stolen}`
      yield* second.deliver({ ...row, attempts: 2 })
      const [after] = yield* sql<{ status: string; attempts: number; lease_until: string | null }>`
        SELECT status, attempts, lease_until FROM agent_run_schedule_fires WHERE fire_id = ${stolen}`
      assert.deepStrictEqual({ ...after!, attempts: Number(after!.attempts) }, { status: "pending", attempts: 3, lease_until: row.lease_until })
      yield* sql`UPDATE agent_run_schedule_fires SET status = 'skipped', reason = 'schedule_deleted' WHERE fire_id = ${stolen}`

      // missed while every process was down: the times of the last 60 s stored, the latest fired, the others `missed`; older ones never
      const missedFires = (name: string, endAt: string | null) =>
        Effect.gen(function*() {
          const every = 20_000
          const schedule = ok(yield* request("POST", base, { key, body: { name, initial_input: { content: name }, interval_seconds: 20, end_at: endAt } }))
          const latest = Math.min(Math.floor(Date.now() / every) * every, endAt === null ? Infinity : Date.parse(endAt))
          // five missed times, the first 80 s old: as a process finds them after a restart
          yield* sql`UPDATE agent_run_schedules SET next_fire_at = ${new Date(latest - 4 * every).toISOString()} WHERE id = ${schedule.id}`
          const moved = yield* eventually(Effect.map(
            sql<{ next_fire_at: string | null }>`SELECT next_fire_at FROM agent_run_schedules WHERE id = ${schedule.id}`,
            (rows) => rows[0]!.next_fire_at === null || Date.parse(rows[0]!.next_fire_at) > latest ? Option.some(rows[0]!.next_fire_at) : Option.none()
          ), 10_000)
          assert.isTrue(Option.isSome(moved), `${name} moved on`)
          yield* live(300)
          const fires = yield* sql<{ scheduled_at: string; status: string; reason: string | null }>`
            SELECT scheduled_at, status, reason FROM agent_run_schedule_fires WHERE schedule_id = ${schedule.id} ORDER BY scheduled_at`
          const next = Option.getOrThrow(moved)
          return {
            latest,
            next: next === null ? null : Date.parse(next),
            every,
            fires: fires.map((fire) => ({ at: Date.parse(fire.scheduled_at), skipped: fire.status === "skipped" ? fire.reason : null }))
          }
        })
      // every 20 s: the latest missed time (the one before where the loop moved it) runs, once; the others of the last
      // 60 s are stored skipped (`missed`), one per time; the 80 s and 60 s old ones are not stored
      const recent = yield* missedFires("recent", null)
      const last = recent.fires.at(-1)!
      assert.deepStrictEqual(last, { at: recent.next! - recent.every, skipped: null })
      assert.include([2, 3], recent.fires.length)
      recent.fires.slice(0, -1).forEach((fire, i) => assert.deepStrictEqual(fire, { at: last.at - (recent.fires.length - 1 - i) * recent.every, skipped: "missed" }))
      assert.isAtLeast(recent.fires[0]!.at, recent.latest - 40_000)
      // ended two minutes ago: every missed time is older than the window: none runs, and none is left
      const ended = yield* missedFires("ended", new Date(Math.floor(Date.now() / 20_000) * 20_000 - 120_000).toISOString())
      assert.deepStrictEqual({ ...ended, latest: 0 }, { latest: 0, next: null, every: 20_000, fires: [] })
    }))
})

// the cadence's walk after downtime: one window long, however long the process was down
unit("catch-up after a day down walks one window; a cron that never matches has no time", () => {
  const everySecond = { cron_expression: "* * * * * *", interval_seconds: null, timezone: "UTC", start_at: null, end_at: null }
  const now = Date.parse("2026-06-23T15:19:00.500Z")
  const started = performance.now()
  const { next, times } = dueTimes(everySecond, now - 86_400_000, now, 60_000)
  assert.isBelow(performance.now() - started, 200)
  // the 60 s window's times, oldest first (the loop fires the latest, stores the others `missed`)
  assert.strictEqual(times.length, 60)
  assert.deepStrictEqual([times[0], times.at(-1), next], [now - 59_500, Date.parse("2026-06-23T15:19:00Z"), Date.parse("2026-06-23T15:19:01Z")])
  // a tick 2.5 s late on a per-second cadence: every due time since the nominal one, none skipped over
  assert.deepStrictEqual(dueTimes(everySecond, now - 2_500, now, 60_000).times, [now - 2_500, now - 1_500, now - 500])
  // nothing in the window: no time due, the next the first after now
  const hourly = { ...everySecond, cron_expression: null, interval_seconds: 3_600 }
  const nominal = Date.parse("2026-06-22T15:00:00Z")
  assert.deepStrictEqual(dueTimes(hourly, nominal, now, 60_000), { times: [], next: Date.parse("2026-06-23T16:00:00Z") })
  assert.isNull(cadenceAfter({ ...everySecond, cron_expression: "0 0 30 2 *" }, now))
})
