/**
 * v5 managed inference models (`/v5/models`, docs/models.md "v5 models"): a model the platform
 * deploys on Launch or LLM Engine, created `deploying` and moved to `ready` (or `failed`) by its
 * lifecycle. Records of their own, apart from the v4 model registry (`/v4/models`).
 */
import { Schema } from "effect"
import { DateTimeString, Id, IdentityType, JsonObject, NonEmptyString, Nullable, Optional, V5PageQuery } from "./common.js"

/** Every vendor a v5 model may name (the list filter, `model_vendor`); only `launch` and `llmengine` are created here. */
export const InferenceModelVendor = Schema.Literal(
  "openai",
  "cohere",
  "vertex_ai",
  "anthropic",
  "azure",
  "gemini",
  "launch",
  "llmengine",
  "model_zoo",
  "bedrock",
  "xai",
  "fireworks_ai"
).annotations({ identifier: "InferenceModelVendor" })
export type InferenceModelVendor = typeof InferenceModelVendor.Type

export const InferenceModelGpuType = Schema.Literal(
  "nvidia-tesla-t4",
  "nvidia-ampere-a10",
  "nvidia-ampere-a100",
  "nvidia-ampere-a100e",
  "nvidia-hopper-h100",
  "nvidia-hopper-h100-1g20gb",
  "nvidia-hopper-h100-3g40gb"
).annotations({ identifier: "InferenceModelGpuType" })

export const InferenceModelStatus = Schema.Literal("failed", "ready", "deploying").annotations({ identifier: "InferenceModelStatus" })
export type InferenceModelStatus = typeof InferenceModelStatus.Type

export const InferenceModelType = Schema.Literal("generic", "completion", "chat_completion").annotations({
  identifier: "InferenceModelType"
})

export const InferenceModelAvailability = Schema.Literal("unknown", "available", "unavailable").annotations({
  identifier: "InferenceModelAvailability"
})

const StringMap = Schema.Record({ key: Schema.String, value: Schema.String })
const Opt = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** The image a Launch model runs. */
export const LaunchModelImage = Schema.Struct({
  command: Schema.Array(Schema.String),
  registry: Schema.String,
  repository: Schema.String,
  tag: Schema.String,
  env_vars: Opt(JsonObject),
  healthcheck_route: Opt(Schema.String),
  predict_route: Opt(Schema.String),
  readiness_delay: Opt(Schema.Int),
  request_schema: Opt(JsonObject),
  response_schema: Opt(JsonObject),
  streaming_command: Opt(Schema.Array(Schema.String)),
  streaming_predict_route: Opt(Schema.String)
}).annotations({ identifier: "LaunchModelImage" })

/** The infrastructure of a Launch model: every field optional. */
export const LaunchModelInfra = Schema.Struct({
  cpus: Opt(Schema.Union(Schema.String, Schema.Int)),
  endpoint_type: Opt(Schema.Literal("async", "sync", "streaming")),
  gpu_type: Opt(InferenceModelGpuType),
  gpus: Opt(Schema.Int),
  high_priority: Opt(Schema.Boolean),
  labels: Opt(StringMap),
  max_workers: Opt(Schema.Int),
  memory: Opt(Schema.String),
  min_workers: Opt(Schema.Int),
  per_worker: Opt(Schema.Int),
  public_inference: Opt(Schema.Boolean),
  storage: Opt(Schema.String)
}).annotations({ identifier: "LaunchModelInfra" })

export const LaunchVendorConfiguration = Schema.Struct({
  model_image: LaunchModelImage,
  model_infra: LaunchModelInfra
}).annotations({ identifier: "LaunchVendorConfiguration" })

/** An LLM Engine model's configuration: `model` required, other keys kept as given (extra allowed). */
export const LlmEngineModelConfiguration = Schema.Struct(
  {
    model: Schema.String,
    checkpoint_path: Opt(Schema.String),
    cpus: Opt(Schema.Int),
    default_callback_url: Opt(Schema.String),
    endpoint_type: Opt(Schema.String),
    gpu_type: Opt(Schema.String),
    gpus: Opt(Schema.Int),
    high_priority: Opt(Schema.Boolean),
    inference_framework: Opt(Schema.String),
    inference_framework_image_tag: Opt(Schema.String),
    labels: Opt(StringMap),
    max_workers: Opt(Schema.Int),
    memory: Opt(Schema.String),
    min_workers: Opt(Schema.Int),
    nodes_per_worker: Opt(Schema.Int),
    num_shards: Opt(Schema.Int),
    per_worker: Opt(Schema.Int),
    post_inference_hooks: Opt(Schema.Array(Schema.String)),
    public_inference: Opt(Schema.Boolean),
    quantize: Opt(Schema.String),
    source: Opt(Schema.String),
    storage: Opt(Schema.String)
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "LlmEngineModelConfiguration" })

