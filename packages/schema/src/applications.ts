/**
 * Applications: deployments, graph validation, usage interactions (docs/decisions.md "Resources
 * created here") and scalar metrics (docs/applications.md).
 */
import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import {
  AuditFields,
  DateTimeString,
  Id,
  JsonObject,
  NonEmptyString,
  Nullable,
  Optional,
  QueryArray,
  V4PageQuery
} from "./common.js"
import { errorTag } from "./errors.js"

const NonNegativeInt = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))

// ---------------------------------------------------------------------------------------------
// Application deployments

export const ApplicationDeploymentStatus = Schema.Literal("PENDING", "READY", "FAILED", "STOPPED").annotations({
  identifier: "ApplicationDeploymentStatus"
})
export type ApplicationDeploymentStatus = typeof ApplicationDeploymentStatus.Type

export class ApplicationDeployment extends Schema.Class<ApplicationDeployment>("ApplicationDeployment")({
  id: Id,
  name: Schema.String,
  endpoint: Schema.String,
  application_variant_id: Id,
  status: ApplicationDeploymentStatus,
  is_active: Schema.Boolean,
  ...AuditFields
}) {}

/** All five fields are required (docs/applications.md). */
export class CreateApplicationDeployment extends Schema.Class<CreateApplicationDeployment>(
  "CreateApplicationDeployment"
)({
  name: NonEmptyString,
  endpoint: NonEmptyString,
  application_variant_id: NonEmptyString,
  is_active: Schema.Boolean,
  account_id: Id
}) {}

/**
 * `PATCH /v4/application-deployments/{id}` (the real SDK's `application_deployments.update`):
 * either field may be left out. `is_active: false` stops the deployment (`STOPPED`); `true` on a
 * deployment that is stopped or failed deploys it again (`PENDING`, then `READY`):
 * docs/applications.md.
 */
export class UpdateApplicationDeployment extends Schema.Class<UpdateApplicationDeployment>(
  "UpdateApplicationDeployment"
)({
  name: Optional(NonEmptyString),
  is_active: Optional(Schema.Boolean)
}) {}

// ---------------------------------------------------------------------------------------------
// Application graph validation

/**
 * A node of the graph. `configuration` is optional (the minimal call of existing clients sends
 * `{id, application_node_schema_id}` only); absent and `null` both mean "none".
 */
export class ApplicationNode extends Schema.Class<ApplicationNode>("ApplicationNode")({
  id: Schema.String,
  configuration: Optional(JsonObject),
  application_node_schema_id: Schema.String
}) {}

export class ApplicationEdge extends Schema.Class<ApplicationEdge>("ApplicationEdge")({
  from_node: Schema.String,
  to_node: Schema.String,
  from_field: Schema.String,
  to_field: Schema.String
}) {}

/** One recorded operation replayed into a run (an item of `partial_trace`). */
export class PartialTraceItem extends Schema.Class<PartialTraceItem>("PartialTraceItem")({
  workflow_id: Schema.String,
  node_id: Schema.String,
  operation_type: Schema.String,
  start_timestamp: Schema.String,
  operation_input: Schema.String,
  operation_output: Schema.String,
  duration_ms: Schema.Int,
  operation_metadata: Optional(JsonObject)
}) {}

/** Overrides exactly as the platform lists them; every field optional (an override overrides only what it names). */
export class ApplicationOverrides extends Schema.Class<ApplicationOverrides>("ApplicationOverrides")({
  concurrent: Optional(Schema.Boolean),
  use_channels: Optional(Schema.Boolean),
  partial_trace: Optional(Schema.Array(PartialTraceItem)),
  return_span: Optional(Schema.Boolean)
}) {}

/** The keys that make an `overrides` object an `Overrides`. */
export const OverridesKeys = ["concurrent", "use_channels", "partial_trace", "return_span"] as const

/**
 * The fields of AgenticApplicationOverrides are not shown in the platform's reference: any JSON
 * object that carries none of `Overrides`' keys is accepted as one. An object carrying one of
 * those keys is an `Overrides` and is checked as one (a wrong `concurrent` or
 * `partial_trace[].duration_ms` is a 422 at that field), rather than being swallowed by this open
 * member.
 */
