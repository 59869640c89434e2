/**
 * Task trackers (docs/agent-tasks.md "Trackers"): one made with every task; `status` and
 * `status_reason` always written; the event cursor moves to an event of the task, never back;
 * lists by task and agent; other accounts.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

/** A sync agent (its task/create is not forwarded) and a task of it made by name. */
const taskOf = (caller: Caller, name: string) =>
  Effect.gen(function*() {
    const agent = yield* caller.client.agents.register({ payload: { name: `${name}-agent`, description: "d", acp_url: "http://127.0.0.1:9", acp_type: "sync" } })
    const made = yield* request("POST", `/agents/${agent.id}/rpc`, { key: caller.key, body: { method: "task/create", params: { name } } })
    return { agent: agent.id, task: made.body.result.id as string }
  })

const event = (caller: Caller, task: string, agent: string, n: number) =>
  Effect.map(
    caller.client.events.append({ payload: { task_id: task, agent_id: agent, content: { type: "data", author: "agent", data: { n } } } }),
    (made) => made.id
  )

layer(TestServerLive, { timeout: 60_000 })("agent task trackers", (it) => {
  it.effect("a task has its tracker; status written whole; the cursor moves forward to the task's events only", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { agent, task } = yield* taskOf(caller, "tracked")
      const [tracker] = yield* caller.client.tracker.list({ urlParams: { task_id: task } })
      assert.match(tracker!.id, uuid)
      assert.notStrictEqual(tracker!.id, task)
      assert.deepStrictEqual({ ...tracker, id: "", created_at: "", updated_at: "" }, {
        id: "",
        agent_id: agent,
        task_id: task,
        created_at: "",
        updated_at: "",
        last_processed_event_id: null,
        status: null,
        status_reason: null
      })
      assert.deepStrictEqual(yield* caller.client.tracker.get({ path: { tracker_id: tracker!.id } }), tracker)

      const [first, second] = [yield* event(caller, task, agent, 1), yield* event(caller, task, agent, 2)]
      yield* TestClock.adjust("1 millis")
      const moved = yield* caller.client.tracker.update({
        path: { tracker_id: tracker!.id },
        payload: { last_processed_event_id: second, status: "PROCESSING", status_reason: "two events in" }
      })
      assert.deepStrictEqual([moved.last_processed_event_id, moved.status, moved.status_reason], [second, "PROCESSING", "two events in"])
      assert.isAbove(Date.parse(moved.updated_at), Date.parse(tracker!.updated_at))

      // status and status_reason are written whole (left out: null); the cursor stays without one
      const statusOnly = yield* caller.client.tracker.update({ path: { tracker_id: tracker!.id }, payload: { status: "IDLE" } })
      assert.deepStrictEqual([statusOnly.last_processed_event_id, statusOnly.status, statusOnly.status_reason], [second, "IDLE", null])

      // never backwards; never to an event that is not the task's: 422, nothing changed
      const back = yield* request("PUT", `/tracker/${tracker!.id}`, { key: caller.key, body: { last_processed_event_id: first } })
      assert.strictEqual(back.status, 422)
      assert.deepStrictEqual(issues(back), [{ loc: ["body", "last_processed_event_id"], type: "value_error" }])
      assert.match(back.body.detail[0].msg, /^Cannot move cursor backwards: new sequence ID 1 < current sequence ID 2$/)
      const other = yield* taskOf(caller, "other")
      const elsewhere = yield* event(caller, other.task, other.agent, 1)
      const foreign = yield* request("PUT", `/tracker/${tracker!.id}`, { key: caller.key, body: { last_processed_event_id: elsewhere } })
      assert.strictEqual(foreign.status, 422)
      assert.strictEqual(foreign.body.detail[0].msg, `Event with ID ${elsewhere} not found`)
      assert.deepStrictEqual(yield* caller.client.tracker.get({ path: { tracker_id: tracker!.id } }), statusOnly)
    }))

  it.effect("lists by agent and task, newest change first; another account's trackers are 404 and never listed", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const one = yield* taskOf(alice, "one")
      yield* TestClock.adjust("1 millis")
      const two = yield* taskOf(alice, "two")
      const all = yield* alice.client.tracker.list({ urlParams: {} })
      assert.deepStrictEqual(all.map((tracker) => tracker.task_id), [two.task, one.task])
      assert.deepStrictEqual((yield* alice.client.tracker.list({ urlParams: { agent_id: one.agent } })).map((t) => t.task_id), [one.task])
      assert.deepStrictEqual((yield* alice.client.tracker.list({ urlParams: { order_direction: "asc", limit: 1 } })).map((t) => t.task_id), [one.task])

      assert.deepStrictEqual(yield* bob.client.tracker.list({ urlParams: { task_id: one.task } }), [])
      const id = all[0]!.id
      assert.strictEqual((yield* request("GET", `/tracker/${id}`, { key: bob.key })).status, 404)
      assert.strictEqual((yield* request("PUT", `/tracker/${id}`, { key: bob.key, body: { status: "taken" } })).status, 404)
      assert.strictEqual((yield* alice.client.tracker.get({ path: { tracker_id: id } })).status, null)
    }))
})