/**
 * A stored model's configuration. LLM Engine's first: it needs `model`, which a Launch configuration
 * never holds (a Launch create keeps only its own keys), while an LLM Engine one keeps any key.
 */
export const InferenceModelVendorConfiguration = Schema.Union(LlmEngineModelConfiguration, LaunchVendorConfiguration)

/** A v5 model, as `/v5/models` answers it. */
export class InferenceModel extends Schema.Class<InferenceModel>("InferenceModel")({
  id: Id,
  created_at: DateTimeString,
  created_by_identity_type: IdentityType,
  created_by_user_id: Id,
  model_type: InferenceModelType,
  model_vendor: InferenceModelVendor,
  name: Schema.String,
  status: InferenceModelStatus,
  /** `unknown` while deploying, `available` when ready, `unavailable` when failed. */
  model_availability: InferenceModelAvailability,
  model_metadata: Nullable(JsonObject),
  vendor_configuration: Nullable(InferenceModelVendorConfiguration),
  object: Schema.Literal("model")
}) {}

const CreateOnConflict = Optional(Schema.Literal("error", "update"))

/** `POST /v5/models` for a Launch model. */
export const CreateLaunchModel = Schema.Struct({
  name: NonEmptyString,
  vendor_configuration: LaunchVendorConfiguration,
  model_metadata: Optional(JsonObject),
  model_type: Optional(Schema.Literal("generic")),
  model_vendor: Optional(Schema.Literal("launch")),
  on_conflict: CreateOnConflict,
  account_id: Optional(Id)
}).annotations({ identifier: "CreateLaunchModel" })

/** `POST /v5/models` for an LLM Engine model. */
export const CreateLlmEngineModel = Schema.Struct({
  name: NonEmptyString,
  vendor_configuration: LlmEngineModelConfiguration,
  model_metadata: Optional(JsonObject),
  model_type: Optional(Schema.Literal("chat_completion")),
  model_vendor: Optional(Schema.Literal("llmengine")),
  on_conflict: CreateOnConflict,
  account_id: Optional(Id)
}).annotations({ identifier: "CreateLlmEngineModel" })

/**
 * `POST /v5/models`: a Launch or an LLM Engine model (told apart by `model_vendor`, else by the
 * shape of `vendor_configuration`). Any other vendor is a 422.
 */
export const CreateInferenceModel = Schema.Union(CreateLaunchModel, CreateLlmEngineModel).annotations({
  identifier: "CreateInferenceModel"
})
export type CreateInferenceModel = typeof CreateInferenceModel.Type

/**
 * `PATCH /v5/models/{model_id}`: the SDK's three bodies (`{model_metadata}`, `{vendor_configuration,
 * model_metadata?}`, `{name, on_conflict?}`) as one, whose fields apply together. A
 * `vendor_configuration` is a partial of the model's vendor's (merged into it, then checked as a
 * whole: 422 at its field) and puts the model back to `deploying`.
 */
export class UpdateInferenceModel extends Schema.Class<UpdateInferenceModel>("UpdateInferenceModel")({
  model_metadata: Optional(JsonObject),
  vendor_configuration: Optional(JsonObject),
  name: Optional(NonEmptyString),
  on_conflict: Optional(Schema.Literal("error", "swap"))
}) {}

/** `DELETE /v5/models/{model_id}`: the model is gone for good. */
export class InferenceModelDeleted extends Schema.Class<InferenceModelDeleted>("InferenceModelDeleted")({
  id: Id,
  deleted: Schema.Boolean,
  object: Schema.Literal("model")
}) {}

/** The fields a v5 model list sorts on (`sort_by`; ties broken by id). */
export const InferenceModelSortFields = ["created_at", "name", "model_vendor", "model_type", "status"] as const

/** `GET /v5/models`: cursor page, `model_vendor` (exact), `name` (case-insensitive substring), `account_id`. */
export const InferenceModelListQuery = Schema.Struct({
  ...V5PageQuery(InferenceModelSortFields),
  account_id: Schema.optionalWith(Id, { exact: true }),
  model_vendor: Schema.optionalWith(InferenceModelVendor, { exact: true }),
  name: Schema.optionalWith(Schema.String, { exact: true })
})
