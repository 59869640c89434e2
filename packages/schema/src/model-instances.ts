/**
 * The model registry: model instances, the parents of model deployments
 * (the real v4 SDK's; docs/models.md "The model registry (`/v4/models`)").
 */
import { JSONSchema, Schema } from "effect"
import { AuditFields, Id, JsonObject, NonEmptyString, Nullable, OnlyWithView, Optional, QueryArray, SortKeys, V4PageQuery } from "./common.js"
import { ModelGroup } from "./model-groups.js"
import { ModelDeployment } from "./models.js"

export const ModelType = Schema.Literal("COMPLETION", "CHAT_COMPLETION", "AGENT", "EMBEDDING", "RERANKING", "GENERIC")
  .annotations({ identifier: "ModelType" })
export type ModelType = typeof ModelType.Type

/** Who makes the model (`model_vendor`): not to be confused with a deployment's `vendor_configuration.vendor`. */
export const ModelInstanceVendor = Schema.Literal(
  "OPENAI",
  "COHERE",
  "GOOGLE",
  "VERTEX_AI",
  "ANTHROPIC",
  "LAUNCH",
  "LLMENGINE",
  "BEDROCK",
  "OTHER"
).annotations({ identifier: "ModelInstanceVendor" })

export const UiModelSectionType = Schema.Literal("PARTNER", "OPENSOURCE", "CUSTOM").annotations({ identifier: "UiModelSectionType" })

/** `base_model_metadata.modelDetails` (the wire key; the SDK's attribute is `model_details`). */
export const ModelDetails = Schema.Struct({
  alignments: Schema.optionalWith(Schema.Unknown, { exact: true }),
  languages: Schema.optionalWith(Schema.Unknown, { exact: true }),
  number_of_parameters: Schema.optionalWith(Schema.Unknown, { exact: true }),
  token_context_window: Schema.optionalWith(Schema.Int, { exact: true })
}).annotations({ identifier: "ModelDetails" })

/** What a model's card says of its base model; every field optional, kept as given. */
export const BaseModelMetadata = Schema.Struct({
  delivery_date: Schema.optionalWith(Schema.String, { exact: true }),
  model_developer: Schema.optionalWith(Schema.String, { exact: true }),
  model_license_url: Schema.optionalWith(Schema.String, { exact: true }),
  modelDetails: Schema.optionalWith(ModelDetails, { exact: true }),
  ui_model_section_type: Schema.optionalWith(UiModelSectionType, { exact: true })
}).annotations({ identifier: "BaseModelMetadata" })

/** The fields a create gives and an update may change, with their value (absent: none). */
const DescriptiveFields = {
  base_model_id: Nullable(Schema.String),
  base_model_metadata: Nullable(BaseModelMetadata),
  description: Nullable(Schema.String),
  display_name: Nullable(Schema.String),
  model_card: Nullable(Schema.String),
  model_creation_parameters: Nullable(JsonObject),
  model_group_id: Nullable(Id),
  model_template_id: Nullable(Schema.String),
  model_vendor: Nullable(ModelInstanceVendor),
  training_data_card: Nullable(Schema.String)
} as const

/** A model as stored: what was given, and who made it when. */
export class StoredModelInstance extends Schema.Class<StoredModelInstance>("StoredModelInstance")({
  id: Id,
  name: Schema.String,
  model_type: ModelType,
  ...DescriptiveFields,
  ...AuditFields
}) {}

/**
 * A model as the API answers it: what was stored, with `deployment_count`, the JSON Schemas of
 * its execution's request and response, and `supports_multi_turn` (derived from `model_type`,
 * docs/models.md), and, with their views, `deployments` and `model_group`.
 */
export class ModelInstance extends Schema.Class<ModelInstance>("ModelInstance")({
  ...StoredModelInstance.fields,
  deployment_count: Schema.Int,
  request_schema: JsonObject,
  response_schema: JsonObject,
  supports_multi_turn: Schema.Boolean,
  deployments: OnlyWithView(Schema.Array(ModelDeployment)),
  model_group: OnlyWithView(ModelGroup)
}) {}

/**
 * A create. `model_type` is required unless `model_template_id` names a template, whose type is
 * then the default (docs/model-templates.md "A model from a template"): the 422 of a create
 * giving neither is the handler's, at `["body", "model_type"]`.
 */
export class CreateModelInstance extends Schema.Class<CreateModelInstance>("CreateModelInstance")({
  account_id: Id,
  model_type: Schema.optionalWith(ModelType, { exact: true }),
  name: NonEmptyString,
  base_model_id: Optional(Schema.String),
  base_model_metadata: Optional(BaseModelMetadata),
  description: Optional(Schema.String),
  display_name: Optional(Schema.String),
  model_card: Optional(Schema.String),
  model_creation_parameters: Optional(JsonObject),
  model_group_id: Optional(Id),
  model_template_id: Optional(Schema.String),
  model_vendor: Optional(ModelInstanceVendor),
  training_data_card: Optional(Schema.String)
}) {}

