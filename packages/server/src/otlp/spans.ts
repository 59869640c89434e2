/**
 * OTLP spans as v5 spans (docs/spans.md "OpenTelemetry"): ids and times as sent, the status
 * folded to `SUCCESS` / `ERROR`, the type and the input and output read from attribute
 * conventions, every other attribute (the resource's and the scope's prefixed) into `metadata`.
 * A span that cannot be stored is rejected alone, with the reason.
 */
import { type ExportTraceServiceRequest, type OtlpSpan, Span, SpanType } from "@platform-kit/schema"
import { Schema } from "effect"
import { isoOfParts } from "../spans/instants.js"

/** What every stored span shares: the account written and the key's identity. */
export interface Writer {
  readonly account_id: string
  readonly created_by: Span["created_by"]
}

/** The spans to store (a repeated id once, its last) and why each rejected span was rejected. */
export interface Mapped {
  readonly spans: ReadonlyArray<Span>
  readonly rejections: ReadonlyArray<string>
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * An attribute's value as JSON: an int64 beyond 2^53 as its decimal text, bytes as base64, an
 * empty value `null`. Nested values arrive unchecked by the Schema: what is not an AnyValue (or a
 * KeyValue in a list) is `null` (or left out).
 */
export const jsonOf = (value: unknown): unknown => {
  if (!isRecord(value)) return null
  if (typeof value.stringValue === "string" || typeof value.boolValue === "boolean") return value.stringValue ?? value.boolValue
  if (typeof value.intValue === "string" || typeof value.intValue === "number") {
    const n = Number(value.intValue)
    return Number.isSafeInteger(n) ? n : String(value.intValue)
  }
  if (typeof value.doubleValue === "number" || typeof value.doubleValue === "string") return value.doubleValue
  if (typeof value.bytesValue === "string") return value.bytesValue
  if (isRecord(value.arrayValue)) return Array.isArray(value.arrayValue.values) ? value.arrayValue.values.map(jsonOf) : []
  if (isRecord(value.kvlistValue)) return objectOf(Array.isArray(value.kvlistValue.values) ? value.kvlistValue.values : [])
  return null
}

const objectOf = (attributes: ReadonlyArray<unknown> | undefined, prefix = ""): Record<string, unknown> =>
  Object.fromEntries(
    (attributes ?? []).flatMap((kv) => isRecord(kv) && typeof kv.key === "string" ? [[`${prefix}${kv.key}`, jsonOf(kv.value)]] : [])
  )

const spanTypes = new Set<string>(SpanType.literals)

/** OpenInference's span kinds that name a v5 span type. */
const openInferenceKinds: Readonly<Record<string, SpanType>> = {
  LLM: "COMPLETION",
  RETRIEVER: "KB_RETRIEVAL",
  RERANKER: "RERANKING",
  GUARDRAIL: "GUARDRAIL",
  EVALUATOR: "EVALUATION",
  AGENT: "AGENT_WORKFLOW"
}

/** GenAI semantic conventions' operations that are a completion. */
const completionOperations = new Set(["chat", "text_completion", "generate_content"])

/** `sgp.span_type` (one of the 25 types), else OpenInference's kind, else a GenAI completion, else none. */
const typeOf = (attributes: Record<string, unknown>): SpanType | null => {
  const own = attributes["sgp.span_type"]
  if (typeof own === "string" && spanTypes.has(own)) return own as SpanType
  const kind = attributes["openinference.span.kind"]
  if (typeof kind === "string" && openInferenceKinds[kind.toUpperCase()] !== undefined) return openInferenceKinds[kind.toUpperCase()]!
  const operation = attributes["gen_ai.operation.name"]
  if (typeof operation === "string" && completionOperations.has(operation)) return "COMPLETION"
  return null
}

/**
 * `input.value` / `output.value` (OpenInference) as the span's `input` / `output`: a JSON object
 * text as that object, any other value as `{value}`; taken out of the metadata.
 */
const takeValue = (attributes: Record<string, unknown>, side: "input" | "output"): Record<string, unknown> | null => {
  const key = `${side}.value`
  if (!(key in attributes)) return null
  const value = attributes[key]
  delete attributes[key]
  if (typeof value === "string" && value.trimStart().startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(value)
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>
    } catch {
      // not JSON after all: kept as text
    }
  }
  return { value }
}

const hexId = (bytes: number) => new RegExp(`^[0-9a-f]{${bytes * 2}}$`)
const traceIdPattern = hexId(16)
const spanIdPattern = hexId(8)
const zeros = /^0+$/

