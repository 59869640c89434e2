/**
 * Chat threads of an application variant, their messages (the interactions recorded in them, as
 * the platform's `ApplicationInteraction`), feedback, and interactions recorded from outside
 * (`POST /v4/interactions/`): docs/applications.md "Threads" and "Interactions from outside".
 */
import { Schema } from "effect"
import { AgentOperationType } from "./application-specs.js"
import { InteractionSource } from "./applications.js"
import { DateTimeString, Id, JsonObject, NonEmptyString, Nullable, Optional, QueryBoolean } from "./common.js"

export const OperationStatus = Schema.Literal("SUCCESS", "ERROR").annotations({ identifier: "OperationStatus" })

/** One step of an interaction: a node of the graph that ran, or a span recorded from outside. */
export class MessageSpan extends Schema.Class<MessageSpan>("MessageSpan")({
  id: Id,
  application_interaction_id: Id,
  node_id: Schema.String,
  operation_type: AgentOperationType,
  operation_status: OperationStatus,
  start_timestamp: DateTimeString,
  duration_ms: Schema.Int,
  operation_input: Nullable(JsonObject),
  operation_output: Nullable(JsonObject),
  operation_metadata: Nullable(JsonObject),
  operation_expected: Nullable(JsonObject)
}) {}

/** An interaction as the platform's chat endpoints answer it (`entry` of a message). */
export class InteractionEntry extends Schema.Class<InteractionEntry>("ApplicationInteractionEntry")({
  id: Id,
  application_spec_id: Id,
  application_variant_id: Id,
  /** Whether it has been exported to an object store: the kit exports nothing, `false`. */
  aggregated: Schema.Boolean,
  created_at: DateTimeString,
  start_timestamp: DateTimeString,
  duration_ms: Schema.Int,
  input: JsonObject,
  output: JsonObject,
  operation_status: OperationStatus,
  operation_metadata: Nullable(JsonObject),
  chat_thread_id: Nullable(Id),
  interaction_source: Nullable(InteractionSource)
}) {}

export class ChatThread extends Schema.Class<ChatThread>("ChatThread")({
  id: Id,
  account_id: Id,
  application_variant_id: Id,
  title: Schema.String,
  created_at: DateTimeString,
  updated_at: DateTimeString,
  created_by_user_id: Id,
  archived_at: Nullable(DateTimeString),
  thread_metadata: Nullable(JsonObject)
}) {}

export class UpdateChatThread extends Schema.Class<UpdateChatThread>("UpdateChatThread")({
  /** A date-time archives the thread; `null` restores it. */
  archived_at: Schema.optionalWith(Schema.NullOr(DateTimeString), { exact: true }),
  thread_metadata: Optional(JsonObject),
  title: Optional(Schema.String)
}) {}

export const FeedbackSentiment = Schema.Literal("positive", "negative").annotations({ identifier: "FeedbackSentiment" })

export class ChatThreadFeedback extends Schema.Class<ChatThreadFeedback>("ChatThreadFeedback")({
  id: Id,
  application_interaction_id: Id,
  chat_thread_id: Id,
  created_at: DateTimeString,
  description: Schema.String,
  sentiment: FeedbackSentiment
}) {}

/** Feedback on a message (a kit extension: the SDK reads feedback and deletes it, but has no create). */
export class CreateFeedback extends Schema.Class<CreateFeedback>("CreateFeedback")({
  sentiment: FeedbackSentiment,
  description: Optional(Schema.String)
}) {}

export class ThreadMessage extends Schema.Class<ThreadMessage>("ThreadMessage")({
  entry: InteractionEntry,
  feedback: Nullable(ChatThreadFeedback),
  /** Only with `fetch_spans=true`. */
  spans: Schema.optionalWith(Schema.Array(MessageSpan), { exact: true })
}) {}

export class ChatThreadHistory extends Schema.Class<ChatThreadHistory>("ChatThreadHistory")({
  application_spec_id: Id,
  messages: Schema.Array(ThreadMessage),
  thread: ChatThread
}) {}

/** `fetch_by_account`: any thread of the caller's accounts, not only the caller's own. */
export const ThreadLookupQuery = Schema.Struct({
  fetch_by_account: Schema.optionalWith(QueryBoolean, { exact: true })
})

export const ThreadMessagesQuery = Schema.Struct({
  fetch_by_account: Schema.optionalWith(QueryBoolean, { exact: true }),
  fetch_spans: Schema.optionalWith(QueryBoolean, { exact: true })
})

export class UpdateThreadMessage extends Schema.Class<UpdateThreadMessage>("UpdateThreadMessage")({
  /** Replaces the answer's text (`output-text` of a processed answer, `response` of one recorded from outside). */
  output_text: Optional(Schema.String)
}) {}

export class Deleted extends Schema.Class<Deleted>("Deleted")({
  id: Id,
  deleted: Schema.Literal(true)
}) {}

// ---------------------------------------------------------------------------------------------
// Interactions recorded from outside

export class TraceSpanInput extends Schema.Class<TraceSpanInput>("TraceSpanInput")({
  node_id: NonEmptyString,
  operation_type: Schema.Literal("COMPLETION", "RERANKING", "RETRIEVAL", "CUSTOM"),
  start_timestamp: DateTimeString,
  duration_ms: Optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))),
  operation_input: Optional(JsonObject),
  operation_output: Optional(JsonObject),
  operation_metadata: Optional(JsonObject),
  operation_status: Optional(OperationStatus)
}) {}

export class CreateInteraction extends Schema.Class<CreateInteraction>("CreateInteraction")({
  application_variant_id: NonEmptyString,
  /** `{query}` or any object. */
  input: JsonObject,
  /** `{response, context?}` or any object. */
  output: JsonObject,
  start_timestamp: DateTimeString,
  duration_ms: Optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))),
  /** Refused unless empty: the kit keeps no guardrails (docs/applications.md). */
  guardrail_results: Optional(Schema.Array(JsonObject)),
  operation_metadata: Optional(JsonObject),
  operation_status: Optional(OperationStatus),
  /** A thread of the variant; no thread with this id: one is created. */
  thread_id: Optional(NonEmptyString),
  trace_spans: Optional(Schema.Array(TraceSpanInput))
}) {}

export class TraceSpanEntity extends Schema.Class<TraceSpanEntity>("TraceSpanEntity")({
  id: Id,
  application_interaction_id: Id,
  node_id: Schema.String,
  operation_type: Schema.String,
  start_timestamp: DateTimeString,
  duration_ms: Schema.Int,
  operation_input: Nullable(JsonObject),
  operation_output: Nullable(JsonObject),
  operation_metadata: Nullable(JsonObject),
  operation_status: OperationStatus
}) {}

export class InteractionCreated extends Schema.Class<InteractionCreated>("InteractionCreateResponse")({
  id: Id,
  application_variant_id: Id,
  input: JsonObject,
  output: JsonObject,
  start_timestamp: DateTimeString,
  duration_ms: Schema.Int,
  guardrail_results: Schema.Array(JsonObject),
  operation_metadata: Nullable(JsonObject),
  operation_status: OperationStatus,
  thread_id: Nullable(Id),
  trace_spans: Schema.Array(TraceSpanEntity)
}) {}
