/**
 * The node kinds of processing beyond the first six (docs/applications.md "Processing"): the SDK's
 * apps through a real OpenAI-compatible upstream, external endpoints against a server of the
 * test's own (answers, fields, timeouts, failures, hosts not allowed), knowledge-base and model
 * input nodes, retrieval over several knowledge bases, and the document nodes over uploaded files.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { issues, provision, request } from "../src/testing.js"
import { edge, knowledgeBaseOf, node, variantOf } from "./support/applications.js"
import { readyDeploymentOf, registerModel } from "./support/models.js"
import { serverWith } from "./support/progression.js"
import { chatAnswer, upstream } from "./support/upstream.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

type Graph = { nodes: Array<ReturnType<typeof node>>; edges: Array<ReturnType<typeof edge>> }

/** The SDK's completion app: input → completion → output. */
const completionApp = (model: string): Graph => ({
  nodes: [
    node("input_node", "text_input_schema"),
    node("completion_node", "completion_model_schema", { completion_model_id: model }),
    node("output_node", "text_output_schema")
  ],
  edges: [edge("input_node.input-text", "completion_node.prompt"), edge("completion_node.completion", "output_node.output-text")]
})

/** The SDK's RAG app (`lib/application_builder.py`) on `model`. */
const ragApp = (kbId: string, model: string): Graph => ({
  nodes: [
    node("input", "text_input_schema"),
    node("knowledge_base", "knowledge_base_schema", { kb_id: kbId, top_k: 3 }),
    node("reranker", "reranker_schema", { top_k: 1 }),
    node("prompt_engineering", "prompt_engineering_schema", { prompt_template: "Answer {{query}} from: {{#chunks}}[{{text}}]{{/chunks}}" }),
    node("completion", "completion_model_schema", { completion_model_id: model }),
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

const unsaved = (caller: Caller, graph: Graph, inputs: unknown) =>
  request("POST", "/v4/applications/process", { key: caller.key, body: { ...graph, version: "V0", inputs } })

const process = (caller: Caller, variant: string, body: unknown) =>
  request("POST", `/v4/applications/${variant}/process`, { key: caller.key, body })

interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

/**
 * An endpoint of the test's own on 127.0.0.1: `/answer` answers `{"data": {"text": "got <body>"}}`,
 * `/search` the text of its `q`, `/slow` after 2 s, `/fail` a 503, `/big` 1.5 MiB. Closed with the scope.
 */
const endpoint = Effect.acquireRelease(
  Effect.async<{ base: string; seen: Array<Seen>; server: Http.Server }>((resume) => {
    const seen: Array<Seen> = []
    const server = Http.createServer((req, res) => {
      let body = ""
      req.on("data", (part) => (body += part))
      req.on("end", () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body })
        const url = new URL(req.url!, "http://x")
        switch (url.pathname) {
          case "/answer":
            res.writeHead(200, { "content-type": "application/json" })
            return res.end(JSON.stringify({ data: { text: `got ${body}` } }))
          case "/search":
            return res.end(`results for ${url.searchParams.get("q")}`)
          case "/slow":
            return void setTimeout(() => res.end("late"), 2_000)
          case "/fail":
            res.writeHead(503)
            return res.end("overloaded")
          case "/big":
            return res.end("x".repeat(1.5 * 1024 * 1024))
        }
        res.writeHead(404)
        res.end()
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({ base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server })))
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
)

/** input → external endpoint (`configuration`) → output. */
const endpointApp = (configuration: Record<string, unknown>): Graph => ({
  nodes: [node("in", "text_input_schema"), node("call", "external_endpoint_schema", configuration), node("out", "text_output_schema")],
  edges: [edge("in.input-text", "call.input"), edge("call.output", "out.output-text")]
})

/** Files uploaded for applications: their ids, in order. */
const upload = (caller: Caller, files: ReadonlyArray<{ readonly name: string; readonly content: string | Uint8Array }>) =>
  Effect.map(
    caller.client.applicationFiles.upload({
      urlParams: { account_id: caller.accountId },
      payload: (() => {
        const form = new FormData()
        for (const file of files) form.append("files[]", new Blob([file.content]), file.name)
        return form
      })()
    }),
    (created) => created.map((file) => file.id)
  )

layer(serverWith({ PLATFORM_EXTERNAL_ENDPOINT_HOSTS: "127.0.0.1" }), { timeout: 60_000 })("application processing: more node kinds", (it) => {
  it.effect("the registry lists each new kind with its fields, inputs and outputs", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const raw = (yield* request("GET", "/v4/application-schemas?version=V0", { key: caller.key })).body
      const typed = yield* caller.client.applications.schemas({ urlParams: { version: "V0" } })
      assert.strictEqual(Object.keys(typed).length, 15)
      const shape = (id: string) => {
        const { nodeSchema, tags, type } = raw[id]
        return {
          type,
          tags,
          configuration: Object.keys(nodeSchema.configuration),
          inputs: Object.fromEntries(Object.values(nodeSchema.inputs).map((field: any) => [field.name, field.type])),
          outputs: Object.fromEntries(Object.values(nodeSchema.outputs).map((field: any) => [field.name, field.type]))
        }
      }
      assert.deepStrictEqual(shape("external_endpoint_schema"), {
        type: "EXTERNAL_ENDPOINT_NODE",
        tags: [],
        configuration: ["url", "method", "headers", "body_template", "response_field", "timeout_ms"],
        inputs: { input: "TEXT", chunks: "CHUNK_ARRAY" },
        outputs: { output: "TEXT" }
      })
      assert.deepStrictEqual(shape("multi_knowledge_base_input_schema").outputs, { knowledge_base_ids: "KNOWLEDGE_BASE_ID_ARRAY" })
      assert.deepStrictEqual(shape("knowledge_base_input_schema").tags, ["INPUT_NODE"])
      assert.deepStrictEqual(shape("multi_knowledge_base_schema").inputs, { query: "TEXT", knowledge_base_ids: "KNOWLEDGE_BASE_ID_ARRAY" })
      assert.deepStrictEqual(shape("completion_model_input_schema").outputs, { completion_model_id: "COMPLETION_MODEL_ID" })
      assert.deepStrictEqual(shape("document_input_schema").outputs, { documents: "DOCUMENT_ARRAY" })
      assert.deepStrictEqual(shape("document_search_schema").inputs, { documents: "DOCUMENT_ARRAY", query: "TEXT" })
      assert.deepStrictEqual(shape("map_reduce_schema").outputs, { completion: "TEXT", results: "STRING_ARRAY" })
      assert.strictEqual(raw.external_endpoint_schema.nodeSchema.configuration.timeout_ms.default, 10_000)
      assert.strictEqual(raw.external_endpoint_schema.nodeSchema.configuration.timeout_ms.validation_rules.max_value, 60_000)
    }))

  it.scoped("the SDK's completion and RAG apps through a real OpenAI-compatible upstream: it sees the rendered prompt; answer and tokens recorded", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { received, url } = yield* upstream((got) => ({ status: 200, body: chatAnswer(`upstream says: ${got.body.messages.at(-1).content}`) }))
      const model = yield* registerModel(caller, "upstream")
      // the deployment and the knowledge base of the RAG app made at once (each waits on background work)
      const [deployment, kb] = yield* Effect.all([
        readyDeploymentOf(caller, model, { provider: "openai_compatible", base_url: url, model: "m", max_retries: 0 }),
        knowledgeBaseOf(caller, ["Our office opens at nine in the morning", "Parking is free for visitors on weekends"])
      ], { concurrency: 2 })

      const { spec, variant } = yield* variantOf(caller, completionApp(deployment))
      const answered = yield* process(caller, variant, { inputs: { input_node: { "input-text": "What is the capital of France?" } } })
      assert.strictEqual(answered.status, 200, JSON.stringify(answered.body))
      assert.strictEqual(answered.body["output-text"], "upstream says: What is the capital of France?")
      assert.strictEqual(received.length, 1)
      assert.strictEqual(received[0]!.path, "/v1/chat/completions")
      assert.deepStrictEqual(received[0]!.body.messages, [{ role: "user", content: "What is the capital of France?" }])
      const interaction = yield* caller.client.applications.getInteraction({
        path: { application_spec_id: spec, interaction_id: answered.body.application_interaction_id }
      })
      assert.deepStrictEqual([interaction.input_tokens, interaction.output_tokens, interaction.error], [11, 3, null])
      assert.strictEqual(interaction.output["output-text"], "upstream says: What is the capital of France?")

      const rag = yield* variantOf(caller, ragApp(kb, deployment))
      const ragAnswer = yield* process(caller, rag.variant, { inputs: { input: { "input-text": "when does the office open" } } })
      assert.strictEqual(ragAnswer.status, 200, JSON.stringify(ragAnswer.body))
      const prompt = "Answer when does the office open from: [Our office opens at nine in the morning]"
      assert.deepStrictEqual(received[1]!.body.messages, [{ role: "user", content: prompt }])
      assert.strictEqual(ragAnswer.body["output-text"], `upstream says: ${prompt}`)
      assert.deepStrictEqual(ragAnswer.body.metadata.map((chunk: { text: string }) => chunk.text), ["Our office opens at nine in the morning"])
      const ragInteraction = yield* caller.client.applications.getInteraction({
        path: { application_spec_id: rag.spec, interaction_id: ragAnswer.body.application_interaction_id }
      })
      assert.deepStrictEqual([ragInteraction.input_tokens, ragInteraction.output_tokens], [11, 3])
    }))

  it.scoped("external endpoint: the call its configuration names, its answer or a JSON field the output; timeout 504, failures 502 naming the node, recorded", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { base, seen } = yield* endpoint

      // POST by default, the body template rendered with JSON-encoded values, headers sent, a field read
      const posted = yield* unsaved(caller, endpointApp({
        url: `${base}/answer`,
        headers: JSON.stringify({ "x-token": "t1" }),
        body_template: "{\"question\": {{{json.input}}}}",
        response_field: "data.text"
      }), { in: { "input-text": "say \"hi\"" } })
      assert.strictEqual(posted.status, 200, JSON.stringify(posted.body))
      assert.strictEqual(posted.body["output-text"], "got {\"question\": \"say \\\"hi\\\"\"}")
      assert.deepStrictEqual([seen[0]!.method, seen[0]!.headers["x-token"], seen[0]!.headers["content-type"]], ["POST", "t1", "application/json"])
      assert.deepStrictEqual(JSON.parse(seen[0]!.body), { question: "say \"hi\"" })

      // GET with the input URL-encoded in the query; the answer's text whole
      const got = yield* unsaved(caller, endpointApp({ url: `${base}/search?q={{input}}`, method: "GET" }), { in: { "input-text": "a&b c" } })
      assert.strictEqual(got.status, 200, JSON.stringify(got.body))
      assert.strictEqual(got.body["output-text"], "results for a&b c")
      assert.strictEqual(seen[1]!.method, "GET")

      // a timeout: 504 naming the node, recorded as the interaction's error
      const { spec, variant } = yield* variantOf(caller, endpointApp({ url: `${base}/slow`, timeout_ms: 200 }))
      const started = Date.now()
      const late = yield* process(caller, variant, { inputs: { in: { "input-text": "x" } } })
      assert.strictEqual(late.status, 504, JSON.stringify(late.body))
      assert.isBelow(Date.now() - started, 1_900, "the call was aborted at its deadline, not answered late")
      assert.strictEqual(late.body.detail, `Node 'call': The external endpoint ${base}/slow did not answer within 200 ms`)
      const recorded = yield* caller.client.applications.listInteractions({ path: { application_spec_id: spec }, urlParams: {} })
      assert.strictEqual(recorded.items[0]!.error, late.body.detail)

      // a 5xx, no connection, an answer too large, a missing field: 502 naming the node
      const failed = yield* unsaved(caller, endpointApp({ url: `${base}/fail` }), { in: { "input-text": "x" } })
      assert.deepStrictEqual([failed.status, failed.body.detail], [502, `Node 'call': The external endpoint ${base}/fail answered 503: overloaded`])
      const closed = yield* unsaved(caller, endpointApp({ url: "http://127.0.0.1:9/" }), { in: { "input-text": "x" } })
      assert.deepStrictEqual([closed.status, closed.body.detail], [502, "Node 'call': The external endpoint http://127.0.0.1:9/ could not be reached"])
      const big = yield* unsaved(caller, endpointApp({ url: `${base}/big` }), { in: { "input-text": "x" } })
      assert.strictEqual(big.status, 502)
      assert.match(big.body.detail, /answered more than 1048576 bytes$/)
      const noField = yield* unsaved(caller, endpointApp({ url: `${base}/answer`, response_field: "data.missing" }), { in: { "input-text": "x" } })
      assert.deepStrictEqual([noField.status, noField.body.detail], [502, `Node 'call': The external endpoint ${base}/answer answered no field 'data.missing'`])

      // checked before anything runs: a host the server does not allow, a templated host, a bad method or headers
      const before = seen.length
      const refused = yield* unsaved(caller, {
        nodes: [
          ...endpointApp({ url: "http://localhost:1/x" }).nodes,
          node("call2", "external_endpoint_schema", { url: "http://{{input}}/x" }),
          node("call3", "external_endpoint_schema", { url: `${base}/answer`, method: "TRACE", headers: "[1]" }),
          // forms a URL parser reads a host from without `//`: the host would be the input's
          node("call4", "external_endpoint_schema", { url: "http:/{{input}}127.0.0.1/x" }),
          node("call5", "external_endpoint_schema", { url: "http:\\\\{{input}}127.0.0.1/x" })
        ],
        edges: endpointApp({}).edges
      }, { in: { "input-text": "x" } })
      assert.strictEqual(refused.status, 400)
      assert.deepStrictEqual(refused.body.errors.map((error: { message: string }) => error.message).sort(), [
        "Node 'call': host localhost:1 is not one the server's PLATFORM_EXTERNAL_ENDPOINT_HOSTS allows",
        ...["call2", "call4", "call5"].map((id) =>
          `Node '${id}': configuration 'url' must start with http:// or https:// and a host written out (the host may not come from a template)`
        ),
        "Node 'call3': configuration 'method' must be one of GET, POST, PUT, PATCH, DELETE"
      ].sort())
      assert.strictEqual(seen.length, before)
    }))

  it.effect("knowledge-base and model input nodes; retrieval over several knowledge bases merged by score", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const [hours, parking] = yield* Effect.all([
        knowledgeBaseOf(caller, ["The office opens at nine", "Lunch is served at noon"]),
        knowledgeBaseOf(caller, ["Parking opens at seven", "Visitors park for free"])
      ], { concurrency: 2 })
      const graph: Graph = {
        nodes: [
          node("question", "text_input_schema"),
          node("bases", "multi_knowledge_base_input_schema"),
          node("model", "completion_model_input_schema"),
          node("search", "multi_knowledge_base_schema", { top_k: 3 }),
          node("prompt", "prompt_engineering_schema", { prompt_template: "{{#chunks}}[{{text}}]{{/chunks}}" }),
          node("completion", "completion_model_schema"),
          node("out", "text_output_schema")
        ],
        edges: [
          edge("question.input-text", "search.query"),
          edge("bases.knowledge_base_ids", "search.knowledge_base_ids"),
          edge("search.chunks", "prompt.chunks"),
          edge("prompt.prompt", "completion.prompt"),
          edge("model.completion_model_id", "completion.completion_model_id"),
          edge("completion.completion", "out.output-text"),
          edge("search.chunks", "out.metadata")
        ]
      }
      const inputs = (ids: unknown, model: unknown = "builtin") => ({
        question: { "input-text": "when does the office open" },
        bases: { knowledge_base_ids: ids },
        model: { completion_model_id: model }
      })
      const answered = yield* unsaved(caller, graph, inputs([hours, parking]))
      assert.strictEqual(answered.status, 200, JSON.stringify(answered.body))
      const chunks: Array<{ text: string; score: number; metadata: { knowledge_base_id: string } }> = answered.body.metadata
      assert.strictEqual(chunks.length, 3)
      assert.deepStrictEqual(chunks.map((chunk) => chunk.score), [...chunks.map((chunk) => chunk.score)].sort((a, b) => b - a))
      assert.strictEqual(chunks[0]!.text, "The office opens at nine")
      assert.sameMembers([...new Set(chunks.map((chunk) => chunk.metadata.knowledge_base_id))], [hours, parking])
      // the built-in model (named by the input node) echoes the prompt
      assert.strictEqual(answered.body["output-text"], chunks.map((chunk) => `[${chunk.text}]`).join(""))

      // one knowledge base by a knowledge-base input node
      const single = yield* unsaved(caller, {
        nodes: [
          node("question", "text_input_schema"),
          node("base", "knowledge_base_input_schema"),
          node("kb", "knowledge_base_schema", { top_k: 1 }),
          node("out", "text_output_schema")
        ],
        edges: [edge("question.input-text", "kb.query"), edge("base.knowledge_base_id", "kb.knowledge_base_id"), edge("question.input-text", "out.output-text"), edge("kb.chunks", "out.metadata")]
      }, { question: { "input-text": "free parking for visitors" }, base: { knowledge_base_id: parking } })
      assert.strictEqual(single.status, 200, JSON.stringify(single.body))
      assert.deepStrictEqual(single.body.metadata.map((chunk: { text: string }) => chunk.text), ["Visitors park for free"])

      // the inputs checked before anything runs: missing or malformed 422, another account's 404, an unknown model 404
      const missing = yield* unsaved(caller, graph, { question: { "input-text": "x" }, bases: { knowledge_base_ids: [] } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "inputs", "bases", "knowledge_base_ids"], type: "value_error" },
        { loc: ["body", "inputs", "model", "completion_model_id"], type: "missing" }
      ])
      const foreign = yield* other.client.knowledgeBases.create({ payload: { knowledge_base_name: "kb", embedding_config: { type: "base" } } })
      const theirs = yield* unsaved(caller, graph, inputs([hours, foreign.knowledge_base_id]))
      assert.deepStrictEqual([theirs.status, theirs.body], [404, { detail: `Knowledge base ${foreign.knowledge_base_id} not found` }])
      assert.strictEqual((yield* unsaved(caller, graph, inputs([hours], "no-such-model"))).status, 404)
      // a completion node with neither a model configured nor one wired
      const unwired = yield* unsaved(caller, completionApp(""), { input_node: { "input-text": "x" } })
      assert.strictEqual(unwired.status, 400)
      assert.deepStrictEqual(unwired.body.errors.map((error: { message: string }) => error.message), [
        "Node 'completion_node': configuration 'completion_model_id' is required ({\"value\": …}) unless its input 'completion_model_id' is connected"
      ])
    }))

  it.effect("document nodes: uploaded files as documents, searched, prompted, map-reduced; spans per node; another account's file 404", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const [policy, faq] = yield* upload(caller, [
        { name: "policy.md", content: "Refunds are accepted within 30 days.\n\nShipping takes five days." },
        { name: "faq.txt", content: "The store opens at nine." }
      ])
      const graph: Graph = {
        nodes: [
          node("question", "text_input_schema"),
          node("files", "document_input_schema"),
          node("search", "document_search_schema", { top_k: 1, chunk_size: 40, chunk_overlap: 0 }),
          node("summary", "map_reduce_schema", {
            completion_model_id: "builtin",
            map_template: "{{index}}:{{title}}",
            reduce_template: "{{#results}}<{{.}}>{{/results}}"
          }),
          node("prompt", "document_prompt_schema", { prompt_template: "{{query}} | {{#documents}}{{file_name}};{{/documents}}" }),
          node("completion", "completion_model_schema", { completion_model_id: "builtin" }),
          node("out", "text_output_schema")
        ],
        edges: [
          edge("files.documents", "search.documents"),
          edge("question.input-text", "search.query"),
          edge("files.documents", "summary.documents"),
          edge("files.documents", "prompt.documents"),
          edge("summary.completion", "prompt.query"),
          edge("prompt.prompt", "completion.prompt"),
          edge("completion.completion", "out.output-text"),
          edge("search.chunks", "out.metadata")
        ]
      }
      const { variant } = yield* variantOf(caller, graph)
      const thread = crypto.randomUUID()
      const answered = yield* request("POST", `/v4/applications/${variant}/threads/${thread}/process`, {
        key: caller.key,
        body: { inputs: { question: { "input-text": "how long do refunds take" }, files: { file_ids: [policy, faq] } } }
      })
      assert.strictEqual(answered.status, 200, JSON.stringify(answered.body))
      // map: one echo per document; reduce: their answers combined; the prompt over the documents
      assert.strictEqual(answered.body["output-text"], "<0:policy.md><1:faq.txt> | policy.md;faq.txt;")
      assert.deepStrictEqual(answered.body.metadata.map((chunk: any) => [chunk.text, chunk.metadata.file_id, chunk.title]), [
        ["Refunds are accepted within 30 days.", policy, "policy.md"]
      ])

      const { messages } = yield* caller.client.applicationThreads.messages({ path: { thread_id: thread }, urlParams: { fetch_spans: true } })
      const spans = messages[0]!.spans!
      assert.deepStrictEqual(spans.map((span) => [span.node_id, span.operation_type]), [
        ["question", "TEXT_INPUT"],
        ["files", "DOCUMENT_INPUT"],
        ["search", "DOCUMENT_SEARCH"],
        ["summary", "MAP_REDUCE"],
        ["prompt", "DOCUMENT_PROMPT"],
        ["completion", "COMPLETION"],
        ["out", "TEXT_OUTPUT"]
      ])
      assert.deepStrictEqual((spans[3]!.operation_output as any).results, ["0:policy.md", "1:faq.txt"])

      // checked before anything runs: another account's file 404, a file that is not text 422, none 422
      const [theirs] = yield* upload(other, [{ name: "x.txt", content: "theirs" }])
      const inputs = (file_ids: unknown) => ({ question: { "input-text": "q" }, files: { file_ids } })
      const foreign = yield* process(caller, variant, { inputs: inputs([policy, theirs]) })
      assert.deepStrictEqual([foreign.status, foreign.body.detail], [404, `Application file ${theirs} not found`])
      const [binary] = yield* upload(caller, [{ name: "blob.bin", content: new Uint8Array([0, 1, 2]) }])
      const unreadable = yield* process(caller, variant, { inputs: inputs([policy, binary]) })
      assert.strictEqual(unreadable.status, 422)
      assert.deepStrictEqual(issues(unreadable), [{ loc: ["body", "inputs", "files", "file_ids", 1], type: "value_error" }])
      const none = yield* process(caller, variant, { inputs: inputs([]) })
      assert.deepStrictEqual(issues(none), [{ loc: ["body", "inputs", "files", "file_ids"], type: "value_error" }])

      // map-reduce needs documents or chunks wired; the search's overlap below its size
      const bad = yield* unsaved(caller, {
        nodes: [
          node("files", "document_input_schema"),
          node("q", "text_input_schema"),
          node("search", "document_search_schema", { chunk_size: 10, chunk_overlap: 10 }),
          node("summary", "map_reduce_schema", { completion_model_id: "builtin", map_template: "m", reduce_template: "r" }),
          node("out", "text_output_schema")
        ],
        edges: [edge("files.documents", "search.documents"), edge("q.input-text", "search.query"), edge("summary.completion", "out.output-text")]
      }, { files: { file_ids: [faq] }, q: { "input-text": "x" } })
      assert.strictEqual(bad.status, 400)
      assert.deepStrictEqual(bad.body.errors.map((error: { message: string }) => error.message), [
        "Node 'search': configuration 'chunk_overlap' must be less than 'chunk_size' (10)",
        "Node 'summary': its input 'documents' or 'chunks' must be connected"
      ])
    }))
})
