/**
 * Agentex's spans (docs/agent-tasks.md "Spans"): `/spans` in agentex's shape over the v5 span
 * store (a span written on one side is read on the other: `data` is `metadata`); PATCH writes
 * only the fields given and not null, merging `data`; the list is a bare array paged by offset,
 * its `task_id` matching the task or the trace; other accounts.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

/** A task of a sync agent (its task/create is not forwarded). */
const taskOf = (caller: Caller, name: string) =>
  Effect.gen(function*() {
    const agent = yield* caller.client.agents.register({ payload: { name: `${name}-agent`, description: "d", acp_url: "http://127.0.0.1:9", acp_type: "sync" } })
    const made = yield* request("POST", `/agents/${agent.id}/rpc`, { key: caller.key, body: { method: "task/create", params: { name } } })
    return made.body.result.id as string
  })

const post = (caller: Caller, body: unknown) => request("POST", "/spans", { key: caller.key, body })
const patch = (caller: Caller, id: string, body: unknown) => request("PATCH", `/spans/${id}`, { key: caller.key, body })
const get = (caller: Caller, id: string) => request("GET", `/spans/${id}`, { key: caller.key })
const list = (caller: Caller, query: string) => request("GET", `/spans${query}`, { key: caller.key })

layer(TestServerLive, { timeout: 60_000 })("agentex spans", (it) => {
  it.effect("a span written through /spans is a v5 span, and a v5 span is read through /spans", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const task = yield* taskOf(caller, "traced")
      const created = yield* post(caller, {
        id: "span-1",
        name: "llm call",
        trace_id: task,
        task_id: task,
        parent_id: null,
        start_time: "2026-03-01T10:00:00.123456+00:00",
        end_time: "2026-03-01T10:00:02Z",
        input: [{ role: "user", content: "hi" }],
        output: { text: "hello" },
        data: { model: "m1", tokens: 3 }
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const expected = {
        id: "span-1",
        name: "llm call",
        start_time: "2026-03-01T10:00:00.123456Z",
        trace_id: task,
        data: { model: "m1", tokens: 3 },
        end_time: "2026-03-01T10:00:02.000Z",
        input: [{ role: "user", content: "hi" }],
        output: { text: "hello" },
        parent_id: null,
        task_id: task
      }
      assert.deepStrictEqual(created.body, expected)
      assert.deepStrictEqual((yield* get(caller, "span-1")).body, expected)

      // the v5 side: the same span, `data` as its metadata, an array wrapped as `{items}`
      const found = yield* request("POST", "/v5/spans/search", { key: caller.key, body: { trace_ids: [task] } })
      assert.strictEqual(found.status, 200)
      assert.strictEqual(found.body.items.length, 1)
      const v5 = found.body.items[0]
      assert.deepStrictEqual(
        [v5.id, v5.name, v5.start_timestamp, v5.end_timestamp, v5.metadata, v5.input, v5.output, v5.account_id, v5.created_by.id],
        ["span-1", "llm call", "2026-03-01T10:00:00.123456Z", "2026-03-01T10:00:02.000Z", { model: "m1", tokens: 3 }, {
          items: [{ role: "user", content: "hi" }]
        }, { text: "hello" }, caller.accountId, caller.identityId]
      )

      // the reverse: a v5 span read as agentex's, no task
      const v5Made = yield* request("POST", "/v5/spans", {
        key: caller.key,
        body: { name: "v5 span", trace_id: "trace-9", start_timestamp: "2026-03-02T00:00:00.000Z", metadata: { k: "v" }, input: { q: 1 } }
      })
      assert.strictEqual(v5Made.status, 200)
      assert.deepStrictEqual((yield* get(caller, v5Made.body.id)).body, {
        id: v5Made.body.id,
        name: "v5 span",
        start_time: "2026-03-02T00:00:00.000Z",
        trace_id: "trace-9",
        data: { k: "v" },
        end_time: null,
        input: { q: 1 },
        output: null,
        parent_id: null,
        task_id: null
      })

      // no id: a UUID; a taken id: 409 with agentex's message (agentex: 400), nothing changed
      const fresh = yield* post(caller, { name: "n", trace_id: "t", start_time: "2026-03-01T00:00:00Z" })
      assert.match(fresh.body.id, uuid)
      assert.deepStrictEqual(fresh.body.data, null)
      const again = yield* post(caller, { id: "span-1", name: "other", trace_id: "t", start_time: "2026-03-01T00:00:00Z" })
      assert.strictEqual(again.status, 409)
      assert.deepStrictEqual(again.body, { detail: "Item already exists. Please check all unique constraints and try again." })
      assert.deepStrictEqual((yield* get(caller, "span-1")).body, expected)

      // a task that is not the account's: 404, nothing stored; an end before the start: 422
      const noTask = yield* post(caller, { id: "span-2", name: "n", trace_id: "t", task_id: "no-such-task", start_time: "2026-03-01T00:00:00Z" })
      assert.strictEqual(noTask.status, 404)
      assert.strictEqual((yield* get(caller, "span-2")).status, 404)
      const backwards = yield* post(caller, { name: "n", trace_id: "t", start_time: "2026-03-01T00:00:01Z", end_time: "2026-03-01T00:00:00Z" })
      assert.strictEqual(backwards.status, 422)
      assert.deepStrictEqual(issues(backwards), [{ loc: ["body", "end_time"], type: "value_error" }])
    }))

  it.effect("PATCH writes the fields given and not null; data is merged into an object, replaced otherwise", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      yield* post(caller, { id: "p", name: "start", trace_id: "t", start_time: "2026-03-01T00:00:00Z", data: { a: 1, b: 1 } })
      const ended = yield* patch(caller, "p", { end_time: "2026-03-01T00:00:05Z", output: { done: true }, data: { b: 2, c: 3 }, name: null, input: null })
      assert.strictEqual(ended.status, 200, JSON.stringify(ended.body))
      assert.deepStrictEqual(
        [ended.body.name, ended.body.end_time, ended.body.output, ended.body.data, ended.body.input],
        ["start", "2026-03-01T00:00:05.000Z", { done: true }, { a: 1, b: 2, c: 3 }, null]
      )
      assert.deepStrictEqual((yield* get(caller, "p")).body, ended.body)
      // the v5 side sees the change (its duration too)
      const v5 = yield* request("POST", "/v5/spans/search", { key: caller.key, body: { span_ids: ["p"], min_duration_ms: 5000 } })
      assert.deepStrictEqual(v5.body.items.map((span: any) => span.metadata), [{ a: 1, b: 2, c: 3 }])

      // an array replaces; an object then replaces the array (nothing to merge into)
      const listed = yield* patch(caller, "p", { data: [{ x: 1 }], output: [{ y: 2 }] })
      assert.deepStrictEqual([listed.body.data, listed.body.output], [[{ x: 1 }], [{ y: 2 }]])
      const objected = yield* patch(caller, "p", { data: { z: 1 } })
      assert.deepStrictEqual([objected.body.data, objected.body.output], [{ z: 1 }, [{ y: 2 }]])
      // an empty object is replaced, not merged into
      yield* post(caller, { id: "q", name: "n", trace_id: "t", start_time: "2026-03-01T00:00:00Z", data: {} })
      assert.deepStrictEqual((yield* patch(caller, "q", { data: { k: 1 } })).body.data, { k: 1 })

      // a task, a new trace and parent
      const task = yield* taskOf(caller, "patched")
      const moved = yield* patch(caller, "q", { task_id: task, trace_id: "t2", parent_id: "p" })
      assert.deepStrictEqual([moved.body.task_id, moved.body.trace_id, moved.body.parent_id], [task, "t2", "p"])

      // a start moved after the end: 422 at start_time; a missing span: 404
      const late = yield* patch(caller, "p", { start_time: "2026-03-01T00:00:09Z" })
      assert.strictEqual(late.status, 422)
      assert.deepStrictEqual(issues(late), [{ loc: ["body", "start_time"], type: "value_error" }])
      const missing = yield* patch(caller, "nope", { name: "x" })
      assert.strictEqual(missing.status, 404)
      assert.isString(missing.body.detail)
    }))

  it.effect("the list: a bare array, newest start first, offset pages; task_id matches the task or the trace", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const task = yield* taskOf(caller, "listed")
      yield* post(caller, { id: "by-task", name: "a", trace_id: "other-trace", task_id: task, start_time: "2026-03-01T00:00:01Z" })
      yield* post(caller, { id: "by-trace", name: "b", trace_id: task, start_time: "2026-03-01T00:00:02Z" })
      yield* post(caller, { id: "neither", name: "c", trace_id: "other-trace", start_time: "2026-03-01T00:00:03Z" })
      const ids = (response: { body: any }) => response.body.map((span: any) => span.id)

      // (the account also holds the kit's own spans of the agent's RPC: docs/spans.md "The kit's own traces")
      const mine = new Set(["by-task", "by-trace", "neither"])
      assert.deepStrictEqual(ids(yield* list(caller, "")).filter((id: string) => mine.has(id)), ["neither", "by-trace", "by-task"])
      assert.deepStrictEqual(ids(yield* list(caller, `?task_id=${task}`)), ["by-trace", "by-task"])
      assert.deepStrictEqual(ids(yield* list(caller, "?trace_id=other-trace")), ["neither", "by-task"])
      assert.deepStrictEqual(ids(yield* list(caller, `?trace_id=other-trace&task_id=${task}`)), ["by-task"])
      assert.deepStrictEqual(ids(yield* list(caller, "?trace_id=other-trace&limit=1&page_number=2")), ["by-task"])
      assert.deepStrictEqual(ids(yield* list(caller, `?task_id=${task}&order_direction=asc&limit=1`)), ["by-task"])
      assert.deepStrictEqual(ids(yield* list(caller, "?trace_id=other-trace&order_by=name&order_direction=asc")), ["by-task", "neither"])
      const bad = yield* list(caller, "?page_number=0")
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad).map((issue: any) => issue.loc), [["query", "page_number"]])
    }))

  it.effect("another account's spans are 404 and never listed; its tasks cannot be named", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const bobTask = yield* taskOf(bob, "bobs")
      yield* post(bob, { id: "bob-span", name: "secret", trace_id: "shared-trace", task_id: bobTask, start_time: "2026-03-01T00:00:00Z" })
      yield* post(alice, { id: "alice-span", name: "mine", trace_id: "shared-trace", start_time: "2026-03-01T00:00:00Z" })
      assert.strictEqual((yield* get(alice, "bob-span")).status, 404)
      assert.strictEqual((yield* patch(alice, "bob-span", { name: "taken" })).status, 404)
      assert.strictEqual((yield* get(bob, "bob-span")).body.name, "secret")
      assert.deepStrictEqual((yield* list(alice, "?trace_id=shared-trace")).body.map((span: any) => span.id), ["alice-span"])
      assert.deepStrictEqual((yield* list(alice, `?task_id=${bobTask}`)).body, [])
      // the same id in two accounts: each its own
      const same = yield* post(alice, { id: "bob-span", name: "alice's own", trace_id: "t", start_time: "2026-03-01T00:00:00Z" })
      assert.strictEqual(same.status, 200)
      assert.strictEqual((yield* get(bob, "bob-span")).body.name, "secret")
      const foreignTask = yield* post(alice, { name: "n", trace_id: "t", task_id: bobTask, start_time: "2026-03-01T00:00:00Z" })
      assert.strictEqual(foreignTask.status, 404)
      assert.strictEqual((yield* patch(alice, "alice-span", { task_id: bobTask })).status, 404)
    }))
})
