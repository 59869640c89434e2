/**
 * Processing applications (docs/applications.md "Processing"): the SDK's completion app and RAG
 * app run on the built-in model over a real knowledge base; the graph is checked whole before
 * anything runs; a process of a variant is recorded as an interaction; an upstream's failure names
 * the node and is recorded too.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"
import { edge, knowledgeBaseOf, node, variantOf } from "./support/applications.js"
import { readyDeploymentOf, registerModel } from "./support/models.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>


/** The SDK's completion app: input → completion → output. */
const completionApp = (model: string) => ({
  nodes: [
    node("input_node", "text_input_schema"),
    node("completion_node", "completion_model_schema", { completion_model_id: model }),
    node("output_node", "text_output_schema")
  ],
  edges: [edge("input_node.input-text", "completion_node.prompt"), edge("completion_node.completion", "output_node.output-text")]
})

/** The SDK's RAG app (`lib/application_builder.py`): retrieval, reranking, a prompt, a completion. */
const ragApp = (kbId: string) => ({
  nodes: [
    node("input", "text_input_schema"),
    node("knowledge_base", "knowledge_base_schema", { kb_id: kbId, top_k: 3 }),
    node("reranker", "reranker_schema", { top_k: 1 }),
    node("prompt_engineering", "prompt_engineering_schema", {
      prompt_template: "Answer {{query}} from: {{#chunks}}[{{text}}]{{/chunks}}"
    }),
    node("completion", "completion_model_schema", { completion_model_id: "builtin" }),
    node("output", "text_output_schema")
  ],
  edges: [
    edge("input.input-text", "knowledge_base.query"),
    edge("input.input-text", "prompt_engineering.query"),
    edge("knowledge_base.chunks", "reranker.chunks"),
    edge("input.input-text", "reranker.prompt"),
    edge("reranker.chunks", "prompt_engineering.chunks"),
    edge("prompt_engineering.prompt", "completion.prompt"),
    edge("completion.completion", "output.output-text"),
    edge("reranker.chunks", "output.metadata")
  ]
})

const process = (caller: Caller, variant: string, body: unknown) =>
  request("POST", `/v4/applications/${variant}/process`, { key: caller.key, body })

