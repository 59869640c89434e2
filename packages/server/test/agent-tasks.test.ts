/**
 * Agents and tasks through the HTTP API (docs/agent-tasks.md): registration, reads by id and
 * name, deletes, the tasks' status moves, updates and list filters. Calls forwarded to an agent's
 * ACP server are tested with the example agent (examples/test/agent.test.ts).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { issues, isoPattern as iso, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

const register = (key: string, name: string, acp_type: "sync" | "async" = "sync", extra: Record<string, unknown> = {}) =>
  request("POST", "/agents/register", {
    key,
    body: { name, description: `${name} agent`, acp_url: "http://127.0.0.1:9", acp_type, ...extra }
  })

/** A task of a sync agent (its task/create is not forwarded). */
const newTask = (key: string, agentId: string, params: Record<string, unknown> = {}) =>
  Effect.map(
    request("POST", `/agents/${agentId}/rpc`, { key, body: { jsonrpc: "2.0", id: 1, method: "task/create", params } }),
    (response) => response.body.result
  )

const agentFields = [
  "acp_type",
  "agent_input_type",
  "created_at",
  "description",
  "id",
  "name",
  "production_deployment_id",
  "registered_at",
  "registration_metadata",
  "status",
  "status_reason",
  "updated_at"
]

layer(TestServerLive)("agents and tasks", (it) => {
  it.effect("register answers the agent and a key once; registering the name again updates it with a new key", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const first = yield* register(key, "helper", "sync", { registration_metadata: { v: 1 }, agent_input_type: "text" })
      assert.strictEqual(first.status, 200)
      assert.deepStrictEqual(Object.keys(first.body).sort(), [...agentFields, "agent_api_key"].sort())
      assert.match(first.body.id, uuid)
      assert.strictEqual(first.body.status, "Ready")
      assert.match(first.body.registered_at, iso)
      assert.deepStrictEqual(first.body.registration_metadata, { v: 1 })

      const read = yield* request("GET", `/agents/${first.body.id}`, { key })
      assert.deepStrictEqual(Object.keys(read.body).sort(), agentFields)
      assert.notProperty(read.body, "agent_api_key")
      assert.notProperty(read.body, "acp_url")

      const again = yield* register(key, "helper", "async")
      assert.strictEqual(again.body.id, first.body.id)
      assert.strictEqual(again.body.acp_type, "async")
      assert.strictEqual(again.body.created_at, first.body.created_at)
      assert.notStrictEqual(again.body.agent_api_key, first.body.agent_api_key)
      assert.deepStrictEqual(again.body.registration_metadata, { v: 1 })

      const byName = yield* request("GET", "/agents/name/helper", { key })
      assert.strictEqual(byName.body.id, first.body.id)
      const build = yield* request("POST", "/agents/register-build", { key, body: { name: "later", description: "not yet" } })
      assert.strictEqual(build.body.status, "BuildOnly")
      const listed = yield* request("GET", "/agents?order_by=name&order_direction=asc", { key })
      assert.deepStrictEqual(listed.body.map((agent: any) => agent.name), ["helper", "later"])

      const bad = yield* register(key, "Not A Name")
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad).map((issue: any) => issue.loc), [["body", "name"]])
      const badUrl = yield* register(key, "x", "sync", { acp_url: "ftp://nowhere" })
      assert.strictEqual(badUrl.status, 422)
    }))

  it.effect("a deleted agent is gone from reads and lists; registering its name brings it back", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const agent = (yield* register(key, "brief")).body
      const deleted = yield* request("DELETE", `/agents/${agent.id}`, { key })
      assert.deepStrictEqual(deleted.body, { id: agent.id, message: `Agent '${agent.id}' deleted successfully` })
      assert.strictEqual((yield* request("GET", `/agents/${agent.id}`, { key })).status, 404)
      assert.strictEqual((yield* request("GET", "/agents/name/brief", { key })).status, 404)
      assert.strictEqual((yield* request("DELETE", `/agents/${agent.id}`, { key })).status, 404)
      assert.deepStrictEqual((yield* request("GET", "/agents", { key })).body, [])
      const back = yield* register(key, "brief")
      assert.strictEqual(back.body.id, agent.id)
      assert.strictEqual(back.body.status, "Ready")
      const byName = yield* request("DELETE", "/agents/name/brief", { key })
      assert.deepStrictEqual(byName.body, { id: agent.id, message: "Agent 'brief' deleted successfully" })
    }))

  it.effect("tasks: read by id and name, with their agents on request; update merges params and replaces metadata", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const agent = (yield* register(key, "worker")).body
      const task = yield* newTask(key, agent.id, { name: "t-1", params: { a: 1, b: 2 }, task_metadata: { team: "x" } })
      assert.deepStrictEqual(Object.keys(task).sort(), [
        "cleaned_at",
        "created_at",
        "id",
        "name",
        "params",
        "status",
        "status_reason",
        "task_metadata",
        "updated_at"
      ])
      const read = yield* request("GET", `/tasks/${task.id}`, { key })
      assert.deepStrictEqual(read.body, task)
      const withAgents = yield* request("GET", `/tasks/name/t-1?relationships=agents`, { key })
      assert.deepStrictEqual(withAgents.body.agents.map((a: any) => a.id), [agent.id])

      const updated = yield* request("PUT", `/tasks/${task.id}`, { key, body: { merge_params: { b: 3, c: 4 }, task_metadata: { team: "y" } } })
      assert.deepStrictEqual(updated.body.params, { a: 1, b: 3, c: 4 })
      assert.deepStrictEqual(updated.body.task_metadata, { team: "y" })
      const byName = yield* request("PUT", "/tasks/name/t-1", { key, body: { merge_params: { d: 5 } } })
      assert.deepStrictEqual(byName.body.params, { a: 1, b: 3, c: 4, d: 5 })
      assert.deepStrictEqual(byName.body.task_metadata, { team: "y" })
      assert.strictEqual((yield* request("GET", "/tasks/nope", { key })).status, 404)
    }))

  it.effect("status moves: from RUNNING or INTERRUPTED only; a final status is a 409; delete marks DELETED once", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const agent = (yield* register(key, "mover")).body
      for (const [move, status] of [["cancel", "CANCELED"], ["complete", "COMPLETED"], ["fail", "FAILED"], ["terminate", "TERMINATED"], ["timeout", "TIMED_OUT"]] as const) {
        const task = yield* newTask(key, agent.id)
        const interrupted = yield* request("POST", `/tasks/${task.id}/interrupt`, { key, body: {} })
        assert.strictEqual(interrupted.body.status, "INTERRUPTED")
        const moved = yield* request("POST", `/tasks/${task.id}/${move}`, { key, body: { reason: `because ${move}` } })
        assert.strictEqual(moved.status, 200)
        assert.strictEqual(moved.body.status, status)
        assert.strictEqual(moved.body.status_reason, `because ${move}`)
        const again = yield* request("POST", `/tasks/${task.id}/interrupt`, { key, body: {} })
        assert.strictEqual(again.status, 409)
        assert.strictEqual((yield* request("GET", `/tasks/${task.id}`, { key })).body.status, status)
      }
      const task = yield* newTask(key, agent.id, { name: "gone" })
      const deleted = yield* request("DELETE", "/tasks/name/gone", { key })
      assert.deepStrictEqual(deleted.body, { id: task.id, message: "Task 'gone' deleted successfully" })
      const read = yield* request("GET", `/tasks/${task.id}`, { key })
      assert.strictEqual(read.body.status, "DELETED")
      assert.strictEqual((yield* request("DELETE", `/tasks/${task.id}`, { key })).status, 404)
      assert.strictEqual((yield* request("POST", `/tasks/${task.id}/cancel`, { key, body: {} })).status, 409)
    }))

  it.effect("task lists: bare arrays without params, newest first, by agent (id or name), status and metadata containment, paged", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const one = (yield* register(key, "one")).body
      const two = (yield* register(key, "two")).body
      const a = yield* newTask(key, one.id, { task_metadata: { team: "red", tags: ["x", "y"], depth: { n: 1 } } })
      yield* TestClock.adjust("1 millis")
      const b = yield* newTask(key, one.id, { task_metadata: { team: "blue" } })
      yield* TestClock.adjust("1 millis")
      const c = yield* newTask(key, two.id, { task_metadata: { team: "red" } })
      yield* request("POST", `/tasks/${b.id}/complete`, { key, body: {} })
      const ids = (path: string) => Effect.map(request("GET", path, { key }), (response) => response.body.map((task: any) => task.id))

      const all = yield* request("GET", "/tasks", { key })
      assert.deepStrictEqual(all.body.map((task: any) => task.id), [c.id, b.id, a.id])
      assert.notProperty(all.body[0], "params")
      assert.notProperty(all.body[0], "agents")
      assert.deepStrictEqual(yield* ids(`/tasks?agent_id=${one.id}&order_direction=asc`), [a.id, b.id])
      assert.deepStrictEqual(yield* ids("/tasks?agent_name=two"), [c.id])
      assert.deepStrictEqual(yield* ids("/tasks?status=COMPLETED"), [b.id])
      const red = encodeURIComponent(JSON.stringify({ team: "red" }))
      assert.deepStrictEqual(yield* ids(`/tasks?task_metadata=${red}`), [c.id, a.id])
      const nested = encodeURIComponent(JSON.stringify({ tags: ["y"], depth: { n: 1 } }))
      assert.deepStrictEqual(yield* ids(`/tasks?task_metadata=${nested}`), [a.id])
      assert.deepStrictEqual(yield* ids(`/tasks?task_metadata=${red}&limit=1&page_number=2`), [a.id])
      assert.deepStrictEqual(yield* ids("/tasks?limit=2&page_number=2"), [a.id])
      const withAgents = yield* request("GET", `/tasks?relationships=agents&agent_id=${two.id}`, { key })
      assert.deepStrictEqual(withAgents.body[0].agents.map((agent: any) => agent.name), ["two"])
      assert.deepStrictEqual((yield* request("GET", `/agents?task_id=${c.id}`, { key })).body.map((agent: any) => agent.id), [two.id])

      const bad = yield* request("GET", "/tasks?task_metadata=not-json", { key })
      assert.strictEqual(bad.status, 422)
      assert.strictEqual((yield* request("GET", "/tasks?status=DONE", { key })).status, 422)
      assert.strictEqual((yield* request("GET", "/tasks?limit=0", { key })).status, 422)
    }))

  it.effect("registrations of one new name at once make one agent; task/create of one new name at once makes one task", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const registered = yield* Effect.forEach(Array.from({ length: 8 }), () => register(key, "racer"), { concurrency: "unbounded" })
      assert.deepStrictEqual(registered.map((response) => response.status), Array(8).fill(200), JSON.stringify(registered.map((r) => r.body)))
      const agentIds = new Set(registered.map((response) => response.body.id))
      assert.strictEqual(agentIds.size, 1)
      const listed = yield* request("GET", "/agents", { key })
      assert.deepStrictEqual(listed.body.map((agent: any) => agent.name), ["racer"])

      const [agentId] = [...agentIds]
      const created = yield* Effect.forEach(
        Array.from({ length: 8 }),
        () => request("POST", `/agents/${agentId}/rpc`, { key, body: { method: "task/create", params: { name: "same" } } }),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(created.map((response) => [response.status, response.body.error]), Array(8).fill([200, null]))
      assert.strictEqual(new Set(created.map((response) => response.body.result.id)).size, 1)
      const sent = yield* Effect.forEach(
        Array.from({ length: 6 }),
        (_, i) => request("POST", `/agents/${agentId}/rpc`, { key, body: { method: "message/send", params: { task_name: "fresh", content: { type: "text", author: "user", content: `m${i}` } } } }),
        { concurrency: "unbounded" }
      )
      // the agent cannot be reached: each call fails in its body (-32603, or -32602 once the first
      // failure has made the task FAILED), none with a 500, all on one task
      assert.deepStrictEqual(sent.map((response) => response.status), Array(6).fill(200))
      for (const response of sent) assert.include([-32602, -32603], response.body.error?.code)
      assert.include(sent.map((response) => response.body.error.code), -32603)
      const tasks = yield* request("GET", `/tasks?agent_id=${agentId}`, { key })
      assert.deepStrictEqual(tasks.body.map((task: any) => task.name).sort(), ["fresh", "same"])
    }))

  it.effect("another account's agents and tasks are not visible, by id or by name", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const agent = (yield* register(bob.key, "secret-agent")).body
      const task = yield* newTask(bob.key, agent.id, { name: "secret-task" })
      assert.strictEqual((yield* request("GET", `/agents/${agent.id}`, { key: alice.key })).status, 404)
      assert.strictEqual((yield* request("GET", "/agents/name/secret-agent", { key: alice.key })).status, 404)
      assert.strictEqual((yield* request("GET", `/tasks/${task.id}`, { key: alice.key })).status, 404)
      assert.strictEqual((yield* request("GET", "/tasks/name/secret-task", { key: alice.key })).status, 404)
      assert.strictEqual((yield* request("POST", `/agents/${agent.id}/rpc`, { key: alice.key, body: { method: "task/create", params: {} } })).status, 404)
      assert.deepStrictEqual((yield* request("GET", "/tasks", { key: alice.key })).body, [])
      assert.deepStrictEqual((yield* request("GET", "/agents", { key: alice.key })).body, [])
      // the same name in two accounts: two agents
      const own = yield* register(alice.key, "secret-agent")
      assert.notStrictEqual(own.body.id, agent.id)
      const taken = yield* register(alice.key, "other", "sync", { agent_id: agent.id })
      assert.strictEqual(taken.status, 409)
    }))
})