export const AgenticApplicationOverrides = JsonObject.pipe(
  Schema.filter((o) => !OverridesKeys.some((k) => Object.prototype.hasOwnProperty.call(o, k)), {
    message: () => `An object with any of ${OverridesKeys.join(", ")} is an Overrides`
  })
).annotations({ identifier: "AgenticApplicationOverrides" })

export class ValidateApplication extends Schema.Class<ValidateApplication>("ValidateApplication")({
  nodes: Schema.Array(ApplicationNode),
  edges: Schema.Array(ApplicationEdge),
  version: Schema.Literal("V0"),
  overrides: Optional(Schema.Union(ApplicationOverrides, AgenticApplicationOverrides))
}) {}

/** The body of a valid graph (docs/decisions.md "Errors"). */
export class ApplicationValid extends Schema.Class<ApplicationValid>("ApplicationValid")({
  valid: Schema.Literal(true)
}) {}

/** The error codes the validator reports (docs/applications.md). */
export const ApplicationErrorCode = Schema.Literal(
  "INVALID_APPLICATION_NO_INPUT_NODE",
  "INVALID_APPLICATION_DUPLICATE_NODE_ID",
  "INVALID_APPLICATION_UNKNOWN_NODE",
  "INVALID_APPLICATION_CYCLE",
  /** No output node: nothing to answer with (processing only). */
  "INVALID_APPLICATION_NO_OUTPUT_NODE",
  /** A node kind the kit does not run (processing only; `GET /v4/application-schemas` lists those it runs). */
  "INVALID_APPLICATION_UNSUPPORTED_NODE",
  /** A node's configuration misses a required field or has one of the wrong type (processing only). */
  "INVALID_APPLICATION_NODE_CONFIGURATION"
)
export type ApplicationErrorCode = typeof ApplicationErrorCode.Type

/** One problem of an invalid graph; `error_code` is a string on the wire so new codes decode. */
export class ApplicationGraphError extends Schema.Class<ApplicationGraphError>("ApplicationGraphError")({
  error_code: Schema.String,
  message: Schema.String
}) {}

/** 400: the graph is invalid; every problem at once (docs/decisions.md "Errors"). */
export class ApplicationGraphInvalid extends Schema.Class<ApplicationGraphInvalid>("ApplicationGraphInvalid")(
  {
    _tag: errorTag("ApplicationGraphInvalid"),
    errors: Schema.Array(ApplicationGraphError),
    service_error_code: Schema.Literal("APPLICATION_BUILDER_VALIDATION_ERROR")
  },
  HttpApiSchema.annotations({ status: 400, description: "Application graph invalid" })
) {}

// ---------------------------------------------------------------------------------------------
// Interactions (usage records the metrics are computed from)

export const InteractionFeedback = Schema.Literal("thumbs_up", "thumbs_down").annotations({
  identifier: "InteractionFeedback"
})
export type InteractionFeedback = typeof InteractionFeedback.Type

/** Where an interaction came from: recorded from outside, an evaluation, a chat thread, an agent service. */
export const InteractionSource = Schema.Literal("EXTERNAL_AI", "EVALUATION", "SGP_CHAT", "AGENTS_SERVICE").annotations({
  identifier: "InteractionSource"
})

/** How long one node of the graph took within an interaction. */
export class NodeLatency extends Schema.Class<NodeLatency>("NodeLatency")({
  node_id: NonEmptyString,
  duration_ms: NonNegativeInt
}) {}

