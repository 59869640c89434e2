/**
 * Messages and states of agent tasks through the HTTP API (docs/agent-tasks.md): creates with
 * their defaults, updates, batches (all or nothing), the list's filters and pages, the cursor
 * list, and one state per task and agent.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive } from "../src/testing.js"

const setup = Effect.gen(function*() {
  const { key } = yield* provision()
  const agent = (yield* request("POST", "/agents/register", {
    key,
    body: { name: "talker", description: "d", acp_url: "http://127.0.0.1:9", acp_type: "sync" }
  })).body
  const task = (yield* request("POST", `/agents/${agent.id}/rpc`, { key, body: { method: "task/create", params: {} } })).body.result
  return { key, agent, task }
})

const text = (content: string, author = "user") => ({ type: "text", author, content })

layer(TestServerLive)("agent task messages and states", (it) => {
  it.effect("a message is stored with its content's defaults; get, update and the batch forms", () =>
    Effect.gen(function*() {
      const { key, task } = yield* setup
      const created = yield* request("POST", "/messages", { key, body: { task_id: task.id, content: { author: "user", content: "hi" } } })
      assert.strictEqual(created.status, 200)
      assert.deepStrictEqual(Object.keys(created.body).sort(), ["content", "created_at", "id", "streaming_status", "task_id", "updated_at"])
      assert.deepStrictEqual(created.body.content, { type: "text", author: "user", content: "hi", attachments: null, format: "plain", style: "static" })
      assert.strictEqual(created.body.streaming_status, null)
      assert.deepStrictEqual((yield* request("GET", `/messages/${created.body.id}`, { key })).body, created.body)

      const data = yield* request("POST", "/messages", {
        key,
        body: { task_id: task.id, content: { type: "data", author: "agent", data: { n: 1 } }, streaming_status: "IN_PROGRESS", created_at: "2030-01-01T00:00:00.000Z" }
      })
      assert.deepStrictEqual(data.body.content, { type: "data", author: "agent", data: { n: 1 }, style: "static" })
      assert.strictEqual(data.body.created_at, "2030-01-01T00:00:00.000Z")
      const done = yield* request("PUT", `/messages/${data.body.id}`, {
        key,
        body: { task_id: task.id, content: { type: "data", author: "agent", data: { n: 2 } }, streaming_status: "DONE" }
      })
      assert.deepStrictEqual(done.body.content.data, { n: 2 })
      assert.strictEqual(done.body.streaming_status, "DONE")

      const batch = yield* request("POST", "/messages/batch", {
        key,
        body: { task_id: task.id, contents: [text("a"), { type: "reasoning", author: "agent", summary: ["thinking"] }], created_at: "2031-01-01T00:00:00.000Z" }
      })
      assert.deepStrictEqual(batch.body.map((message: any) => message.created_at), ["2031-01-01T00:00:00.000Z", "2031-01-01T00:00:00.001Z"])
      assert.deepStrictEqual(batch.body[1].content, { type: "reasoning", author: "agent", summary: ["thinking"], content: null, style: "static" })
      const updated = yield* request("PUT", "/messages/batch", { key, body: { task_id: task.id, updates: { [batch.body[0].id]: text("b") } } })
      assert.deepStrictEqual(updated.body.map((message: any) => message.content.content), ["b"])
      // one id that is not the task's: 404, and nothing changed
      const refused = yield* request("PUT", "/messages/batch", {
        key,
        body: { task_id: task.id, updates: { [batch.body[0].id]: text("c"), "not-a-message": text("d") } }
      })
      assert.strictEqual(refused.status, 404)
      assert.strictEqual((yield* request("GET", `/messages/${batch.body[0].id}`, { key })).body.content.content, "b")

      assert.strictEqual((yield* request("POST", "/messages", { key, body: { task_id: "nope", content: text("x") } })).status, 404)
      const bad = yield* request("POST", "/messages", { key, body: { task_id: task.id, content: { type: "text", content: "no author" } } })
      assert.strictEqual(bad.status, 422)
      assert.strictEqual((yield* request("POST", "/messages", { key, body: { task_id: task.id, content: { type: "video", author: "user" } } })).status, 422)
    }))

  it.effect("lists: newest first, paged, filtered (inclusive OR, exclusive AND NOT); the cursor list goes older or newer", () =>
    Effect.gen(function*() {
      const { key, task } = yield* setup
      const made: Array<any> = []
      for (const [i, author] of ["user", "agent", "user", "agent", "user"].entries()) {
        made.push((yield* request("POST", "/messages", { key, body: { task_id: task.id, content: text(`m${i}`, author) } })).body)
        yield* TestClock.adjust("1 millis")
      }
      const contents = (path: string) => Effect.map(request("GET", path, { key }), (response) => response.body.map((m: any) => m.content.content))
      assert.deepStrictEqual(yield* contents(`/messages?task_id=${task.id}`), ["m4", "m3", "m2", "m1", "m0"])
      assert.deepStrictEqual(yield* contents(`/messages?task_id=${task.id}&limit=2&page_number=2`), ["m2", "m1"])
      assert.deepStrictEqual(yield* contents(`/messages?task_id=${task.id}&order_direction=asc&limit=2`), ["m0", "m1"])
      const agentOnly = encodeURIComponent(JSON.stringify([{ content: { author: "agent" } }]))
      assert.deepStrictEqual(yield* contents(`/messages?task_id=${task.id}&filters=${agentOnly}`), ["m3", "m1"])
      const notM0 = encodeURIComponent(JSON.stringify([{ content: { author: "user" } }, { content: { content: "m0" }, exclude: true }]))
      assert.deepStrictEqual(yield* contents(`/messages?task_id=${task.id}&filters=${notM0}`), ["m4", "m2"])
      assert.strictEqual((yield* request("GET", `/messages?task_id=${task.id}&filters=nope`, { key })).status, 422)
      assert.deepStrictEqual((yield* request("GET", "/messages?task_id=unknown", { key })).body, [])
      const missing = yield* request("GET", "/messages", { key })
      assert.deepStrictEqual(issues(missing), [{ loc: ["query", "task_id"], type: "missing" }])

      const first = yield* request("GET", `/messages/paginated?task_id=${task.id}&limit=2`, { key })
      assert.deepStrictEqual(first.body.data.map((m: any) => m.content.content), ["m4", "m3"])
      assert.strictEqual(first.body.has_more, true)
      const next = yield* request("GET", `/messages/paginated?task_id=${task.id}&limit=2&cursor=${first.body.next_cursor}`, { key })
      assert.deepStrictEqual(next.body.data.map((m: any) => m.content.content), ["m2", "m1"])
      const last = yield* request("GET", `/messages/paginated?task_id=${task.id}&limit=2&cursor=${next.body.next_cursor}`, { key })
      assert.deepStrictEqual(last.body, { data: [made[0]], has_more: false, next_cursor: null })
      const newer = yield* request("GET", `/messages/paginated?task_id=${task.id}&direction=newer&cursor=${made[2].id}`, { key })
      assert.deepStrictEqual(newer.body.data.map((m: any) => m.content.content), ["m3", "m4"])
    }))

  it.effect("states: one per task and agent (409 for a second), replaced by update, listed by task and agent, deleted", () =>
    Effect.gen(function*() {
      const { key, agent, task } = yield* setup
      const created = yield* request("POST", "/states", { key, body: { task_id: task.id, agent_id: agent.id, state: { step: 1 } } })
      assert.strictEqual(created.status, 200)
      assert.deepStrictEqual(Object.keys(created.body).sort(), ["agent_id", "created_at", "id", "state", "task_id", "updated_at"])
      const twice = yield* request("POST", "/states", { key, body: { task_id: task.id, agent_id: agent.id, state: { step: 9 } } })
      assert.strictEqual(twice.status, 409)
      assert.strictEqual((yield* request("POST", "/states", { key, body: { task_id: "nope", agent_id: agent.id, state: {} } })).status, 404)
      const updated = yield* request("PUT", `/states/${created.body.id}`, { key, body: { state: { step: 2 } } })
      assert.deepStrictEqual(updated.body.state, { step: 2 })
      assert.deepStrictEqual((yield* request("GET", `/states?task_id=${task.id}&agent_id=${agent.id}`, { key })).body, [updated.body])
      assert.deepStrictEqual((yield* request("GET", "/states?task_id=other", { key })).body, [])
      const deleted = yield* request("DELETE", `/states/${created.body.id}`, { key })
      assert.deepStrictEqual(deleted.body, updated.body)
      assert.strictEqual((yield* request("GET", `/states/${created.body.id}`, { key })).status, 404)
      // another account sees none of it
      const other = yield* provision()
      assert.strictEqual((yield* request("GET", `/messages?task_id=${task.id}`, { key: other.key })).body.length, 0)
      assert.strictEqual((yield* request("POST", "/messages", { key: other.key, body: { task_id: task.id, content: text("x") } })).status, 404)
    }))
})
