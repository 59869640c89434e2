import { assert, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { OTLPTraceExporter as OTLPTraceProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import { resourceFromAttributes } from "@opentelemetry/resources"
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import * as Zlib from "node:zlib"
import { jsonRequest, provision, serverPort, serverWire, TestServerLive } from "../src/testing.js"
import { decodeRequest } from "../src/otlp/protobuf.js"

const countRows = (accountId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT COUNT(*) AS n FROM spans WHERE account_id = ${accountId}`).pipe(
    Effect.map((rows) => Number(rows[0]!.n))
  )

/** A tracer provider exporting each ended span at once through `exporter`, of service `otlp-test`. */
const providerOf = (exporter: SpanExporter) =>
  new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "otlp-test" }),
    spanProcessors: [new SimpleSpanProcessor(exporter)]
  })

const hex = (bytes: number) => Crypto.randomBytes(bytes).toString("hex")

/** An OTLP/JSON request of `spans` under one resource and scope. */
const otlpBody = (spans: ReadonlyArray<Record<string, unknown>>) => ({
  resourceSpans: [{
    resource: { attributes: [{ key: "service.name", value: { stringValue: "raw" } }] },
    scopeSpans: [{ scope: { name: "raw-scope" }, spans }]
  }]
})

const jsonSpan = (traceId: string, spanId: string, more: Record<string, unknown> = {}) => ({
  traceId,
  spanId,
  name: "raw span",
  kind: 1,
  startTimeUnixNano: "1796650000123456789",
  endTimeUnixNano: "1796650001000000000",
  ...more
})

layer(TestServerLive)("OTLP /v1/traces", (it) => {
  it.effect("the OpenTelemetry JS exporter (OTLP/JSON) lands a parent and its child as v5 spans", () =>
    Effect.gen(function*() {
      const { accountId, client, identityId, key } = yield* provision()
      const port = yield* serverPort
      const exporter = new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces`, headers: { "x-api-key": key } })
      const provider = providerOf(exporter)
      const tracer = provider.getTracer("kit-test", "1.2.3")
      const parent = tracer.startSpan("handle question", {
        kind: SpanKind.SERVER,
        startTime: [1796650000, 123456789],
        attributes: { "http.route": "/ask", "input.value": JSON.stringify({ question: "What is OTLP?" }) }
      })
      const child = tracer.startSpan("call model", {
        startTime: [1796650000, 200000000],
        attributes: { "gen_ai.operation.name": "chat", "gen_ai.usage.output_tokens": 12, tags: ["a", "b"], "output.value": "an answer" }
      }, trace.setSpan(ROOT_CONTEXT, parent))
      child.setStatus({ code: SpanStatusCode.ERROR, message: "upstream failed" })
      child.end([1796650000, 700000500])
      parent.end([1796650001, 0])
      yield* Effect.promise(() => provider.forceFlush())
      yield* Effect.promise(() => provider.shutdown())

      const traceId = parent.spanContext().traceId
      const found = yield* client.spans.search({ urlParams: { sort_order: "asc" }, payload: { trace_ids: [traceId] } })
      assert.deepStrictEqual(found.items.map((span) => span.id), [parent.spanContext().spanId, child.spanContext().spanId])
      const [root, leaf] = found.items
      assert.strictEqual(root!.account_id, accountId)
      assert.deepStrictEqual(root!.created_by, { id: identityId, type: "user", object: "identity" })
      assert.strictEqual(root!.trace_id, traceId)
      assert.strictEqual(root!.parent_id, null)
      assert.strictEqual(root!.name, "handle question")
      assert.strictEqual(root!.start_timestamp, "2026-12-07T13:26:40.123456Z")
      assert.strictEqual(root!.end_timestamp, "2026-12-07T13:26:41.000Z")
      assert.strictEqual(root!.status, "SUCCESS")
      assert.strictEqual(root!.type, null)
      assert.deepStrictEqual(root!.input, { question: "What is OTLP?" })
      assert.strictEqual(root!.output, null)
      assert.deepStrictEqual(root!.metadata, {
        "resource.service.name": "otlp-test",
        "otel.scope.name": "kit-test",
        "otel.scope.version": "1.2.3",
        "http.route": "/ask",
        "otel.span_kind": "SERVER"
      })

      assert.strictEqual(leaf!.parent_id, root!.id)
      assert.strictEqual(leaf!.start_timestamp, "2026-12-07T13:26:40.200Z")
      assert.strictEqual(leaf!.end_timestamp, "2026-12-07T13:26:40.700Z")
      assert.strictEqual(leaf!.status, "ERROR")
      assert.strictEqual(leaf!.type, "COMPLETION")
      assert.deepStrictEqual(leaf!.output, { value: "an answer" })
      assert.strictEqual(leaf!.input, null)
      assert.strictEqual(leaf!.metadata!["gen_ai.usage.output_tokens"], 12)
      assert.deepStrictEqual(leaf!.metadata!["tags"], ["a", "b"])
      assert.strictEqual(leaf!.metadata!["otel.status_message"], "upstream failed")
      assert.strictEqual(leaf!.metadata!["otel.span_kind"], "INTERNAL")
      assert.strictEqual(leaf!.metadata!["resource.service.name"], "otlp-test")
      assert.isFalse("output.value" in leaf!.metadata!)

      // the search's filters see them as any span: the errored child, the root only
      const errors = yield* client.spans.search({ urlParams: {}, payload: { trace_ids: [traceId], statuses: ["ERROR"] } })
      assert.deepStrictEqual(errors.items.map((span) => span.id), [leaf!.id])
      const roots = yield* client.spans.search({ urlParams: {}, payload: { trace_ids: [traceId], parents_only: true } })
      assert.deepStrictEqual(roots.items.map((span) => span.id), [root!.id])
      assert.strictEqual(yield* countRows(accountId), 2)
    }))

  it.effect("the protobuf exporter, gzip-compressed, with an Authorization: Bearer key", () =>
    Effect.gen(function*() {
      const { accountId, client, key } = yield* provision()
      const port = yield* serverPort
      const exporter = new OTLPTraceProtoExporter({
        url: `http://127.0.0.1:${port}/v1/traces`,
        headers: { authorization: `Bearer ${key}` },
        // the exporter's `CompressionAlgorithm.GZIP` (an enum of a package this test does not import)
        compression: "gzip" as any
      })
      const provider = providerOf(exporter)
      const span = provider.getTracer("proto-test").startSpan("proto span", {
        startTime: [1796650000, 5000],
        attributes: { "sgp.span_type": "KB_RETRIEVAL", big: 2 ** 60, ok: true, ratio: 0.5 }
      })
      span.end([1796650000, 9000])
      yield* Effect.promise(() => provider.forceFlush())
      yield* Effect.promise(() => provider.shutdown())

      const stored = yield* client.spans.get({ path: { span_id: span.spanContext().spanId } })
      assert.strictEqual(stored.trace_id, span.spanContext().traceId)
      assert.strictEqual(stored.start_timestamp, "2026-12-07T13:26:40.000005Z")
      assert.strictEqual(stored.end_timestamp, "2026-12-07T13:26:40.000009Z")
      assert.strictEqual(stored.type, "KB_RETRIEVAL")
      assert.strictEqual(stored.status, "SUCCESS")
      // an int64 beyond 2^53 as its decimal text, exactly
      assert.strictEqual(stored.metadata!["big"], "1152921504606846976")
      assert.strictEqual(stored.metadata!["ok"], true)
      assert.strictEqual(stored.metadata!["ratio"], 0.5)
      assert.strictEqual(stored.metadata!["otel.scope.name"], "proto-test")
      assert.strictEqual(yield* countRows(accountId), 1)
    }))

  it.effect("raw OTLP/JSON: rejected spans are counted, the others stored, a resend replaces", () =>
    Effect.gen(function*() {
      const { accountId, client, key } = yield* provision()
      const wire = yield* serverWire
      const traceId = hex(16)
      const good = hex(8)
      const body = otlpBody([
        jsonSpan(traceId, good, {
          attributes: [
            { key: "nested", value: { kvlistValue: { values: [{ key: "n", value: { intValue: 3 } }] } } },
            { key: "input.value", value: { stringValue: "plain text" } }
          ]
        }),
        jsonSpan("not-hex", hex(8)),
        jsonSpan(traceId, hex(8), { startTimeUnixNano: "1796650002000000000" })
      ])
      const response = yield* Effect.promise(() => wire.send(jsonRequest("POST", "/v1/traces", key, body)))
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.json.partialSuccess.rejectedSpans, "2")
      assert.match(response.json.partialSuccess.errorMessage, /traceId "not-hex"/)
      assert.match(response.json.partialSuccess.errorMessage, /endTimeUnixNano is before startTimeUnixNano/)
      const stored = yield* client.spans.get({ path: { span_id: good } })
      assert.deepStrictEqual(stored.metadata!["nested"], { n: 3 })
      assert.deepStrictEqual(stored.input, { value: "plain text" })
      assert.strictEqual(stored.metadata!["resource.service.name"], "raw")
      assert.strictEqual(stored.metadata!["otel.span_kind"], "INTERNAL")
      assert.strictEqual(yield* countRows(accountId), 1)

      // every span stored: `{"partialSuccess": {}}`; the same id again replaces its span whole
      const again = yield* Effect.promise(() =>
        wire.send(jsonRequest("POST", "/v1/traces", key, otlpBody([jsonSpan(traceId, good, { name: "renamed", status: { code: 2 } })])))
      )
      assert.strictEqual(again.status, 200)
      assert.deepStrictEqual(again.json, { partialSuccess: {} })
      const replaced = yield* client.spans.get({ path: { span_id: good } })
      assert.strictEqual(replaced.name, "renamed")
      assert.strictEqual(replaced.status, "ERROR")
      assert.strictEqual(replaced.input, null)
      assert.strictEqual(yield* countRows(accountId), 1)

      // an empty request is a success
      const empty = yield* Effect.promise(() => wire.send(jsonRequest("POST", "/v1/traces", key, {})))
      assert.deepStrictEqual([empty.status, empty.json], [200, { partialSuccess: {} }])

      // the typed client knows the endpoint (its JSON encoding)
      const typed = yield* client.otlp.exportTraces({
        payload: { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId, spanId: hex(8), name: "typed", startTimeUnixNano: "1796650000000000000" }] }] }] }
      })
      assert.deepStrictEqual(typed, { partialSuccess: {} })
      assert.strictEqual(yield* countRows(accountId), 2)
    }))

  it.effect("bad bodies are 400 and other content types 415 (google.rpc.Status), nothing stored; no key is 401", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* provision()
      const wire = yield* serverWire
      const send = (body: string | Buffer, headers: Record<string, string>) =>
        Effect.promise(() => wire.send({ method: "POST", target: "/v1/traces", headers: { "x-api-key": key, ...headers }, body }))
      const json = { "content-type": "application/json" }

      const notJson = yield* send("{\"resourceSpans\": [", json)
      assert.strictEqual(notJson.status, 400)
      assert.deepStrictEqual(notJson.json, { code: 3, message: "The body is not JSON" })
      const notArray = yield* send(JSON.stringify({ resourceSpans: "spans" }), json)
      assert.strictEqual(notArray.status, 400)
      assert.match(notArray.json.message, /^Not an ExportTraceServiceRequest: resourceSpans/)
      const noSpanId = yield* send(JSON.stringify(otlpBody([{ traceId: hex(16) }])), json)
      assert.strictEqual(noSpanId.status, 400)

      const text = yield* send("hello", { "content-type": "text/plain" })
      assert.strictEqual(text.status, 415)
      assert.strictEqual(text.json.code, 3)
      assert.match(text.json.message, /text\/plain is not supported/)
      const brotli = yield* send("{}", { ...json, "content-encoding": "br" })
      assert.strictEqual(brotli.status, 415)
      // gzip inflating past the body limit (1 MiB in tests) is refused, not inflated whole
      const bomb = yield* send(Zlib.gzipSync(Buffer.alloc(2 * 1024 * 1024, 0x20)), { ...json, "content-encoding": "gzip" })
      assert.strictEqual(bomb.status, 400)
      assert.match(bomb.json.message, /not gzip data of at most/)

      // protobuf in, protobuf out: the Status message
      const badProto = yield* send(Buffer.from([0x0a, 0xff, 0x01]), { "content-type": "application/x-protobuf" })
      assert.strictEqual(badProto.status, 400)
      assert.strictEqual(badProto.headers["content-type"], "application/x-protobuf")

      const anonymous = yield* Effect.promise(() => wire.send(jsonRequest("POST", "/v1/traces", undefined, otlpBody([jsonSpan(hex(16), hex(8))]))))
      assert.strictEqual(anonymous.status, 401)
      assert.strictEqual(yield* countRows(accountId), 0)
    }))

  it.effect("another account neither sees the spans nor changes them by sending the same ids", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const wire = yield* serverWire
      const traceId = hex(16)
      const spanId = hex(8)
      const sent = yield* Effect.promise(() =>
        wire.send(jsonRequest("POST", "/v1/traces", alice.key, otlpBody([jsonSpan(traceId, spanId, { name: "alice's" })])))
      )
      assert.strictEqual(sent.status, 200)
      const seen = yield* bob.client.spans.search({ urlParams: {}, payload: { trace_ids: [traceId] } })
      assert.strictEqual(seen.items.length, 0)
      const got = yield* Effect.flip(bob.client.spans.get({ path: { span_id: spanId } }))
      assert.strictEqual(got._tag, "NotFound")
      // the same ids from Bob are Bob's own span
      yield* Effect.promise(() => wire.send(jsonRequest("POST", "/v1/traces", bob.key, otlpBody([jsonSpan(traceId, spanId, { name: "bob's" })]))))
      assert.strictEqual((yield* alice.client.spans.get({ path: { span_id: spanId } })).name, "alice's")
      assert.strictEqual((yield* bob.client.spans.get({ path: { span_id: spanId } })).name, "bob's")
    }))

  it("decodes a protobuf request to the shape of its JSON encoding", () => {
    // ExportTraceServiceRequest { resource_spans { scope_spans { spans { trace_id, span_id, name } } } }
    const span = Buffer.concat([
      Buffer.from([0x0a, 16]),
      Buffer.alloc(16, 0xab),
      Buffer.from([0x12, 8]),
      Buffer.alloc(8, 0xcd),
      Buffer.from([0x2a, 1, 0x78])
    ])
    const scopeSpans = Buffer.concat([Buffer.from([0x12, span.length]), span])
    const resourceSpans = Buffer.concat([Buffer.from([0x12, scopeSpans.length]), scopeSpans])
    const request = Buffer.concat([Buffer.from([0x0a, resourceSpans.length]), resourceSpans])
    assert.deepStrictEqual(decodeRequest(request), {
      resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: "ab".repeat(16), spanId: "cd".repeat(8), name: "x" }] }] }]
    })
  })
})