layer(TestServerLive, { timeout: 60_000 })("application processing", (it) => {
  it.effect("the registry lists the V0 kinds the executor runs, camelCase nodeSchema; none for other versions", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const v0 = yield* caller.client.applications.schemas({ urlParams: { version: "V0" } })
      // the platform's fifteen kinds, in its order (applications-process-nodes.test.ts runs the newer ones)
      assert.deepStrictEqual(Object.keys(v0), [
        "text_input_schema",
        "text_output_schema",
        "knowledge_base_input_schema",
        "knowledge_base_schema",
        "multi_knowledge_base_input_schema",
        "multi_knowledge_base_schema",
        "reranker_schema",
        "prompt_engineering_schema",
        "completion_model_input_schema",
        "completion_model_schema",
        "external_endpoint_schema",
        "document_input_schema",
        "map_reduce_schema",
        "document_search_schema",
        "document_prompt_schema"
      ])
      const raw = yield* request("GET", "/v4/application-schemas?version=V0", { key: caller.key })
      const completion = raw.body.completion_model_schema
      assert.strictEqual(completion.type, "COMPLETION_MODEL_NODE")
      assert.deepStrictEqual(Object.keys(completion.nodeSchema.inputs), ["prompt", "completion_model_id"])
      assert.deepStrictEqual(Object.keys(completion.nodeSchema.outputs), ["completion"])
      // required unless a completion model input node gives it
      assert.strictEqual(completion.nodeSchema.configuration.completion_model_id.validation_rules.required, false)
      assert.deepStrictEqual(raw.body.text_input_schema.tags, ["INPUT_NODE"])
      assert.deepStrictEqual(yield* caller.client.applications.schemas({ urlParams: { version: "OFFLINE" } }), {})
      const missing = yield* request("GET", "/v4/application-schemas", { key: caller.key })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [{ loc: ["query", "version"], type: "missing" }])
    }))

  it.effect("the completion app answers the output node's fields, and the process is recorded as an interaction", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { spec, variant } = yield* variantOf(caller, completionApp("builtin"))
      const answered = yield* process(caller, variant, {
        inputs: { input_node: { "input-text": "What is the capital of France?" } },
        history: [{ request: "Hi", response: "Hello" }]
      })
      assert.strictEqual(answered.status, 200, JSON.stringify(answered.body))
      assert.deepStrictEqual(Object.keys(answered.body).sort(), ["application_interaction_id", "output-text", "session_data"])
      // the built-in model echoes the last message: the prompt the completion node was given
      assert.strictEqual(answered.body["output-text"], "What is the capital of France?")
      assert.strictEqual(answered.body.session_data, null)
      assert.match(answered.body.application_interaction_id, uuid)

      const interaction = yield* caller.client.applications.getInteraction({
        path: { application_spec_id: spec, interaction_id: answered.body.application_interaction_id }
      })
      assert.strictEqual(interaction.application_variant_id, variant)
      assert.strictEqual(interaction.error, null)
      assert.deepStrictEqual(interaction.node_latencies.map((latency) => latency.node_id), ["input_node", "completion_node", "output_node"])
      assert.isAbove(interaction.input_tokens, 0)
      assert.isAbove(interaction.output_tokens, 0)

      // the typed client reads the same
      const typed = yield* caller.client.applications.process({
        path: { application_variant_id: variant },
        payload: { inputs: { input_node: { "input-text": "again" } } }
      })
      assert.strictEqual(typed["output-text"], "again")
    }))

  it.effect("stream: the completion's text frame by frame, then the whole answer, then [DONE]; the checks answer as without", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { spec, variant } = yield* variantOf(caller, completionApp("builtin"))
      const streamed = yield* process(caller, variant, { inputs: { input_node: { "input-text": "one two three" } }, stream: true })
      assert.strictEqual(streamed.status, 200)
      assert.match(String(streamed.headers["content-type"]), /^text\/event-stream/)
      const frames = String(streamed.body).split("\n\n").filter((frame) => frame.length > 0).map((frame) => frame.replace(/^data: /, ""))
      assert.strictEqual(frames.at(-1), "[DONE]")
      const events = frames.slice(0, -1).map((frame) => JSON.parse(frame))
      const texts = events.filter((event) => event.type === "text")
      assert.isAbove(texts.length, 1)
      assert.isTrue(texts.every((event) => event.node_id === "completion_node"))
      assert.strictEqual(texts.map((event) => event.text).join(""), "one two three")
      const answer = events.at(-1)
      assert.strictEqual(answer.type, "answer")
      assert.strictEqual(answer.answer["output-text"], "one two three")
      // recorded as any process
      const interaction = yield* caller.client.applications.getInteraction({
        path: { application_spec_id: spec, interaction_id: answer.answer.application_interaction_id }
      })
      assert.deepStrictEqual(interaction.output["output-text"], "one two three")
      const refused = yield* process(caller, variant, { inputs: {}, stream: true })
      assert.strictEqual(refused.status, 422)
    }))

  it.effect("the RAG app retrieves from a real knowledge base, reranks, renders the prompt and completes it", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const kb = yield* knowledgeBaseOf(caller, ["Our office opens at nine in the morning", "Parking is free for visitors on weekends"])
      const { variant } = yield* variantOf(caller, ragApp(kb))
      const answered = yield* process(caller, variant, { inputs: { input: { "input-text": "when does the office open" } } })
      assert.strictEqual(answered.status, 200, JSON.stringify(answered.body))
      assert.strictEqual(answered.body["output-text"], "Answer when does the office open from: [Our office opens at nine in the morning]")
      assert.deepStrictEqual(answered.body.metadata.map((chunk: { text: string }) => chunk.text), ["Our office opens at nine in the morning"])

      // an override narrowing the knowledge base to no artifact leaves the prompt without chunks
      const narrowed = yield* process(caller, variant, {
        inputs: { input: { "input-text": "when does the office open" } },
        overrides: { knowledge_base: { artifact_ids_filter: ["none"] } }
      })
      assert.strictEqual(narrowed.body["output-text"], "Answer when does the office open from: ")

      // an unsaved graph runs the same, recorded nowhere
      const unsaved = yield* request("POST", "/v4/applications/process", {
        key: caller.key,
        body: { ...ragApp(kb), version: "V0", inputs: { input: { "input-text": "parking on weekends" } } }
      })
      assert.strictEqual(unsaved.status, 200, JSON.stringify(unsaved.body))
      assert.strictEqual(unsaved.body["output-text"], "Answer parking on weekends from: [Parking is free for visitors on weekends]")
      assert.strictEqual(unsaved.body.application_interaction_id, null)
    }))

  it.effect("the graph is checked whole before anything runs: kinds, fields, configuration, inputs, what it names", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const unsaved = (graph: { nodes: Array<unknown>; edges: Array<unknown> }, inputs: unknown = { in: { "input-text": "x" } }) =>
        request("POST", "/v4/applications/process", { key: caller.key, body: { ...graph, version: "V0", inputs } })
      const codes = (response: { body: { errors: Array<{ error_code: string }> } }) => response.body.errors.map((error) => error.error_code)

      const unsupported = yield* unsaved({
        nodes: [node("in", "text_input_schema"), node("mr", "guardrail_schema"), node("out", "text_output_schema")],
        edges: [edge("in.input-text", "out.output-text")]
      })
      assert.strictEqual(unsupported.status, 400)
      assert.deepStrictEqual(codes(unsupported), ["INVALID_APPLICATION_UNSUPPORTED_NODE"])

      const badFields = yield* unsaved({
        nodes: [node("in", "text_input_schema"), node("c", "completion_model_schema"), node("out", "text_output_schema")],
        edges: [edge("in.text", "c.prompt"), edge("c.completion", "out.output-text")]
      })
      assert.strictEqual(badFields.status, 400)
      assert.deepStrictEqual(codes(badFields), ["INVALID_APPLICATION_NODE_CONFIGURATION"])
      const unconfigured = yield* unsaved(completionApp("builtin") as never)
      assert.strictEqual(unconfigured.status, 422, "the inputs are keyed by the input node's id")
      assert.deepStrictEqual(issues(unconfigured), [{ loc: ["body", "inputs", "input_node", "input-text"], type: "missing" }])
      const noModel = yield* unsaved({
        nodes: [node("in", "text_input_schema"), node("c", "completion_model_schema", { temperature: 9 }), node("out", "text_output_schema")],
        edges: [edge("in.input-text", "c.prompt"), edge("c.completion", "out.output-text")]
      })
      assert.strictEqual(noModel.status, 400)
      assert.strictEqual(noModel.body.errors.length, 2, JSON.stringify(noModel.body))
      const noOutput = yield* unsaved({ nodes: [node("in", "text_input_schema")], edges: [] })
      assert.deepStrictEqual(codes(noOutput), ["INVALID_APPLICATION_NO_OUTPUT_NODE"])
      // external endpoints call no host unless the server lists it (PLATFORM_EXTERNAL_ENDPOINT_HOSTS, none here)
      const external = yield* unsaved({
        nodes: [node("in", "text_input_schema"), node("call", "external_endpoint_schema", { url: "http://127.0.0.1:9/" }), node("out", "text_output_schema")],
        edges: [edge("in.input-text", "call.input"), edge("call.output", "out.output-text")]
      })
      assert.strictEqual(external.status, 400)
      assert.match(external.body.errors[0].message, /^Node 'call': the server calls no external endpoint: its PLATFORM_EXTERNAL_ENDPOINT_HOSTS lists none/)

      // another account's knowledge base, an unknown model: 404 before anything runs
      const othersKb = yield* other.client.knowledgeBases.create({ payload: { knowledge_base_name: "kb", embedding_config: { type: "base" } } })
      const foreignKb = yield* unsaved(ragApp(othersKb.knowledge_base_id), { input: { "input-text": "x" } })
      assert.strictEqual(foreignKb.status, 404)
      assert.deepStrictEqual(foreignKb.body, { detail: `Knowledge base ${othersKb.knowledge_base_id} not found` })
      const unknownModel = yield* request("POST", "/v4/applications/process", {
        key: caller.key,
        body: { ...completionApp("no-such-model"), version: "V0", inputs: { input_node: { "input-text": "x" } } }
      })
      assert.strictEqual(unknownModel.status, 404)

      // variants: another account's is a 404, an OFFLINE one does not run here (409)
      const { variant } = yield* variantOf(caller, completionApp("builtin"))
      assert.strictEqual((yield* process(other, variant, { inputs: {} })).status, 404)
      const spec = yield* caller.client.applicationSpecs.create({ payload: { account_id: caller.accountId, name: "off", description: "" } })
      const offline = yield* caller.client.applicationVariants.create({
        payload: { account_id: caller.accountId, application_spec_id: spec.id, name: "o", version: "OFFLINE", configuration: {} }
      })
      const refused = yield* process(caller, offline.id, { inputs: {} })
      assert.strictEqual(refused.status, 409)
      assert.include(refused.body.detail, "OFFLINE")
    }))

  it.effect("a model upstream's failure answers its status naming the node, and the interaction records the error", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const model = yield* registerModel(caller, "down")
      const down = yield* readyDeploymentOf(caller, model, {
        provider: "openai_compatible",
        base_url: "http://127.0.0.1:9/v1",
        model: "m",
        max_retries: 0
      })
      const { spec, variant } = yield* variantOf(caller, completionApp(down))
      const failed = yield* process(caller, variant, { inputs: { input_node: { "input-text": "hello" } } })
      assert.strictEqual(failed.status, 502)
      assert.match(failed.body.detail, /^Node 'completion_node': /)
      const recorded = yield* caller.client.applications.listInteractions({ path: { application_spec_id: spec }, urlParams: {} })
      assert.strictEqual(recorded.items.length, 1)
      assert.match(recorded.items[0]!.error ?? "", /^Node 'completion_node': /)
      assert.deepStrictEqual(recorded.items[0]!.node_latencies.map((latency) => latency.node_id), ["input_node"])

      // streamed: the failure is the stream's last frame, without [DONE]; recorded too
      const streamed = yield* process(caller, variant, { inputs: { input_node: { "input-text": "hello" } }, stream: true })
      assert.strictEqual(streamed.status, 200)
      const last = JSON.parse(String(streamed.body).trim().split("\n\n").at(-1)!.replace(/^data: /, ""))
      assert.strictEqual(last.error.status_code, 502)
      assert.match(last.error.detail, /^Node 'completion_node': /)
      assert.strictEqual((yield* caller.client.applications.listInteractions({ path: { application_spec_id: spec }, urlParams: {} })).items.length, 2)
    }))
})