/** A field an update may clear: absent leaves it, `null` clears it. */
const Clearable = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(Schema.NullOr(schema), { exact: true })

/** An update: every field optional; absent leaves a field as it is, `null` clears an optional one. */
export class UpdateModelInstance extends Schema.Class<UpdateModelInstance>("UpdateModelInstance")({
  model_type: Schema.optionalWith(ModelType, { exact: true }),
  name: Schema.optionalWith(NonEmptyString, { exact: true }),
  base_model_id: Clearable(Schema.String),
  base_model_metadata: Clearable(BaseModelMetadata),
  description: Clearable(Schema.String),
  display_name: Clearable(Schema.String),
  model_card: Clearable(Schema.String),
  model_creation_parameters: Clearable(JsonObject),
  model_group_id: Clearable(Id),
  model_template_id: Clearable(Schema.String),
  model_vendor: Clearable(ModelInstanceVendor),
  training_data_card: Clearable(Schema.String)
}) {}

export const ModelInstanceView = Schema.Literal("Deployments", "ModelGroup").annotations({ identifier: "ModelInstanceView" })
export type ModelInstanceView = typeof ModelInstanceView.Type

const ViewQuery = { view: Schema.optionalWith(QueryArray(ModelInstanceView), { exact: true }) } as const

/** Query of a model read: its views (comma-joined or repeated). */
export const ModelInstanceGetQuery = Schema.Struct(ViewQuery)

/** The fields a model list sorts on (the SDK's `sort_by`). */
export const ModelInstanceSortFields = [
  "display_name",
  "model_vendor",
  "base_model_id",
  "base_model_metadata",
  "model_creation_parameters",
  "model_card",
  "training_data_card",
  "description",
  "model_template_id",
  "model_group_id",
  "model_group",
  "request_schema",
  "response_schema",
  "deployment_count",
  "supports_multi_turn",
  "deployments",
  "id",
  "created_at",
  "account_id",
  "created_by_user_id",
  "created_by_user",
  "name",
  "model_type"
] as const
export type ModelInstanceSortField = typeof ModelInstanceSortFields[number]

export const ModelInstanceSortKey = SortKeys(ModelInstanceSortFields, "ModelInstanceSortKey")
export type ModelInstanceSortKey = typeof ModelInstanceSortKey.Type

/** Query of the model list: a v4 page, filters, views, `sort_by` (applied in order, then newest first). */
export const ModelInstanceListQuery = Schema.Struct({
  ...V4PageQuery,
  model_group_id: Schema.optionalWith(Id, { exact: true }),
  model_type: Schema.optionalWith(ModelType, { exact: true }),
  ...ViewQuery,
  sort_by: Schema.optionalWith(QueryArray(Schema.compose(Schema.String, ModelInstanceSortKey, { strict: false })), { exact: true })
})
export type ModelInstanceListQuery = typeof ModelInstanceListQuery.Type

// ---------------------------------------------------------------------------------------------
// What a model of each type executes: the bodies of the per-deployment inference endpoints
// (docs/models.md "Execution"),
// as the JSON Schemas a model shows (`request_schema`, `response_schema`)

/** `model_request_parameters`: values bound into the model's prompt template. */
export const ParameterBindings = Schema.Struct({
  bindings: Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean) })
}).annotations({ identifier: "ParameterBindings" })

const GenerationFields = {
  chat_template: Schema.optionalWith(Schema.String, { exact: true }),
  chat_template_kwargs: Schema.optionalWith(JsonObject, { exact: true }),
  frequency_penalty: Schema.optionalWith(Schema.Number, { exact: true }),
  logprobs: Schema.optionalWith(Schema.Boolean, { exact: true }),
  max_tokens: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true }),
  model_request_parameters: Schema.optionalWith(ParameterBindings, { exact: true }),
  presence_penalty: Schema.optionalWith(Schema.Number, { exact: true }),
  stop_sequences: Schema.optionalWith(Schema.Array(Schema.String).pipe(Schema.maxItems(4)), { exact: true }),
  temperature: Schema.optionalWith(Schema.Number.pipe(Schema.between(0, 2)), { exact: true }),
  top_k: Schema.optionalWith(Schema.Number, { exact: true }),
  top_logprobs: Schema.optionalWith(Schema.Int, { exact: true }),
  top_p: Schema.optionalWith(Schema.Number, { exact: true }),
  stream: Schema.optionalWith(Schema.Boolean, { exact: true })
} as const

