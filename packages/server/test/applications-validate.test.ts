import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { issues, provision, request, TestServerLive } from "../src/testing.js"

const node = (id: string, schema = "completion_model_schema") => ({
  id,
  configuration: {},
  application_node_schema_id: schema
})
const edge = (from_node: string, to_node: string) => ({ from_node, to_node, from_field: "output", to_field: "input" })
const invalid = (errors: ReadonlyArray<{ error_code: string; message: string }>) => ({
  errors,
  service_error_code: "APPLICATION_BUILDER_VALIDATION_ERROR"
})

layer(TestServerLive)("application graph validation", (it) => {
  it.effect("a valid graph answers 200 {valid: true}, through the client and on the wire", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const minimal = yield* client.applications.validate({
        payload: { nodes: [node("input", "text_input_schema")], edges: [], version: "V0" }
      })
      assert.deepStrictEqual({ ...minimal }, { valid: true })

      const body = {
        nodes: [
          { id: "in", configuration: { placeholder: "ask" }, application_node_schema_id: "text_input_schema" },
          node("retrieve", "knowledge_base_schema"),
          node("llm"),
          node("out", "text_output_schema")
        ],
        edges: [edge("in", "retrieve"), edge("in", "llm"), edge("retrieve", "llm"), edge("llm", "out")],
        version: "V0",
        overrides: {
          concurrent: true,
          use_channels: false,
          return_span: true,
          partial_trace: [{
            workflow_id: "w",
            node_id: "llm",
            operation_type: "COMPLETION",
            start_timestamp: "2026-01-01T00:00:00Z",
            operation_input: "q",
            operation_output: "a",
            duration_ms: 12,
            operation_metadata: { model: "m" }
          }]
        }
      }
      const response = yield* request("POST", "/v4/applications/validate", { key, body })
      assert.strictEqual(response.status, 200)
      assert.deepStrictEqual(response.body, { valid: true })
    }))

  it.effect("the SDK's minimal call: nodes without configuration validate; an unknown edge end is a 400", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const ok = yield* request("POST", "/v4/applications/validate", {
        key,
        body: { nodes: [{ id: "id", application_node_schema_id: "text_input_schema" }], edges: [], version: "V0" }
      })
      assert.strictEqual(ok.status, 200)
      assert.deepStrictEqual(ok.body, { valid: true })
      const viaClient = yield* client.applications.validate({
        payload: { nodes: [{ id: "id", application_node_schema_id: "text_input_schema" }], edges: [], version: "V0" }
      })
      assert.deepStrictEqual({ ...viaClient }, { valid: true })
      const nullConfiguration = yield* request("POST", "/v4/applications/validate", {
        key,
        body: { nodes: [{ id: "id", application_node_schema_id: "text_input_schema", configuration: null }], edges: [], version: "V0" }
      })
      assert.strictEqual(nullConfiguration.status, 200)

      const sdk = yield* request("POST", "/v4/applications/validate", {
        key,
        body: {
          edges: [{ from_field: "from_field", from_node: "from_node", to_field: "to_field", to_node: "to_node" }],
          nodes: [{ id: "id", application_node_schema_id: "text_input_schema" }],
          version: "V0"
        }
      })
      assert.strictEqual(sdk.status, 400)
      assert.strictEqual(sdk.body.service_error_code, "APPLICATION_BUILDER_VALIDATION_ERROR")
      assert.deepStrictEqual(
        sdk.body.errors.map((e: { error_code: string }) => e.error_code),
        ["INVALID_APPLICATION_UNKNOWN_NODE", "INVALID_APPLICATION_UNKNOWN_NODE"]
      )
    }))

  it.effect("overrides carrying Overrides' keys are checked as Overrides: wrong types are a 422 at the field", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const graph = { nodes: [node("in", "text_input_schema")], edges: [], version: "V0" }
      const concurrent = yield* request("POST", "/v4/applications/validate", {
        key,
        body: { ...graph, overrides: { concurrent: "x" } }
      })
      assert.strictEqual(concurrent.status, 422)
      assert.deepStrictEqual(issues(concurrent), [{ loc: ["body", "overrides", "concurrent"], type: "bool_type" }])

      // an extra (agentic-looking) key does not turn a typed Overrides into an open object
      const mixed = yield* request("POST", "/v4/applications/validate", {
        key,
        body: { ...graph, overrides: { initial_state: { messages: [] }, use_channels: "not a boolean" } }
      })
      assert.strictEqual(mixed.status, 422)
      assert.deepStrictEqual(issues(mixed), [{ loc: ["body", "overrides", "use_channels"], type: "bool_type" }])

      const trace = {
        workflow_id: "w",
        node_id: "in",
        operation_type: "COMPLETION",
        start_timestamp: "2026-01-01T00:00:00Z",
        operation_input: "q",
        operation_output: "a",
        duration_ms: "slow"
      }
      const duration = yield* request("POST", "/v4/applications/validate", {
        key,
        body: { ...graph, overrides: { partial_trace: [trace] } }
      })
      assert.strictEqual(duration.status, 422)
      assert.deepStrictEqual(issues(duration), [{
        loc: ["body", "overrides", "partial_trace", 0, "duration_ms"],
        type: "number_type"
      }])
      const missingField = yield* request("POST", "/v4/applications/validate", {
        key,
        body: { ...graph, overrides: { return_span: true, partial_trace: [{ ...trace, duration_ms: 5, node_id: undefined }] } }
      })
      assert.strictEqual(missingField.status, 422)
      assert.deepStrictEqual(issues(missingField), [{ loc: ["body", "overrides", "partial_trace", 0, "node_id"], type: "missing" }])
    }))

  it.effect("overrides: an agentic (open) object is accepted, a non-object is a 422", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const graph = { nodes: [node("in", "text_input_schema")], edges: [], version: "V0" }
      const agentic = yield* request("POST", "/v4/applications/validate", {
        key,
        body: { ...graph, overrides: { initial_state: { messages: [] }, max_steps: "ten" } }
      })
      assert.strictEqual(agentic.status, 200)
      assert.deepStrictEqual(agentic.body, { valid: true })
      const nullOverrides = yield* request("POST", "/v4/applications/validate", {
        key,
        body: { ...graph, overrides: null }
      })
      assert.strictEqual(nullOverrides.status, 200)

      const notObject = yield* request("POST", "/v4/applications/validate", { key, body: { ...graph, overrides: "x" } })
      assert.strictEqual(notObject.status, 422)
      assert.deepStrictEqual(issues(notObject), [{ loc: ["body", "overrides"], type: "dict_type" }])
    }))

  it.effect("no input node is a 400 with the contract body, decoded by the client", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const body = { nodes: [node("llm"), node("in", "text_input")], edges: [edge("llm", "in")], version: "V0" as const }
      const response = yield* request("POST", "/v4/applications/validate", { key, body })
      assert.strictEqual(response.status, 400)
      assert.deepStrictEqual(
        response.body,
        invalid([{
          error_code: "INVALID_APPLICATION_NO_INPUT_NODE",
          message: "The application has no input node (a node whose application_node_schema_id ends in _input_schema)"
        }])
      )

      const error = yield* Effect.flip(client.applications.validate({ payload: body }))
      assert.strictEqual(error._tag, "ApplicationGraphInvalid")
      if (error._tag === "ApplicationGraphInvalid") {
        assert.strictEqual(error.service_error_code, "APPLICATION_BUILDER_VALIDATION_ERROR")
        assert.deepStrictEqual(error.errors.map((e) => e.error_code), ["INVALID_APPLICATION_NO_INPUT_NODE"])
      }

      const empty = yield* request("POST", "/v4/applications/validate", { key, body: { nodes: [], edges: [], version: "V0" } })
      assert.strictEqual(empty.status, 400)
      assert.deepStrictEqual(empty.body.errors.map((e: any) => e.error_code), ["INVALID_APPLICATION_NO_INPUT_NODE"])
    }))

  it.effect("every problem is reported at once: duplicates, unknown nodes, each cycle", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const body = {
        nodes: [node("a"), node("b"), node("a"), node("c"), node("d"), node("e"), node("b"), node("a")],
        edges: [
          edge("a", "b"),
          edge("b", "c"),
          edge("c", "a"), // cycle a -> b -> c -> a
          edge("d", "ghost"), // unknown target
          edge("phantom", "spook"), // both ends unknown
          edge("e", "e"), // self loop
          edge("d", "a") // into the cycle, not part of it
        ],
        version: "V0"
      }
      const response = yield* request("POST", "/v4/applications/validate", { key, body })
      assert.strictEqual(response.status, 400)
      assert.deepStrictEqual(
        response.body,
        invalid([
          {
            error_code: "INVALID_APPLICATION_NO_INPUT_NODE",
            message: "The application has no input node (a node whose application_node_schema_id ends in _input_schema)"
          },
          { error_code: "INVALID_APPLICATION_DUPLICATE_NODE_ID", message: "Node id 'a' is used by 3 nodes" },
          { error_code: "INVALID_APPLICATION_DUPLICATE_NODE_ID", message: "Node id 'b' is used by 2 nodes" },
          {
            error_code: "INVALID_APPLICATION_UNKNOWN_NODE",
            message: "Edge 3 ('d' -> 'ghost') names node 'ghost', which is not in the graph"
          },
          {
            error_code: "INVALID_APPLICATION_UNKNOWN_NODE",
            message: "Edge 4 ('phantom' -> 'spook') names node 'phantom', which is not in the graph"
          },
          {
            error_code: "INVALID_APPLICATION_UNKNOWN_NODE",
            message: "Edge 4 ('phantom' -> 'spook') names node 'spook', which is not in the graph"
          },
          { error_code: "INVALID_APPLICATION_CYCLE", message: "The edges form a cycle through nodes 'a', 'b', 'c'" },
          { error_code: "INVALID_APPLICATION_CYCLE", message: "The edges form a cycle through node 'e'" }
        ])
      )
    }))

  it.effect("a diamond is not a cycle; a cycle behind a valid input is still found", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const diamond = yield* request("POST", "/v4/applications/validate", {
        key,
        body: {
          nodes: [node("in", "text_input_schema"), node("l"), node("r"), node("join")],
          edges: [edge("in", "l"), edge("in", "r"), edge("l", "join"), edge("r", "join")],
          version: "V0"
        }
      })
      assert.strictEqual(diamond.status, 200)
      const looped = yield* request("POST", "/v4/applications/validate", {
        key,
        body: {
          nodes: [node("in", "text_input_schema"), node("x"), node("y")],
          edges: [edge("in", "x"), edge("x", "y"), edge("y", "x")],
          version: "V0"
        }
      })
      assert.strictEqual(looped.status, 400)
      assert.deepStrictEqual(looped.body.errors, [
        { error_code: "INVALID_APPLICATION_CYCLE", message: "The edges form a cycle through nodes 'x', 'y'" }
      ])
    }))

  it.effect("a long chain is validated without blowing the stack", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const size = 5000
      const nodes = Array.from({ length: size }, (_, i) => node(`n${i}`, i === 0 ? "text_input_schema" : "x"))
      const edges = Array.from({ length: size - 1 }, (_, i) => edge(`n${i}`, `n${i + 1}`))
      const chain = yield* request("POST", "/v4/applications/validate", { key, body: { nodes, edges, version: "V0" } })
      assert.strictEqual(chain.status, 200)
      const ring = yield* request("POST", "/v4/applications/validate", {
        key,
        body: { nodes, edges: [...edges, edge(`n${size - 1}`, "n0")], version: "V0" }
      })
      assert.strictEqual(ring.status, 400)
      assert.strictEqual(ring.body.errors.length, 1)
      assert.strictEqual(ring.body.errors[0].error_code, "INVALID_APPLICATION_CYCLE")
    }))

  it.effect("request shape is a 422 before graph rules: version, missing arrays, node and edge fields", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const missing = yield* request("POST", "/v4/applications/validate", { key, body: {} })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "nodes"], type: "missing" },
        { loc: ["body", "edges"], type: "missing" },
        { loc: ["body", "version"], type: "missing" }
      ])

      const wrong = yield* request("POST", "/v4/applications/validate", {
        key,
        body: {
          nodes: [{ id: "a", configuration: "x" }],
          edges: [{ from_node: "a", to_node: 1, from_field: "f" }],
          version: "V1"
        }
      })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "nodes", 0, "configuration"], type: "dict_type" },
        { loc: ["body", "nodes", 0, "application_node_schema_id"], type: "missing" },
        { loc: ["body", "edges", 0, "to_node"], type: "string_type" },
        { loc: ["body", "edges", 0, "to_field"], type: "missing" },
        { loc: ["body", "version"], type: "literal_error" }
      ])

      const notList = yield* request("POST", "/v4/applications/validate", {
        key,
        body: { nodes: "none", edges: [], version: "V0" }
      })
      assert.deepStrictEqual(issues(notList), [{ loc: ["body", "nodes"], type: "list_type" }])
    }))

  it.effect("401 without a key", () =>
    Effect.gen(function*() {
      const response = yield* request("POST", "/v4/applications/validate", {
        body: { nodes: [node("in", "text_input_schema")], edges: [], version: "V0" }
      })
      assert.strictEqual(response.status, 401)
      assert.isString(response.body.detail)
    }))
})