export class ApplicationInteraction extends Schema.Class<ApplicationInteraction>("ApplicationInteraction")({
  id: Id,
  application_spec_id: Id,
  application_variant_id: Id,
  start_timestamp: DateTimeString,
  duration_ms: Schema.Int,
  input_tokens: Schema.Int,
  output_tokens: Schema.Int,
  /** The error message of a failed interaction; `null` when it succeeded. */
  error: Nullable(Schema.String),
  /** The end user of the application (not the API caller). */
  user_id: Nullable(Schema.String),
  node_latencies: Schema.Array(NodeLatency),
  feedback: Nullable(InteractionFeedback),
  // what a process or `POST /v4/interactions/` recorded (defaults: rows recorded before they were kept)
  /** What the application was asked: a process's `inputs`, an outside interaction's `input`. */
  input: Schema.optionalWith(JsonObject, { default: () => ({}) }),
  /** What it answered: the output node's fields, an outside interaction's `output`. */
  output: Schema.optionalWith(JsonObject, { default: () => ({}) }),
  operation_metadata: Schema.optionalWith(Schema.NullOr(JsonObject), { default: () => null }),
  /** The chat thread the interaction is a message of. */
  chat_thread_id: Schema.optionalWith(Schema.NullOr(Id), { default: () => null }),
  interaction_source: Schema.optionalWith(Schema.NullOr(InteractionSource), { default: () => null }),
  ...AuditFields
}) {}

export class RecordInteraction extends Schema.Class<RecordInteraction>("RecordInteraction")({
  application_variant_id: NonEmptyString,
  start_timestamp: DateTimeString,
  duration_ms: NonNegativeInt,
  input_tokens: NonNegativeInt,
  output_tokens: NonNegativeInt,
  /** A failed interaction names its error; absent or `null` means it succeeded. */
  error: Optional(NonEmptyString),
  user_id: Optional(NonEmptyString),
  node_latencies: Optional(Schema.Array(NodeLatency)),
  feedback: Optional(InteractionFeedback),
  account_id: Optional(Id)
}) {}

// ---------------------------------------------------------------------------------------------
// Scalar metrics

export const MetricId = Schema.Literal(
  "total_requests",
  "total_errors",
  "total_tokens",
  "average_latency",
  "p95_latency",
  "error_rate",
  "average_users",
  "aggregated_tokens",
  "feedback",
  "execution_input_response_tokens",
  "execution_average_latency_per_variant",
  "execution_error_rate",
  "execution_latency_percentile",
  "execution_average_latency_per_node",
  // the ids of online evaluation and guardrails: nothing the kit records scores them (always 0)
  "average_faithfulness",
  "average_relevance",
  "engagement_faithfulness",
  "engagement_relevance",
  "total_guardrail_triggers",
  "guardrail_triggers_timeseries",
  "guardrail_severity_timeseries"
).annotations({ identifier: "MetricId" })
export type MetricId = typeof MetricId.Type

export class ScalarMetric extends Schema.Class<ScalarMetric>("ScalarMetric")({
  value: Schema.Number,
  unit: Schema.String
}) {}

/** Unix time in seconds (fractions allowed), from 1970 to the end of year 9999. */
const Seconds = Schema.NumberFromString.pipe(Schema.finite(), Schema.between(0, 253402300799))

/** Which tokens `execution_input_response_tokens` averages. */
export const TokenType = Schema.Literal("input", "response", "total").annotations({ identifier: "TokenType" })
export type TokenType = typeof TokenType.Type

/**
 * The query of a scalar metric. A window whose `to_ts` is before its `from_ts` is a 422 at
 * `["query","to_ts"]`, checked by the handler: the shared issue mapper does not yet carry a filter's
 * `path` into `loc`.
 */
export const MetricQuery = Schema.Struct({
  /** Only these variants (any of them); absent or empty: every variant. */
  variants: Schema.optionalWith(QueryArray(Schema.String), { exact: true }),
  /** Oldest end of the window, inclusive, on the interaction start time. */
  from_ts: Schema.optionalWith(Seconds, { exact: true }),
  /** Most recent end of the window, inclusive. */
  to_ts: Schema.optionalWith(Seconds, { exact: true }),
  account_id: V4PageQuery.account_id,
  /** `execution_input_response_tokens` only (default `total`). */
  token_type: Schema.optionalWith(TokenType, { exact: true }),
  /** `execution_latency_percentile` only: 1–100 (default 50). */
  percentile: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100)), {
    exact: true
  }),
  /** `execution_average_latency_per_node` only: that node's average instead of the slowest node's. */
  node_id: Schema.optionalWith(Schema.String, { exact: true })
})