/** A message of a conversation: `content` text, or (a user's) parts. */
export const FlexibleMessage = Schema.Struct({
  role: Schema.optionalWith(Schema.Literal("user", "assistant", "system"), { exact: true }),
  content: Schema.Union(Schema.String, Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })))
}).annotations({ identifier: "FlexibleMessage" })

export const CompletionRequest = Schema.Struct({ prompt: Schema.String, ...GenerationFields }).annotations({
  identifier: "CompletionRequest"
})
export const ChatCompletionRequest = Schema.Struct({
  chat_history: Schema.Array(FlexibleMessage),
  prompt: Schema.String,
  ...GenerationFields
}).annotations({ identifier: "ChatCompletionRequest" })
export const EmbeddingRequest = Schema.Struct({
  texts: Schema.Array(Schema.String),
  model_request_parameters: Schema.optionalWith(ParameterBindings, { exact: true })
}).annotations({ identifier: "EmbeddingRequest" })
export const RerankingRequest = Schema.Struct({
  chunks: Schema.Array(Schema.String),
  query: Schema.String,
  model_request_parameters: Schema.optionalWith(ParameterBindings, { exact: true })
}).annotations({ identifier: "RerankingRequest" })

/** A generated token's log probability and its alternatives. */
export const TokenLogprob = Schema.Struct({
  token: Schema.String,
  logprob: Schema.Number,
  top_logprobs: Schema.Array(Schema.Struct({ token: Schema.String, logprob: Schema.Number })),
  bytes: Schema.optionalWith(Schema.Array(Schema.Int), { exact: true })
}).annotations({ identifier: "TokenLogprob" })

export const CompletionResponse = Schema.Struct({
  completions: Schema.Array(Schema.Array(Schema.Unknown)),
  /** When the request asked for `logprobs`: each generated token's. */
  choices: Schema.optionalWith(
    Schema.Array(Schema.Struct({
      index: Schema.Int,
      logprobs: Schema.optionalWith(Schema.Struct({ content: Schema.optionalWith(Schema.Array(TokenLogprob), { exact: true }) }), {
        exact: true
      })
    })),
    { exact: true }
  ),
  finish_reason: Schema.optionalWith(Schema.String, { exact: true }),
  prompt_tokens: Schema.optionalWith(Schema.Int, { exact: true }),
  response_tokens: Schema.optionalWith(Schema.Int, { exact: true })
}).annotations({ identifier: "CompletionResponse" })
export const EmbeddingResponse = Schema.Struct({
  embeddings: Schema.Array(Schema.Array(Schema.Unknown)),
  tokens_used: Schema.optionalWith(Schema.Int, { exact: true })
}).annotations({ identifier: "EmbeddingResponse" })
export const RerankingResponse = Schema.Struct({
  chunk_scores: Schema.Array(Schema.Number),
  tokens_used: Schema.optionalWith(Schema.Int, { exact: true })
}).annotations({ identifier: "RerankingResponse" })

/** Anything: the request and response of a model of type AGENT or GENERIC. */
const AnyObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const bodies: Record<ModelType, readonly [Schema.Schema.Any, Schema.Schema.Any]> = {
  COMPLETION: [CompletionRequest, CompletionResponse],
  CHAT_COMPLETION: [ChatCompletionRequest, CompletionResponse],
  EMBEDDING: [EmbeddingRequest, EmbeddingResponse],
  RERANKING: [RerankingRequest, RerankingResponse],
  AGENT: [AnyObject, AnyObject],
  GENERIC: [AnyObject, AnyObject]
}

/** The JSON Schema of `schema`, inline at the top (named parts under `$defs`); unknown fields allowed, as the API ignores them. */
const jsonSchemaOf = (schema: Schema.Schema.Any): Record<string, unknown> => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const root = JSONSchema.fromAST(schema.ast, { definitions, topLevelReferenceStrategy: "skip", additionalPropertiesStrategy: "allow" })
  return JSON.parse(JSON.stringify(Object.keys(definitions).length === 0 ? root : { ...root, $defs: definitions }))
}

/** The JSON Schemas of each type, made the first time they are asked for (not at import: start-up time). */
const schemas = new Map<ModelType, { readonly request: Record<string, unknown>; readonly response: Record<string, unknown> }>()

/** What a model of `type` shows: the JSON Schemas of its request and response, and whether it holds a conversation. */
export const modelTypeTraits = (type: ModelType) => {
  let found = schemas.get(type)
  if (found === undefined) {
    found = { request: jsonSchemaOf(bodies[type][0]), response: jsonSchemaOf(bodies[type][1]) }
    schemas.set(type, found)
  }
  return { request_schema: found.request, response_schema: found.response, supports_multi_turn: type === "CHAT_COMPLETION" || type === "AGENT" }
}
