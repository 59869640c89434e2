/**
 * The kit's own traces (docs/spans.md "The kit's own traces"): an application's process (a root
 * and a span per node), its model execution, an evaluation's items and tasks and an agent's RPC
 * become v5 spans of the caller's account, found through `POST /v5/spans/search` within a short
 * poll; a failure is an `ERROR` span with its message; another account sees none of them;
 * `PLATFORM_TRACE_RECORDING=off` records nothing.
 */
import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Effect, FiberRef, Layer, Option } from "effect"
import { recordedSpan } from "../src/spans/tracer.js"
import { eventually, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"
import { edge, node, variantOf } from "./support/applications.js"
import { type Caller, readyDeploymentOf, registerModel } from "./support/models.js"

/** The completion app (input → completion → output) on `model`. */
const completionApp = (model: string) => ({
  nodes: [
    node("input_node", "text_input_schema"),
    node("completion_node", "completion_model_schema", { completion_model_id: model }),
    node("output_node", "text_output_schema")
  ],
  edges: [edge("input_node.input-text", "completion_node.prompt"), edge("completion_node.completion", "output_node.output-text")]
})

/** The spans of `caller`'s accounts `body` finds, oldest first. */
const search = (caller: Caller, body: Record<string, unknown>) =>
  Effect.map(request("POST", "/v5/spans/search?limit=1000&sort_order=asc", { key: caller.key, body }), (response) => {
    assert.strictEqual(response.status, 200, JSON.stringify(response.body))
    return response.body.items as Array<any>
  })

/** The spans `body` finds once there are `count` of them (within a short poll). */
const found = (caller: Caller, body: Record<string, unknown>, count: number) =>
  Effect.gen(function*() {
    let last: Array<any> = []
    const spans = yield* eventually(
      Effect.map(search(caller, body), (items) => ((last = items).length >= count ? Option.some(items) : Option.none())),
      10_000
    )
    assert.isTrue(Option.isSome(spans), `expected ${count} spans for ${JSON.stringify(body)}, found ${JSON.stringify(last)}`)
    assert.strictEqual(last.length, count, JSON.stringify(last))
    return Option.getOrThrow(spans)
  })

/** An answered timestamp in epoch microseconds (the kit's spans keep them). */
const micros = (text: string) => Date.parse(text) * 1000 + Number((/\.\d{3}(\d{3})Z$/.exec(text)?.[1]) ?? 0)

/** `child` within `parent`: its parent, its trace, its times inside the parent's. */
const assertChild = (child: any, parent: any) => {
  assert.strictEqual(child.parent_id, parent.id)
  assert.strictEqual(child.trace_id, parent.trace_id)
  assert.isAtLeast(micros(child.start_timestamp), micros(parent.start_timestamp))
  assert.isAtMost(micros(child.end_timestamp), micros(parent.end_timestamp))
}

/** The spans named `name`, by start (spans of one millisecond are listed by id). */
const byName = (spans: ReadonlyArray<any>, name: string) =>
  spans.filter((span) => span.name === name).sort((a, b) => micros(a.start_timestamp) - micros(b.start_timestamp))

const process = (caller: Caller, variant: string, text: string) =>
  request("POST", `/v4/applications/${variant}/process`, { key: caller.key, body: { inputs: { input_node: { "input-text": text } } } })

/** The test server with Effect's tracing off, as the standalone server runs (main.ts): the kit's spans turn it on for themselves. */
const TracingOff = TestServerLive.pipe(Layer.provide(Layer.setTracerEnabled(false)))

layer(TracingOff, { timeout: 60_000 })("the kit's own traces", (it) => {
  it.effect("recordedSpan: a root in the account given, children under it through other spans, tracing as it was inside", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const probe = recordedSpan(
        // an Effect span between the two (as a SQL statement's): not made, tracing being off
        Effect.withSpan(recordedSpan(FiberRef.get(FiberRef.currentTracerEnabled), "probe.child"), "not.recorded"),
        "probe",
        { accountId: caller.accountId, attributes: { n: 1 }, output: (enabled) => ({ enabled }) }
      )
      assert.isFalse(yield* Effect.withTracerEnabled(probe, false))
      // tracing on outside: on inside too
      assert.isTrue(yield* Effect.withTracerEnabled(recordedSpan(FiberRef.get(FiberRef.currentTracerEnabled), "probe.on", { accountId: caller.accountId }), true))
      // no account: not stored; without the kit's tracer (an embedding program's): the effect as it is
      yield* recordedSpan(Effect.void, "probe.nowhere")
      assert.strictEqual(Effect.runSync(recordedSpan(Effect.succeed(7), "probe.untraced", { accountId: caller.accountId })), 7)
      const probes = yield* found(caller, { names: ["probe", "probe.child"] }, 2)
      const [root] = byName(probes, "probe")
      const [child] = byName(probes, "probe.child")
      assertChild(child, root)
      assert.deepStrictEqual(root.metadata, { n: 1 })
      assert.deepStrictEqual(root.output, { enabled: false })
      assert.deepStrictEqual(root.created_by, { id: "platform-kit", type: "platform", object: "identity" })
      assert.strictEqual(child.output, null)
      assert.deepStrictEqual((yield* found(caller, {}, 3)).map((span) => span.name).sort(), ["probe", "probe.child", "probe.on"])
    }))

  it.effect("a V0 process is a trace: its root, a span per node, the model's execution under its node; another account sees none", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { variant } = yield* variantOf(caller, completionApp("builtin"))
      const answered = yield* process(caller, variant, "one two three")
      assert.strictEqual(answered.status, 200, JSON.stringify(answered.body))

      const [root] = yield* found(caller, { application_variant_ids: [variant], parents_only: true }, 1)
      assert.strictEqual(root.name, "application.process")
      assert.match(root.id, uuid)
      assert.strictEqual(root.parent_id, null)
      assert.strictEqual(root.account_id, caller.accountId)
      assert.deepStrictEqual(root.created_by, { id: caller.identityId, type: "user", object: "identity" })
      assert.strictEqual(root.status, "SUCCESS")
      assert.strictEqual(root.type, "AGENT_WORKFLOW")
      assert.deepStrictEqual(root.input, { input_node: { "input-text": "one two three" } })
      assert.strictEqual(root.output.application_interaction_id, answered.body.application_interaction_id)
      assert.strictEqual(root.metadata.application_variant_id, variant)
      assert.isAtLeast(micros(root.end_timestamp), micros(root.start_timestamp))

      // the whole trace: the root, three nodes, the completion's model execution
      const trace = yield* found(caller, { trace_ids: [root.trace_id] }, 5)
      const nodes = byName(trace, "application.node")
      assert.deepStrictEqual(nodes.map((span) => span.metadata.node_id), ["input_node", "completion_node", "output_node"])
      for (const span of nodes) {
        assertChild(span, root)
        assert.strictEqual(span.status, "SUCCESS")
        assert.strictEqual(span.application_variant_id, variant)
        assert.deepStrictEqual(span.created_by, root.created_by)
      }
      const [input, completion, output] = nodes
      assert.deepStrictEqual([input.type, completion.type, output.type], ["TEXT_INPUT", "COMPLETION", "TEXT_OUTPUT"])
      assert.strictEqual(completion.metadata.node_kind, "completion_model_schema")
      assert.deepStrictEqual(completion.input, { prompt: "one two three" })
      assert.deepStrictEqual(output.output, { "output-text": answered.body["output-text"] })
      // the nodes ran one after the other
      assert.isAtMost(micros(input.end_timestamp), micros(completion.start_timestamp))

      const [execution] = byName(trace, "model.execution")
      assertChild(execution, completion)
      assert.strictEqual(execution.status, "SUCCESS")
      assert.strictEqual(execution.type, "COMPLETION")
      assert.strictEqual(execution.metadata.model, "builtin")
      assert.isAbove(execution.metadata.prompt_tokens, 0)
      assert.isAbove(execution.metadata.response_tokens, 0)
      assert.strictEqual(execution.metadata.status_code, 200)

      // another account: none of them, by search or by id
      const other = yield* provision()
      assert.deepStrictEqual(yield* search(other, { trace_ids: [root.trace_id] }), [])
      assert.strictEqual((yield* request("GET", `/v5/spans/${root.id}`, { key: other.key })).status, 404)
      const read = yield* request("GET", `/v5/spans/${root.id}`, { key: caller.key })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.body, root)
    }))

  it.effect("a failing node is an ERROR span with its message, and so are its execution and the process", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const down = yield* readyDeploymentOf(caller, yield* registerModel(caller, "down"), {
        provider: "openai_compatible",
        base_url: "http://127.0.0.1:9/v1",
        model: "m",
        max_retries: 0
      })
      const { variant } = yield* variantOf(caller, completionApp(down))
      assert.strictEqual((yield* process(caller, variant, "hello")).status, 502)

      const [root] = yield* found(caller, { application_variant_ids: [variant], parents_only: true }, 1)
      assert.strictEqual(root.status, "ERROR")
      assert.match(root.metadata.error, /^Node 'completion_node': /)
      // the output node never ran
      const trace = yield* found(caller, { trace_ids: [root.trace_id] }, 4)
      const nodes = byName(trace, "application.node")
      assert.deepStrictEqual(nodes.map((span) => [span.metadata.node_id, span.status]), [["input_node", "SUCCESS"], ["completion_node", "ERROR"]])
      assert.match(nodes[1].metadata.error, /^Node 'completion_node': /)
      assert.strictEqual(nodes[1].output, null)
      const [execution] = byName(trace, "model.execution")
      assertChild(execution, nodes[1])
      assert.strictEqual(execution.status, "ERROR")
      assert.strictEqual(execution.metadata.model_deployment_id, down)
      assert.strictEqual(execution.metadata.status_code, 502)
      assert.isString(execution.metadata.error)
      // only the failed spans are found by status
      assert.deepStrictEqual(
        (yield* search(caller, { trace_ids: [root.trace_id], statuses: ["ERROR"] })).map((span) => span.name).sort(),
        ["application.node", "application.process", "model.execution"]
      )
    }))

  it.effect("a model execution on its own is a root span of its caller: the model, its usage; a stream's when it ends", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const chat = (stream: boolean) =>
        request("POST", "/v4/chat-completions", {
          key: caller.key,
          body: { model: "builtin", messages: [{ role: "user", content: "four little words here" }], stream }
        })
      assert.strictEqual((yield* chat(false)).status, 200)
      const streamed = yield* chat(true)
      assert.strictEqual(streamed.status, 200)
      const executions = byName(yield* found(caller, { names: ["model.execution"] }, 2), "model.execution")
      assert.deepStrictEqual(executions.map((span) => span.metadata.streamed), [false, true])
      for (const span of executions) {
        assert.strictEqual(span.parent_id, null)
        assert.strictEqual(span.status, "SUCCESS")
        assert.deepStrictEqual(span.created_by, { id: caller.identityId, type: "user", object: "identity" })
        assert.strictEqual(span.metadata.model, "builtin")
        assert.strictEqual(span.metadata.operation, "chat_completion")
        assert.strictEqual(span.metadata.prompt_tokens, 4)
        assert.isAbove(span.metadata.response_tokens, 0)
        assert.deepStrictEqual(Object.keys(span.metadata).sort(), [
          "model", "model_deployment_id", "model_instance_id", "operation", "prompt_tokens", "response_tokens", "status_code", "streamed"
        ])
      }
      assert.notStrictEqual(executions[0].trace_id, executions[1].trace_id)
    }))

  it.effect("an evaluation's items are traces of their tasks, the chat task's model execution under it", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const created = yield* request("POST", "/v5/evaluations", {
        key: caller.key,
        body: {
          name: "traced",
          data: [{ question: "Name a colour", answer: "red" }, { question: "Two plus two", answer: "four" }],
          tasks: [
            { task_type: "chat_completion", alias: "reply", configuration: { model: "builtin/echo", messages: [{ role: "user", content: "{{item.question}}" }] } },
            { task_type: "metric", alias: "overlap", configuration: { type: "rouge1", candidate: "item.reply", reference: "item.answer" } }
          ]
        }
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const evaluation = created.body.id

      const items = yield* found(caller, { names: ["evaluation.item"], extra_metadata: { evaluation_id: evaluation } }, 2)
      for (const item of items) {
        assert.strictEqual(item.parent_id, null)
        assert.strictEqual(item.status, "SUCCESS")
        assert.strictEqual(item.type, "EVALUATION")
        assert.deepStrictEqual(item.created_by, { id: caller.identityId, type: "user", object: "identity" })
        assert.isString(item.metadata.item_id)
        const trace = yield* found(caller, { trace_ids: [item.trace_id] }, 4)
        const tasks = byName(trace, "evaluation.task")
        assert.deepStrictEqual(tasks.map((task) => task.metadata.task_alias), ["reply", "overlap"])
        for (const task of tasks) {
          assertChild(task, item)
          assert.strictEqual(task.status, "SUCCESS")
          assert.strictEqual(task.metadata.evaluation_id, evaluation)
          assert.strictEqual(task.metadata.item_id, item.metadata.item_id)
        }
        assert.deepStrictEqual(Object.keys(tasks[0].output), ["reply"])
        assert.isNumber(tasks[1].output.overlap)
        const [execution] = byName(trace, "model.execution")
        assertChild(execution, tasks[0])
        assert.isAbove(execution.metadata.prompt_tokens, 0)
      }
    }))

  it.effect("an agent's RPC is a span: the agent, the method, the task; an error response is an ERROR span; an agents-service process too", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const registered = yield* request("POST", "/agents/register", {
        key: caller.key,
        body: { name: "traced", description: "a traced agent", acp_url: "http://127.0.0.1:9", acp_type: "sync" }
      })
      assert.strictEqual(registered.status, 200, JSON.stringify(registered.body))
      const agent = registered.body.id
      const rpc = (method: string, params: Record<string, unknown>) =>
        request("POST", `/agents/${agent}/rpc`, { key: caller.key, body: { jsonrpc: "2.0", id: 7, method, params } })

      const createdTask = yield* rpc("task/create", { name: "t" })
      assert.strictEqual(createdTask.body.error, null)
      const task = createdTask.body.result.id
      // a sync agent's message goes to its ACP server, which is not there: an error response
      const sent = yield* rpc("message/send", { task_id: task, content: { type: "text", author: "user", content: "hi" } })
      assert.strictEqual(sent.body.error.code, -32603)

      const spans = yield* found(caller, { names: ["agent.rpc"], extra_metadata: { agent_id: agent } }, 2)
      assert.deepStrictEqual(spans.map((span) => [span.metadata.method, span.metadata.task_id, span.status]), [
        ["task/create", task, "SUCCESS"],
        ["message/send", task, "ERROR"]
      ])
      assert.deepStrictEqual(spans.map((span) => span.metadata.agent_name), ["traced", "traced"])
      assert.strictEqual(spans[0].output.result.id, task)
      assert.strictEqual(spans[1].metadata.error, sent.body.error.message)
      assert.deepStrictEqual(spans[1].input.content, { type: "text", author: "user", content: "hi" })
      assert.notStrictEqual(spans[0].trace_id, spans[1].trace_id)

      // an agents-service variant's process: the process, its message to the agent a child (both
      // failed: the agent is not there)
      const spec = yield* caller.client.applicationSpecs.create({ payload: { account_id: caller.accountId, name: "agentic", description: "d" } })
      const variant = yield* caller.client.applicationVariants.create({
        payload: {
          account_id: caller.accountId,
          application_spec_id: spec.id,
          name: "agent",
          version: "AGENTS_SERVICE",
          configuration: { type: "WORKFLOW", params: { agent_name: "traced" }, inputs: [{ name: "question", type: "ShortText" }] }
        }
      })
      const processed = yield* request("POST", `/v4/applications/${variant.id}/process`, { key: caller.key, body: { inputs: { question: "hello" } } })
      assert.strictEqual(processed.status, 502, JSON.stringify(processed.body))
      const [root] = yield* found(caller, { application_variant_ids: [variant.id], parents_only: true }, 1)
      assert.strictEqual(root.name, "application.process")
      assert.strictEqual(root.status, "ERROR")
      const [call] = byName(yield* found(caller, { trace_ids: [root.trace_id] }, 2), "agent.rpc")
      assertChild(call, root)
      assert.strictEqual(call.status, "ERROR")
      assert.strictEqual(call.metadata.agent_id, agent)
      assert.isString(call.metadata.task_id)
    }))
})

/** The test server with `PLATFORM_TRACE_RECORDING=off`. */
const RecordingOff = TestServerLive.pipe(Layer.provide(Layer.setConfigProvider(
  ConfigProvider.fromMap(new Map([["PLATFORM_TRACE_RECORDING", "off"]])).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))
)))

layer(RecordingOff, { timeout: 60_000 })("the kit's own traces, switched off", (it) => {
  it.effect("PLATFORM_TRACE_RECORDING=off records nothing, and the work answers as it does with it on", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { variant } = yield* variantOf(caller, completionApp("builtin"))
      const answered = yield* process(caller, variant, "one two three")
      assert.strictEqual(answered.status, 200, JSON.stringify(answered.body))
      assert.isString(answered.body["output-text"])
      // longer than the writer's interval, twice: nothing is written
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 600)))
      assert.deepStrictEqual(yield* search(caller, {}), [])
    }))
})
