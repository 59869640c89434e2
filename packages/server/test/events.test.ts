import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { randomUUID } from "node:crypto"
import { issues, provision, request, TestServerLive, uuidPattern as uuid, isoPattern as iso } from "../src/testing.js"

const text = (content: string) => ({ type: "text" as const, content })
const TASK = "6f1c2a9e-0b6e-4b7e-9d3a-2f4c1e8b7a10"
const AGENT = "a1b2c3d4-0000-4000-8000-000000000001"
const OTHER_AGENT = "a1b2c3d4-0000-4000-8000-000000000002"

layer(TestServerLive)("events", (it) => {
  it.effect("append answers the event with every field; get and list read it back", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const response = yield* request("POST", "/events", {
        key,
        body: {
          task_id: TASK,
          agent_id: AGENT,
          content: {
            type: "text",
            content: "Hello",
            author: "agent",
            style: "active",
            format: "markdown",
            attachments: [{ file_id: "f-1", name: "notes.txt", size: 12, type: "text/plain" }]
          },
          ignored: 1
        }
      })
      assert.strictEqual(response.status, 200)
      const event = response.body
      assert.deepStrictEqual(Object.keys(event).sort(), ["agent_id", "content", "created_at", "id", "sequence_id", "task_id"])
      assert.match(event.id, uuid)
      assert.strictEqual(event.sequence_id, 1)
      assert.strictEqual(event.task_id, TASK)
      assert.strictEqual(event.agent_id, AGENT)
      assert.match(event.created_at, iso)
      assert.deepStrictEqual(event.content, {
        type: "text",
        content: "Hello",
        author: "agent",
        style: "active",
        format: "markdown",
        attachments: [{ file_id: "f-1", name: "notes.txt", size: 12, type: "text/plain" }]
      })

      const read = yield* request("GET", `/events/${event.id}`, { key })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.body, event)
      const list = yield* request("GET", `/events?task_id=${TASK}&agent_id=${AGENT}`, { key })
      assert.strictEqual(list.status, 200)
      assert.deepStrictEqual(list.body, [event])

      const typed = yield* client.events.get({ path: { event_id: event.id } })
      assert.strictEqual(typed.sequence_id, 1)
      assert.deepStrictEqual(typed.content, event.content)
    }))

  it.effect("text content: only type and content are required, the rest is null (attachments [])", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const event = yield* client.events.append({ payload: { task_id: TASK, agent_id: AGENT, content: text("hi") } })
      assert.deepStrictEqual(event.content, {
        type: "text",
        content: "hi",
        author: null,
        style: null,
        format: null,
        attachments: []
      })
    }))

  it.effect("the other content variants are open objects tagged by type, kept as given", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const contents = [
        { type: "reasoning", content: "thinking", steps: [1, 2] },
        { type: "data", data: { rows: 3 }, mime: "application/json" },
        { type: "tool_request", name: "search", arguments: { q: "effect" }, tool_call_id: "c1" },
        { type: "tool_response", tool_call_id: "c1", content: [{ hit: "x" }] }
      ]
      for (const [i, content] of contents.entries()) {
        const response = yield* request("POST", "/events", { key, body: { task_id: TASK, agent_id: AGENT, content } })
        assert.strictEqual(response.status, 200)
        assert.strictEqual(response.body.sequence_id, i + 1)
        assert.deepStrictEqual(response.body.content, content)
        const read = yield* request("GET", `/events/${response.body.id}`, { key })
        assert.deepStrictEqual(read.body.content, content)
      }
    }))

  it.effect("50 concurrent appends to one task get sequence ids exactly 1..50", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const task = "11111111-2222-4333-8444-555555555555"
      const events = yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => i),
        (i) => client.events.append({ payload: { task_id: task, agent_id: AGENT, content: text(`m${i}`) } }),
        { concurrency: 50 }
      )
      assert.deepStrictEqual(
        events.map((e) => e.sequence_id).sort((a, b) => a - b),
        Array.from({ length: 50 }, (_, i) => i + 1)
      )
      assert.strictEqual(new Set(events.map((e) => e.id)).size, 50)
      const listed = yield* client.events.list({ urlParams: { task_id: task, agent_id: AGENT } })
      assert.deepStrictEqual(listed.map((e) => e.sequence_id), Array.from({ length: 50 }, (_, i) => i + 1))
      // each listed event is the one that was answered with its sequence id
      const bySequence = new Map(events.map((e) => [e.sequence_id, e.id]))
      for (const e of listed) assert.strictEqual(bySequence.get(e.sequence_id), e.id)
    }))

  it.effect("sequences are per task, and per account: another account's same task id is its own stream", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const taskA = "aaaaaaaa-0000-4000-8000-00000000000a"
      const taskB = "bbbbbbbb-0000-4000-8000-00000000000b"
      const order = [taskA, taskB, taskA, taskA, taskB]
      const made = []
      for (const task of order) {
        made.push(yield* alice.client.events.append({ payload: { task_id: task, agent_id: AGENT, content: text(task) } }))
      }
      assert.deepStrictEqual(made.map((e) => e.sequence_id), [1, 1, 2, 3, 2])
      // concurrent appends to two tasks stay independent
      const both = yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? taskA : taskB)),
        (task) => alice.client.events.append({ payload: { task_id: task, agent_id: AGENT, content: text("c") } }),
        { concurrency: 20 }
      )
      assert.deepStrictEqual(
        both.filter((e) => e.task_id === taskA).map((e) => e.sequence_id).sort((a, b) => a - b),
        Array.from({ length: 10 }, (_, i) => i + 4)
      )
      assert.deepStrictEqual(
        both.filter((e) => e.task_id === taskB).map((e) => e.sequence_id).sort((a, b) => a - b),
        Array.from({ length: 10 }, (_, i) => i + 3)
      )

      const bobs = yield* bob.client.events.append({ payload: { task_id: taskA, agent_id: AGENT, content: text("bob") } })
      assert.strictEqual(bobs.sequence_id, 1)
      const bobList = yield* bob.client.events.list({ urlParams: { task_id: taskA, agent_id: AGENT } })
      assert.deepStrictEqual(bobList.map((e) => e.id), [bobs.id])
      const aliceList = yield* alice.client.events.list({ urlParams: { task_id: taskA, agent_id: AGENT } })
      assert.strictEqual(aliceList.length, 13)
      assert.isFalse(aliceList.some((e) => e.id === bobs.id))
    }))

  it.effect("list: one agent's events of the task after last_processed_event_id, in sequence order, limit", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const made = []
      for (let i = 0; i < 7; i++) {
        made.push(
          yield* client.events.append({
            payload: { task_id: TASK, agent_id: i % 3 === 2 ? OTHER_AGENT : AGENT, content: text(`m${i}`) }
          })
        )
        yield* TestClock.adjust("1 millis")
      }
      // AGENT has sequences 1,2,4,5,7; OTHER_AGENT has 3,6
      const all = yield* client.events.list({ urlParams: { task_id: TASK, agent_id: AGENT } })
      assert.deepStrictEqual(all.map((e) => e.sequence_id), [1, 2, 4, 5, 7])
      const other = yield* client.events.list({ urlParams: { task_id: TASK, agent_id: OTHER_AGENT } })
      assert.deepStrictEqual(other.map((e) => e.sequence_id), [3, 6])

      // page through two at a time, resuming after the last processed event
      const seen: Array<number> = []
      let last: string | undefined
      while (true) {
        const page = yield* client.events.list({
          urlParams: { task_id: TASK, agent_id: AGENT, limit: 2, ...(last !== undefined ? { last_processed_event_id: last } : {}) }
        })
        if (page.length === 0) break
        seen.push(...page.map((e) => e.sequence_id))
        last = page[page.length - 1]!.id
      }
      assert.deepStrictEqual(seen, [1, 2, 4, 5, 7])

      // the position may be another agent's event of the same task
      const afterOther = yield* client.events.list({
        urlParams: { task_id: TASK, agent_id: AGENT, last_processed_event_id: made[2]!.id }
      })
      assert.deepStrictEqual(afterOther.map((e) => e.sequence_id), [4, 5, 7])

      // the bare array, as JSON
      const raw = yield* request("GET", `/events?task_id=${TASK}&agent_id=${AGENT}&limit=1`, { key })
      assert.isArray(raw.body)
      assert.deepStrictEqual(raw.body.map((e: any) => e.sequence_id), [1])
      const empty = yield* request("GET", `/events?task_id=unknown-task&agent_id=${AGENT}`, { key })
      assert.deepStrictEqual(empty.body, [])
    }))

  it.effect("list validation: task_id and agent_id required, limit 1..1000, unknown last_processed_event_id", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const missing = yield* request("GET", "/events", { key: alice.key })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["query", "task_id"], type: "missing" },
        { loc: ["query", "agent_id"], type: "missing" }
      ])
      const limits = yield* request("GET", `/events?task_id=${TASK}&agent_id=&limit=1001`, { key: alice.key })
      assert.deepStrictEqual(issues(limits), [
        { loc: ["query", "agent_id"], type: "string_too_short" },
        { loc: ["query", "limit"], type: "range_error" }
      ])
      const parse = yield* request("GET", `/events?task_id=${TASK}&agent_id=${AGENT}&limit=ten`, { key: alice.key })
      assert.deepStrictEqual(issues(parse), [{ loc: ["query", "limit"], type: "number_parsing" }])
      const zero = yield* request("GET", `/events?task_id=${TASK}&agent_id=${AGENT}&limit=0`, { key: alice.key })
      assert.deepStrictEqual(issues(zero), [{ loc: ["query", "limit"], type: "range_error" }])

      const unknown = yield* request("GET", `/events?task_id=${TASK}&agent_id=${AGENT}&last_processed_event_id=nope`, {
        key: alice.key
      })
      assert.strictEqual(unknown.status, 422)
      assert.deepStrictEqual(issues(unknown), [{ loc: ["query", "last_processed_event_id"], type: "value_error" }])
      assert.strictEqual(unknown.body.detail[0].input, "nope")

      // an event of another task, or of another account, is no position in this stream
      const elsewhere = yield* alice.client.events.append({
        payload: { task_id: "another-task", agent_id: AGENT, content: text("x") }
      })
      const otherTask = yield* request(
        "GET",
        `/events?task_id=${TASK}&agent_id=${AGENT}&last_processed_event_id=${elsewhere.id}`,
        { key: alice.key }
      )
      assert.deepStrictEqual(issues(otherTask), [{ loc: ["query", "last_processed_event_id"], type: "value_error" }])
      const otherAccount = yield* request(
        "GET",
        `/events?task_id=another-task&agent_id=${AGENT}&last_processed_event_id=${elsewhere.id}`,
        { key: bob.key }
      )
      assert.deepStrictEqual(issues(otherAccount), [{ loc: ["query", "last_processed_event_id"], type: "value_error" }])
    }))

  it.effect("append validation: 422 with exact loc and type, and nothing written (the next event is still 1)", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const missing = yield* request("POST", "/events", { key, body: { agent_id: AGENT } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "task_id"], type: "missing" },
        { loc: ["body", "content"], type: "missing" }
      ])

      const badText = yield* request("POST", "/events", {
        key,
        body: {
          task_id: 5,
          agent_id: AGENT,
          content: { type: "text", author: 3, attachments: [{ file_id: "f", name: "n", size: 1.5, type: "t" }, { size: -1 }] }
        }
      })
      assert.strictEqual(badText.status, 422)
      assert.deepStrictEqual(issues(badText), [
        { loc: ["body", "task_id"], type: "string_type" },
        { loc: ["body", "content", "content"], type: "missing" },
        { loc: ["body", "content", "author"], type: "string_type" },
        { loc: ["body", "content", "attachments", 0, "size"], type: "int_type" },
        { loc: ["body", "content", "attachments", 1, "file_id"], type: "missing" },
        { loc: ["body", "content", "attachments", 1, "name"], type: "missing" },
        { loc: ["body", "content", "attachments", 1, "size"], type: "greater_than_equal" },
        { loc: ["body", "content", "attachments", 1, "type"], type: "missing" }
      ])

      const unknownType = yield* request("POST", "/events", {
        key,
        body: { task_id: TASK, agent_id: AGENT, content: { type: "video", url: "x" } }
      })
      assert.strictEqual(unknownType.status, 422)
      assert.deepStrictEqual(issues(unknownType), [{ loc: ["body", "content", "type"], type: "literal_error" }])

      const notObject = yield* request("POST", "/events", { key, body: { task_id: TASK, agent_id: AGENT, content: "hi" } })
      assert.strictEqual(notObject.status, 422)
      // a union of object variants reports a non-object as dict_type
      assert.deepStrictEqual(issues(notObject), [{ loc: ["body", "content"], type: "dict_type" }])

      const malformed = yield* request("POST", "/events", { key, body: "{" })
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      const listed = yield* client.events.list({ urlParams: { task_id: TASK, agent_id: AGENT } })
      assert.deepStrictEqual(listed, [])
      const first = yield* client.events.append({ payload: { task_id: TASK, agent_id: AGENT, content: text("ok") } })
      assert.strictEqual(first.sequence_id, 1)
    }))

  it.effect("401 without a key on every endpoint, and nothing written", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const event = yield* client.events.append({ payload: { task_id: TASK, agent_id: AGENT, content: text("a") } })
      for (
        const call of [
          request("POST", "/events", { body: { task_id: TASK, agent_id: AGENT, content: text("b") } }),
          request("GET", `/events/${event.id}`),
          request("GET", `/events?task_id=${TASK}&agent_id=${AGENT}`),
          request("GET", `/events?task_id=${TASK}&agent_id=${AGENT}`, { key: "pk_nope" })
        ]
      ) {
        const response = yield* call
        assert.strictEqual(response.status, 401)
        assert.isString(response.body.detail)
      }
      const listed = yield* client.events.list({ urlParams: { task_id: TASK, agent_id: AGENT } })
      assert.deepStrictEqual(listed.map((e) => e.id), [event.id])
    }))

  it.effect("get: 404 for a missing event and for another account's event", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const event = yield* alice.client.events.append({ payload: { task_id: TASK, agent_id: AGENT, content: text("a") } })
      const missing = yield* Effect.flip(alice.client.events.get({ path: { event_id: "no-such-event" } }))
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("GET", `/events/${event.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Event ${event.id} not found` })
    }))

  it.effect("a caller with several accounts appends to the selected one (else 422 on the header)", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const accounts = yield* Accounts
      yield* accounts.addMember(alice.identityId, bob.accountId)
      const body = { task_id: TASK, agent_id: AGENT, content: text("x") }

      const unselected = yield* request("POST", "/events", { key: alice.key, body })
      assert.strictEqual(unselected.status, 422)
      assert.deepStrictEqual(issues(unselected), [{ loc: ["header", "x-selected-account-id"], type: "missing" }])

      const inBob = yield* request("POST", "/events", {
        key: alice.key,
        body,
        headers: { "x-selected-account-id": bob.accountId }
      })
      assert.strictEqual(inBob.status, 200)
      assert.strictEqual(inBob.body.sequence_id, 1)
      // bob's own key sees it in his account's stream; get by id looks in every account of the caller
      const bobList = yield* bob.client.events.list({ urlParams: { task_id: TASK, agent_id: AGENT } })
      assert.deepStrictEqual(bobList.map((e) => e.id), [inBob.body.id])
      const got = yield* alice.client.events.get({ path: { event_id: inBob.body.id } })
      assert.strictEqual(got.id, inBob.body.id)

      const foreignSelection = yield* request("POST", "/events", {
        key: bob.key,
        body,
        headers: { "x-selected-account-id": alice.accountId }
      })
      assert.strictEqual(foreignSelection.status, 403)
    }))

  it.effect("a list without x-selected-account-id reads every account of the caller; with it, that account", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const accounts = yield* Accounts
      yield* accounts.addMember(alice.identityId, bob.accountId)
      const task = randomUUID()
      const list = (query: string, headers?: Record<string, string>) =>
        request("GET", `/events?task_id=${task}&agent_id=${AGENT}${query}`, { key: alice.key, ...(headers ? { headers } : {}) })
      const append = (accountId: string, word: string) =>
        request("POST", "/events", {
          key: alice.key,
          body: { task_id: task, agent_id: AGENT, content: text(word) },
          headers: { "x-selected-account-id": accountId }
        })

      // the task lives in bob's account: alice (a member of both) lists it without naming the account
      const first = yield* append(bob.accountId, "one")
      const second = yield* append(bob.accountId, "two")
      const all = yield* list("")
      assert.strictEqual(all.status, 200)
      assert.deepStrictEqual(all.body.map((e: { id: string }) => e.id), [first.body.id, second.body.id])
      assert.deepStrictEqual(all.body.map((e: { sequence_id: number }) => e.sequence_id), [1, 2])
      const after = yield* list(`&last_processed_event_id=${first.body.id}`)
      assert.deepStrictEqual(after.body.map((e: { id: string }) => e.id), [second.body.id])
      const selectedOther = yield* list("", { "x-selected-account-id": alice.accountId })
      assert.deepStrictEqual(selectedOther.body, [])
      const unknownThere = yield* list(`&last_processed_event_id=${first.body.id}`, { "x-selected-account-id": alice.accountId })
      assert.strictEqual(unknownThere.status, 422)
      assert.deepStrictEqual(issues(unknownThere), [{ loc: ["query", "last_processed_event_id"], type: "value_error" }])

      // the same task id in both accounts: two streams, merged by sequence_id; a position continues its own stream
      const own = yield* append(alice.accountId, "mine")
      const merged = yield* list("")
      assert.deepStrictEqual(
        merged.body.map((e: { id: string }) => e.id).sort(),
        [first.body.id, second.body.id, own.body.id].sort()
      )
      assert.deepStrictEqual(merged.body.map((e: { sequence_id: number }) => e.sequence_id), [1, 1, 2])
      const continued = yield* list(`&last_processed_event_id=${own.body.id}`)
      assert.deepStrictEqual(continued.body, [])
      const selected = yield* list("", { "x-selected-account-id": bob.accountId })
      assert.deepStrictEqual(selected.body.map((e: { id: string }) => e.id), [first.body.id, second.body.id])

      // bob's key still sees only his account
      const bobs = yield* request("GET", `/events?task_id=${task}&agent_id=${AGENT}`, { key: bob.key })
      assert.deepStrictEqual(bobs.body.map((e: { id: string }) => e.id), [first.body.id, second.body.id])
    }))
})
