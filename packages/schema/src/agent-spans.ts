/**
 * Agentex's spans (docs/agent-tasks.md "Spans"): the spans of agents' traces under agentex's
 * `/spans`, in agentex's shape (`start_time`, `end_time`, `data`, `task_id`). They are the v5
 * spans of the same account (docs/spans.md), one store: a span written here is found by
 * `POST /v5/spans/search`, and a v5 span is read here.
 */
import { Schema } from "effect"
import { AgentexPage } from "./agent-tasks.js"
import { DateTimeString, Id, JsonObject, NonEmptyString, Nullable, Optional } from "./common.js"

/** What agentex's `input`, `output` and `data` hold: a JSON object or an array of them. */
export const AgentSpanValue = Schema.Union(JsonObject, Schema.Array(JsonObject)).annotations({ identifier: "AgentSpanValue" })
export type AgentSpanValue = typeof AgentSpanValue.Type

/** A span as agentex answers it; every field present, `null` when it has no value. */
export class AgentSpan extends Schema.Class<AgentSpan>("AgentSpan")({
  id: Id,
  name: Schema.String,
  start_time: DateTimeString,
  trace_id: Schema.String,
  data: Nullable(AgentSpanValue),
  end_time: Nullable(DateTimeString),
  input: Nullable(AgentSpanValue),
  output: Nullable(AgentSpanValue),
  parent_id: Nullable(Schema.String),
  task_id: Nullable(Schema.String)
}) {}

/** An end before the start: a 422 `value_error` at `end_time` (as the v5 spans refuse one). */
const endBeforeStart = (span: { readonly start_time?: string | null | undefined; readonly end_time?: string | null | undefined }) =>
  typeof span.start_time === "string" && typeof span.end_time === "string" && Date.parse(span.end_time) < Date.parse(span.start_time)
    ? { path: ["end_time"], message: "end_time must not be before start_time" }
    : undefined

/** `POST /spans`: `id` is the caller's (a UUID v4 when absent). */
export const CreateAgentSpan = Schema.Struct({
  name: Schema.String,
  start_time: DateTimeString,
  trace_id: NonEmptyString,
  id: Optional(NonEmptyString),
  parent_id: Optional(Schema.String),
  task_id: Optional(Schema.String),
  end_time: Optional(DateTimeString),
  input: Optional(AgentSpanValue),
  output: Optional(AgentSpanValue),
  data: Optional(AgentSpanValue)
}).pipe(Schema.filter(endBeforeStart)).annotations({ identifier: "CreateAgentSpan" })
export type CreateAgentSpan = typeof CreateAgentSpan.Type

/**
 * `PATCH /spans/{span_id}`: only the fields given and not `null` change (a field cannot be
 * cleared); `data` is merged member by member into an object it replaces otherwise.
 */
export const UpdateAgentSpan = Schema.Struct({
  name: Optional(Schema.String),
  start_time: Optional(DateTimeString),
  trace_id: Optional(NonEmptyString),
  end_time: Optional(DateTimeString),
  input: Optional(AgentSpanValue),
  output: Optional(AgentSpanValue),
  data: Optional(AgentSpanValue),
  parent_id: Optional(Schema.String),
  task_id: Optional(Schema.String)
}).pipe(Schema.filter(endBeforeStart)).annotations({ identifier: "UpdateAgentSpan" })
export type UpdateAgentSpan = typeof UpdateAgentSpan.Type

/**
 * `GET /spans`: a page (`limit` 1–1000, default 50; `page_number` from 1) of the caller's spans,
 * newest start first by default; `trace_id` filters, `task_id` matches the span's task or its
 * trace (agentex kept the task's id in `trace_id`). `order_by`: `start_time` (default), `name`
 * or `id` (another value: 422, as every agentex list of the kit), ties by id.
 */
export const AgentSpansListQuery = Schema.Struct({
  ...AgentexPage(["start_time", "name", "id"]),
  trace_id: Schema.optionalWith(Schema.String, { exact: true }),
  task_id: Schema.optionalWith(Schema.String, { exact: true })
})
