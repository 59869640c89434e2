/**
 * Chat threads (docs/applications.md "Threads"): interactions recorded from outside
 * (`POST /v4/interactions/`) and thread processing make a thread's messages; a thread's earlier
 * turns are the next process's history; messages' answers and feedback change; threads are the
 * caller's own unless `fetch_by_account`; another account's are 404.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

const completionApp = {
  nodes: [
    { id: "input_node", application_node_schema_id: "text_input_schema" },
    { id: "completion_node", application_node_schema_id: "completion_model_schema", configuration: { completion_model_id: { value: "builtin" } } },
    { id: "output_node", application_node_schema_id: "text_output_schema" }
  ],
  edges: [
    { from_node: "input_node", from_field: "input-text", to_node: "completion_node", to_field: "prompt" },
    { from_node: "completion_node", from_field: "completion", to_node: "output_node", to_field: "output-text" }
  ]
}

const variantOf = (caller: Caller) =>
  Effect.gen(function*() {
    const spec = yield* caller.client.applicationSpecs.create({ payload: { account_id: caller.accountId, name: "chat", description: "" } })
    const variant = yield* caller.client.applicationVariants.create({
      payload: { account_id: caller.accountId, application_spec_id: spec.id, name: "v", version: "V0", configuration: completionApp }
    })
    return { spec: spec.id, variant: variant.id }
  })

const threadId = () => crypto.randomUUID()

layer(TestServerLive, { timeout: 60_000 })("application threads", (it) => {
  it.effect("POST /v4/interactions/ records an outside interaction with its spans, starting the thread it names", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { spec, variant } = yield* variantOf(caller)
      const thread = threadId()
      const body = {
        application_variant_id: variant,
        input: { query: "Where is the office?" },
        output: { response: "On Main Street", context: [{ text: "The office is on Main Street", score: 0.9 }] },
        start_timestamp: "2026-01-02T03:04:05Z",
        duration_ms: 120,
        operation_metadata: { channel: "web" },
        thread_id: thread,
        trace_spans: [{ node_id: "retrieve", operation_type: "RETRIEVAL", start_timestamp: "2026-01-02T03:04:05Z", duration_ms: 40 }]
      }
      const created = yield* request("POST", "/v4/interactions/", { key: caller.key, body })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      assert.match(created.body.id, uuid)
      assert.deepInclude(created.body, {
        application_variant_id: variant,
        start_timestamp: "2026-01-02T03:04:05.000Z",
        duration_ms: 120,
        operation_status: "SUCCESS",
        thread_id: thread,
        guardrail_results: []
      })
      assert.deepStrictEqual(created.body.trace_spans[0].operation_type, "RETRIEVAL")
      assert.strictEqual(created.body.trace_spans[0].application_interaction_id, created.body.id)

      const listed = yield* caller.client.applicationThreads.list({ path: { application_variant_id: variant } })
      assert.deepStrictEqual(listed.map((t) => [t.id, t.title, t.archived_at]), [[thread, "Where is the office?", null]])
      const history = yield* caller.client.applicationThreads.messages({ path: { thread_id: thread }, urlParams: { fetch_spans: true } })
      assert.strictEqual(history.application_spec_id, spec)
      assert.strictEqual(history.messages.length, 1)
      const [message] = history.messages
      assert.deepInclude({ ...message!.entry }, { id: created.body.id, operation_status: "SUCCESS", chat_thread_id: thread, interaction_source: "EXTERNAL_AI", aggregated: false })
      assert.deepStrictEqual(message!.entry.output, body.output)
      assert.strictEqual(message!.feedback, null)
      assert.deepStrictEqual(message!.spans!.map((span) => [span.node_id, span.operation_type, span.duration_ms]), [["retrieve", "KB_RETRIEVAL", 40]])
      const withoutSpans = yield* request("GET", `/v4/threads/${thread}/messages`, { key: caller.key })
      assert.notProperty(withoutSpans.body.messages[0], "spans")

      // counted by the metrics like any interaction of the spec
      const total = yield* request("GET", `/v4/applications/${spec}/metrics/scalar/total_requests`, { key: caller.key })
      assert.strictEqual(total.body.value, 1)

      // guardrail results need guardrails the kit does not keep; an unknown variant is a 404; nothing recorded
      const guarded = yield* request("POST", "/v4/interactions/", {
        key: caller.key,
        body: { ...body, guardrail_results: [{ guardrail_id: "g", policy_id: "p", score: 1, severity: "low", triggered: false }] }
      })
      assert.strictEqual(guarded.status, 422)
      assert.deepStrictEqual(issues(guarded), [{ loc: ["body", "guardrail_results"], type: "value_error" }])
      const unknown = yield* request("POST", "/v4/interactions/", { key: caller.key, body: { ...body, application_variant_id: "nope" } })
      assert.strictEqual(unknown.status, 404)
      assert.strictEqual((yield* caller.client.applicationThreads.messages({ path: { thread_id: thread }, urlParams: {} })).messages.length, 1)
    }))

  it.effect("thread processing: each turn a message, the earlier turns the history; answers and feedback change", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { spec, variant } = yield* variantOf(caller)
      const thread = threadId()
      const turn = (text: string) =>
        request("POST", `/v4/applications/${variant}/threads/${thread}/process`, { key: caller.key, body: { inputs: { input_node: { "input-text": text } } } })
      const first = yield* turn("first question")
      assert.strictEqual(first.status, 200, JSON.stringify(first.body))
      assert.strictEqual(first.body["output-text"], "first question")
      yield* TestClock.adjust("1 millis")
      const second = yield* turn("first question")
      const history = yield* caller.client.applicationThreads.messages({ path: { thread_id: thread }, urlParams: { fetch_spans: true } })
      assert.deepStrictEqual(history.messages.map((m) => m.entry.id), [first.body.application_interaction_id, second.body.application_interaction_id])
      assert.deepStrictEqual(history.messages.map((m) => m.entry.interaction_source), ["SGP_CHAT", "SGP_CHAT"])
      assert.deepStrictEqual(history.messages[0]!.spans!.map((s) => s.operation_type), ["TEXT_INPUT", "COMPLETION", "TEXT_OUTPUT"])
      assert.deepStrictEqual(history.messages[0]!.entry.input, { input_node: { "input-text": "first question" } })
      // the same question, asked with the first turn before it: the model read more
      const recorded = (yield* caller.client.applications.listInteractions({ path: { application_spec_id: spec }, urlParams: {} })).items
      const one = recorded.find((interaction) => interaction.id === first.body.application_interaction_id)
      const two = recorded.find((interaction) => interaction.id === second.body.application_interaction_id)
      assert.isAbove(two!.input_tokens, one!.input_tokens)

      const edited = yield* caller.client.applicationThreads.updateMessage({
        path: { thread_id: thread, application_interaction_id: first.body.application_interaction_id },
        urlParams: {},
        payload: { output_text: "a better answer" }
      })
      assert.deepStrictEqual(edited.output, { "output-text": "a better answer" })

      const given = yield* caller.client.applicationThreads.createFeedback({
        path: { thread_id: thread, application_interaction_id: first.body.application_interaction_id },
        payload: { sentiment: "positive", description: "helpful" }
      })
      assert.deepInclude({ ...given }, { sentiment: "positive", description: "helpful", chat_thread_id: thread })
      const metric = yield* request("GET", `/v4/applications/${spec}/metrics/scalar/feedback`, { key: caller.key })
      assert.strictEqual(metric.body.value, 1)
      const read = yield* caller.client.applicationThreads.messages({ path: { thread_id: thread }, urlParams: {} })
      assert.deepStrictEqual(read.messages[0]!.feedback, given)
      const feedbackPath = `/v4/threads/${thread}/messages/${first.body.application_interaction_id}/feedback`
      assert.strictEqual((yield* request("DELETE", feedbackPath, { key: caller.key })).status, 200)
      assert.strictEqual((yield* request("DELETE", feedbackPath, { key: caller.key })).status, 404)
      assert.strictEqual((yield* request("GET", `/v4/applications/${spec}/metrics/scalar/feedback`, { key: caller.key })).body.value, 0)
    }))

  it.effect("threads are the caller's unless fetch_by_account; update archives and restores; delete; another account's are 404", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const colleague = yield* provision({ accountId: caller.accountId })
      const stranger = yield* provision()
      const { variant } = yield* variantOf(caller)
      const thread = threadId()
      const made = yield* request("POST", `/v4/applications/${variant}/threads/${thread}/process`, {
        key: caller.key,
        body: { inputs: { input_node: { "input-text": "hello" } } }
      })
      assert.strictEqual(made.status, 200)

      assert.strictEqual((yield* request("GET", `/v4/threads/${thread}/messages`, { key: colleague.key })).status, 404)
      assert.strictEqual((yield* request("GET", `/v4/threads/${thread}/messages?fetch_by_account=true`, { key: colleague.key })).status, 200)
      for (const [method, path] of [
        ["GET", `/v4/threads/${thread}/messages?fetch_by_account=true`],
        ["PATCH", `/v4/threads/${thread}`],
        ["DELETE", `/v4/threads/${thread}`],
        ["GET", `/v4/applications/${variant}/threads`]
      ] as const) {
        const response = yield* request(method, path, { key: stranger.key, ...(method === "PATCH" ? { body: { title: "mine" } } : {}) })
        assert.strictEqual(response.status, 404, `${method} ${path}`)
      }
      // a stranger cannot write into the thread by naming it either
      const { variant: theirs } = yield* variantOf(stranger)
      const hijack = yield* request("POST", `/v4/applications/${theirs}/threads/${thread}/process`, {
        key: stranger.key,
        body: { inputs: { input_node: { "input-text": "x" } } }
      })
      assert.strictEqual(hijack.status, 404)

      const archived = yield* caller.client.applicationThreads.update({
        path: { thread_id: thread },
        payload: { title: "renamed", archived_at: "2026-03-01T00:00:00Z", thread_metadata: { pinned: true } }
      })
      assert.deepInclude({ ...archived }, { title: "renamed", archived_at: "2026-03-01T00:00:00.000Z" })
      assert.deepStrictEqual(archived.thread_metadata, { pinned: true })
      const restored = yield* caller.client.applicationThreads.update({ path: { thread_id: thread }, payload: { archived_at: null } })
      assert.strictEqual(restored.archived_at, null)

      const deleted = yield* caller.client.applicationThreads.delete({ path: { thread_id: thread } })
      assert.deepStrictEqual({ ...deleted }, { id: thread, deleted: true })
      assert.strictEqual((yield* request("GET", `/v4/threads/${thread}/messages`, { key: caller.key })).status, 404)
      assert.deepStrictEqual(yield* caller.client.applicationThreads.list({ path: { application_variant_id: variant } }), [])
    }))
})