/** Unix nanoseconds as the ISO text the spans store answers (microseconds kept), or why not. */
const isoOf = (nanos: string | number | undefined, field: string): string => {
  let value: bigint
  try {
    value = BigInt(typeof nanos === "number" ? Math.trunc(nanos) : (nanos ?? "0"))
  } catch {
    throw new Error(`${field} is not an integer`)
  }
  if (value <= 0n) throw new Error(`${field} is missing`)
  const ms = Number(value / 1_000_000n)
  const us = Number((value / 1_000n) % 1_000n)
  const date = new Date(ms)
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() > 9999) throw new Error(`${field} is out of range`)
  return isoOfParts(ms, us)
}

const kinds = ["UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"]
const kindOf = (kind: OtlpSpan["kind"]) =>
  typeof kind === "number" ? kinds[kind] ?? String(kind) : kind?.replace(/^SPAN_KIND_/, "")

const isError = (code: string | number | undefined) => code === 2 || code === "STATUS_CODE_ERROR" || code === "2"

const validSpan = Schema.validateSync(Span)

/** One OTLP span as a v5 span; throws with the reason it cannot be one. */
const spanOf = (
  span: OtlpSpan,
  context: Record<string, unknown>,
  writer: Writer
): Span => {
  const traceId = span.traceId.toLowerCase()
  const id = span.spanId.toLowerCase()
  if (!traceIdPattern.test(traceId) || zeros.test(traceId)) throw new Error(`traceId ${JSON.stringify(span.traceId)} is not 32 hex digits, not all zero`)
  if (!spanIdPattern.test(id) || zeros.test(id)) throw new Error(`spanId ${JSON.stringify(span.spanId)} is not 16 hex digits, not all zero`)
  const parent = (span.parentSpanId ?? "").toLowerCase()
  if (parent !== "" && !spanIdPattern.test(parent)) throw new Error(`parentSpanId ${JSON.stringify(span.parentSpanId)} is not 16 hex digits`)
  const start = isoOf(span.startTimeUnixNano, "startTimeUnixNano")
  const endNanos = span.endTimeUnixNano === undefined || String(span.endTimeUnixNano) === "0" ? undefined : span.endTimeUnixNano
  const end = endNanos === undefined ? null : isoOf(endNanos, "endTimeUnixNano")
  if (end !== null && BigInt(String(endNanos)) < BigInt(String(span.startTimeUnixNano))) {
    throw new Error("endTimeUnixNano is before startTimeUnixNano")
  }
  const attributes = objectOf(span.attributes)
  const input = takeValue(attributes, "input")
  const output = takeValue(attributes, "output")
  const metadata: Record<string, unknown> = { ...context, ...attributes }
  const kind = kindOf(span.kind)
  if (kind !== undefined) metadata["otel.span_kind"] = kind
  if (span.status?.message) metadata["otel.status_message"] = span.status.message
  if (span.events !== undefined && span.events.length > 0) {
    metadata["otel.events"] = span.events.map((event) => ({
      name: event.name ?? "",
      time: event.timeUnixNano === undefined ? null : isoOf(event.timeUnixNano, "timeUnixNano"),
      attributes: objectOf(event.attributes)
    }))
  }
  if (span.links !== undefined && span.links.length > 0) {
    metadata["otel.links"] = span.links.map((link) => ({
      trace_id: link.traceId ?? "",
      span_id: link.spanId ?? "",
      attributes: objectOf(link.attributes)
    }))
  }
  return validSpan(
    new Span({
      id,
      account_id: writer.account_id,
      name: span.name ?? "",
      start_timestamp: start,
      trace_id: traceId,
      application_interaction_id: null,
      application_variant_id: null,
      created_by: writer.created_by,
      end_timestamp: end,
      group_id: null,
      input,
      metadata,
      object: "span",
      output,
      parent_id: parent === "" || zeros.test(parent) ? null : parent,
      status: isError(span.status?.code) ? "ERROR" : "SUCCESS",
      type: typeOf(attributes)
    }, true)
  )
}

/**
 * The spans of a request, in order (a repeated span id counts once, as its last span, at the
 * place of its last span, as `PUT /v5/spans/batch` does), and the reason of each rejected one.
 */
export const spansOfRequest = (request: ExportTraceServiceRequest, writer: Writer): Mapped => {
  const byId = new Map<string, Span>()
  const rejections: Array<string> = []
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = objectOf(resourceSpans.resource?.attributes, "resource.")
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      const scope = scopeSpans.scope
      const context: Record<string, unknown> = {
        ...resource,
        ...objectOf(scope?.attributes, "otel.scope."),
        ...(scope?.name ? { "otel.scope.name": scope.name } : {}),
        ...(scope?.version ? { "otel.scope.version": scope.version } : {})
      }
      for (const span of scopeSpans.spans ?? []) {
        try {
          const stored = spanOf(span, context, writer)
          byId.delete(stored.id)
          byId.set(stored.id, stored)
        } catch (error) {
          rejections.push(`span ${JSON.stringify(span.spanId)}: ${error instanceof Error ? error.message : String(error)}`)
        }
      }
    }
  }
  return { spans: [...byId.values()], rejections }
}
