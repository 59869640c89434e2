/**
 * Spans (v5; docs/spans.md): the units of work of a trace, as the platform's SDK tracer and any
 * client send them. A span's id is chosen by the client (a UUID when it sends none) and is unique
 * within an account; a trace is the spans sharing a `trace_id`.
 */
import { Schema } from "effect"
import { DateTimeString, Id, Identity, JsonObject, NonEmptyString, Nullable, Optional, V5List } from "./common.js"

export const SpanStatus = Schema.Literal("SUCCESS", "ERROR", "CANCELED").annotations({ identifier: "SpanStatus" })
export type SpanStatus = typeof SpanStatus.Type

export const SpanType = Schema.Literal(
  "TEXT_INPUT",
  "TEXT_OUTPUT",
  "COMPLETION_INPUT",
  "COMPLETION",
  "KB_RETRIEVAL",
  "KB_INPUT",
  "RERANKING",
  "EXTERNAL_ENDPOINT",
  "PROMPT_ENGINEERING",
  "DOCUMENT_INPUT",
  "MAP_REDUCE",
  "DOCUMENT_SEARCH",
  "DOCUMENT_PROMPT",
  "CUSTOM",
  "CODE_EXECUTION",
  "DATA_MANIPULATION",
  "EVALUATION",
  "FILE_RETRIEVAL",
  "KB_ADD_CHUNK",
  "KB_MANAGEMENT",
  "GUARDRAIL",
  "TRACER",
  "AGENT_TRACER",
  "AGENT_WORKFLOW",
  "STANDALONE"
).annotations({ identifier: "SpanType" })
export type SpanType = typeof SpanType.Type

/** How many spans one batch (POST or PUT `/v5/spans/batch`) may carry. */
export const maxSpansPerBatch = 1000

/** How many ids a search may name in `trace_ids`, `span_ids`, `excluded_span_ids` and `excluded_trace_ids` together. */
export const maxSearchIds = 10_000

/** A span as the platform answers it; every field present, `null` when it has no value. */
export class Span extends Schema.Class<Span>("Span")({
  id: Id,
  account_id: Id,
  name: Schema.String,
  start_timestamp: DateTimeString,
  trace_id: Schema.String,
  application_interaction_id: Nullable(Schema.String),
  application_variant_id: Nullable(Schema.String),
  /** The identity whose key stored the span (its last write). */
  created_by: Identity,
  end_timestamp: Nullable(DateTimeString),
  group_id: Nullable(Schema.String),
  input: Nullable(JsonObject),
  metadata: Nullable(JsonObject),
  object: Schema.Literal("span"),
  output: Nullable(JsonObject),
  parent_id: Nullable(Schema.String),
  status: Nullable(SpanStatus),
  type: Nullable(SpanType)
}) {}

const spanCreateFields = {
  name: Schema.String,
  start_timestamp: DateTimeString,
  trace_id: NonEmptyString,
  /** Client-chosen; a UUID v4 when absent. */
  id: Optional(NonEmptyString),
  application_interaction_id: Optional(Schema.String),
  application_variant_id: Optional(Schema.String),
  end_timestamp: Optional(DateTimeString),
  group_id: Optional(Schema.String),
  input: Optional(JsonObject),
  output: Optional(JsonObject),
  metadata: Optional(JsonObject),
  parent_id: Optional(Schema.String),
  status: Optional(SpanStatus),
  type: Optional(SpanType)
} as const

/** An end before the start: a 422 `value_error` at `end_timestamp`. */
const endBeforeStart = (span: { readonly start_timestamp: string; readonly end_timestamp?: string | undefined }) =>
  span.end_timestamp !== undefined && Date.parse(span.end_timestamp) < Date.parse(span.start_timestamp)
    ? { path: ["end_timestamp"], message: "end_timestamp must not be before start_timestamp" }
    : undefined

/** `POST /v5/spans` and an item of either batch. */
export const SpanCreate = Schema.Struct(spanCreateFields).pipe(Schema.filter(endBeforeStart)).annotations({
  identifier: "SpanCreate"
})
export type SpanCreate = typeof SpanCreate.Type

/** `POST /v5/spans/batch` (insert only) and `PUT /v5/spans/batch` (insert or replace by id): at most 1000 items. */
export class SpanBatch extends Schema.Class<SpanBatch>("SpanBatch")({
  items: Schema.Array(SpanCreate).pipe(Schema.maxItems(maxSpansPerBatch))
}) {}

/** What both batches answer: the spans as stored, in request order (a repeated id once, at its last place). */
export const SpanBatchResponse = Schema.Struct({
  items: Schema.Array(Span),
  object: Schema.Literal("list")
}).annotations({ identifier: "SpanBatchResponse" })

/** `PATCH /v5/spans/{span_id}`: the fields given change, the others stay (`null` = not given). */
export class SpanUpdate extends Schema.Class<SpanUpdate>("SpanUpdate")({
  end_timestamp: Optional(DateTimeString),
  metadata: Optional(JsonObject),
  name: Optional(Schema.String),
  output: Optional(JsonObject),
  status: Optional(SpanStatus)
}) {}

const V5Limit = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 10000))

/**
 * The query of `POST /v5/spans/search`: cursors (`starting_after` / `ending_before`, a span id),
 * `limit` (1–10000, default 100), `sort_by` (`start_timestamp`, the only order), `sort_order`
 * (default `desc`, newest first) and the window `[from_ts, to_ts]` on `start_timestamp`
 * (`from_ts` after `to_ts`: 422 at `["query","from_ts"]`).
 */
export const SpanSearchQuery = Schema.Struct({
  limit: Schema.optionalWith(V5Limit, { exact: true }),
  starting_after: Schema.optionalWith(Id, { exact: true }),
  ending_before: Schema.optionalWith(Id, { exact: true }),
  sort_order: Schema.optionalWith(Schema.Literal("asc", "desc"), { exact: true }),
  sort_by: Schema.optionalWith(Schema.Literal("start_timestamp"), { exact: true }),
  from_ts: Schema.optionalWith(DateTimeString, { exact: true }),
  to_ts: Schema.optionalWith(DateTimeString, { exact: true })
}).pipe(
  Schema.filter((query) =>
    query.from_ts !== undefined && query.to_ts !== undefined && Date.parse(query.from_ts) > Date.parse(query.to_ts)
      ? { path: ["from_ts"], message: "from_ts must not be after to_ts" }
      : undefined
  )
)

const Strings = Optional(Schema.Array(Schema.String))
const DurationMs = Optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)))

/**
 * The filters of `POST /v5/spans/search` (JSON body, all optional, AND-ed; within a list, any of
 * its values matches). `trace_ids`, `span_ids`, `excluded_span_ids` and `excluded_trace_ids`
 * together name at most 10,000 ids (else a 422 at `["body","span_ids"]`).
 */
export class SpanSearchBody extends Schema.Class<SpanSearchBody>("SpanSearchBody")(
  Schema.Struct({
    acp_types: Strings,
    agentex_agent_ids: Strings,
    agentex_agent_names: Strings,
    application_variant_ids: Strings,
    assessment_types: Strings,
    excluded_span_ids: Strings,
    excluded_trace_ids: Strings,
    extra_metadata: Optional(JsonObject),
    group_id: Optional(Schema.String),
    max_duration_ms: DurationMs,
    min_duration_ms: DurationMs,
    names: Strings,
    parents_only: Optional(Schema.Boolean),
    search_texts: Strings,
    span_ids: Strings,
    trace_ids: Strings,
    statuses: Optional(Schema.Array(SpanStatus)),
    types: Optional(Schema.Array(SpanType))
  }).pipe(
    Schema.filter((body) =>
      [body.trace_ids, body.span_ids, body.excluded_span_ids, body.excluded_trace_ids]
          .reduce((sum, ids) => sum + (ids?.length ?? 0), 0) > maxSearchIds
        ? {
          path: ["span_ids"],
          message: `trace_ids, span_ids, excluded_span_ids and excluded_trace_ids name at most ${maxSearchIds} ids together`
        }
        : undefined
    )
  )
) {}

/** A page of a search: the v5 cursor envelope; `total` is always 0 (the platform does not count spans). */
export const SpanSearchPage = V5List(Span).annotations({ identifier: "SpanSearchPage" })
