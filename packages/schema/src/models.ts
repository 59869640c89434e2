/**
 * Model deployments and servers: resources and request bodies (docs/models.md; their creates:
 * docs/decisions.md "Resources created here").
 */
import { ParseResult, Schema } from "effect"
import { AuditFields, DateTimeString, Id, IdentityType, JsonObject, NonEmptyString, Nullable, Optional, QueryArray, SortKeys, V4PageQuery } from "./common.js"

// ---------------------------------------------------------------------------------------------
// Model deployments

export const ModelVendor = Schema.Literal("LAUNCH", "LLMENGINE").annotations({ identifier: "ModelVendor" })

/** The GPUs an LLM Engine deployment may ask for (the real SDK's enum). */
export const GpuType = Schema.Literal(
  "nvidia-tesla-t4",
  "nvidia-ampere-a10",
  "nvidia-ampere-a100",
  "nvidia-ampere-a100e",
  "nvidia-hopper-h100",
  "nvidia-hopper-h100-1g20gb",
  "nvidia-hopper-h100-3g40gb"
).annotations({ identifier: "GpuType" })

/** The scaling of a `LAUNCH` deployment as a response carries it: every field present. */
export class VendorConfiguration extends Schema.Class<VendorConfiguration>("VendorConfiguration")({
  min_workers: Schema.Int,
  max_workers: Schema.Int,
  per_worker: Schema.Int,
  vendor: Schema.Literal("LAUNCH")
}) {}

/**
 * An `LLMENGINE` deployment's scaling and hardware as a response carries it: the worker counts
 * (with `LAUNCH`'s defaults), the rest `null` when not given. The kit stores them: it provisions
 * no hardware (docs/models.md).
 */
export class LlmEngineVendorConfiguration extends Schema.Class<LlmEngineVendorConfiguration>("LlmEngineVendorConfiguration")({
  vendor: Schema.Literal("LLMENGINE"),
  min_workers: Schema.Int,
  max_workers: Schema.Int,
  per_worker: Schema.Int,
  base_model_name: Nullable(Schema.String),
  checkpoint_path: Nullable(Schema.String),
  cpus: Nullable(Schema.Int),
  gpu_type: Nullable(GpuType),
  gpus: Nullable(Schema.Int),
  high_priority: Nullable(Schema.Boolean),
  inference_framework_image_tag: Nullable(Schema.String),
  memory: Nullable(Schema.String),
  model_name: Nullable(Schema.String),
  num_shards: Nullable(Schema.Int),
  storage: Nullable(Schema.String)
}) {}

/** A deployment's vendor configuration, told apart by `vendor`. */
export const ModelDeploymentVendorConfiguration = Schema.Union(VendorConfiguration, LlmEngineVendorConfiguration)
  .annotations({ identifier: "ModelDeploymentVendorConfiguration" })
export type ModelDeploymentVendorConfiguration = typeof ModelDeploymentVendorConfiguration.Type

const workerCount = (minimum: number, fallback: number) =>
  Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(minimum)), {
    exact: true,
    nullable: true,
    default: () => fallback
  })

const workerCounts = {
  min_workers: workerCount(0, 0),
  max_workers: workerCount(1, 1),
  per_worker: workerCount(1, 10)
}

/** An optional field of an input: absent or `null`, both stored as `null`. */
const nullableInput = <A, I>(schema: Schema.Schema<A, I>) => Schema.optionalWith(Schema.NullOr(schema), { exact: true })

/**
 * One object for both vendors (so that a 422 names each wrong field once): `vendor` (`LAUNCH`
 * when absent), the worker counts, and LLM Engine's fields, which a `LAUNCH` configuration
 * ignores (as the real API ignores fields a vendor does not have).
 */
const VendorConfigurationFields = Schema.Struct({
  ...workerCounts,
  vendor: Schema.optionalWith(ModelVendor, { exact: true, nullable: true, default: () => "LAUNCH" as const }),
  base_model_name: nullableInput(Schema.String),
  checkpoint_path: nullableInput(Schema.String),
  cpus: nullableInput(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
  gpu_type: nullableInput(GpuType),
  gpus: nullableInput(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))),
  high_priority: nullableInput(Schema.Boolean),
  inference_framework_image_tag: nullableInput(Schema.String),
  memory: nullableInput(Schema.String),
  model_name: nullableInput(Schema.String),
  num_shards: nullableInput(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
  storage: nullableInput(Schema.String)
})

/**
 * The configuration a create or an update asks for. Every field may be left out: `vendor`
 * `LAUNCH`, `min_workers` 0, `max_workers` 1, `per_worker` 10 (LLM Engine's other fields `null`).
 * `min_workers` must not exceed `max_workers`; the failure is reported at `min_workers` (a Pointer
 * under a transformation, so the 422 names the field rather than the whole object).
 */
export const VendorConfigurationInput = Schema.transformOrFail(
  VendorConfigurationFields,
  Schema.typeSchema(VendorConfigurationFields),
  {
    strict: true,
    decode: (config) =>
      config.min_workers <= config.max_workers
        ? ParseResult.succeed(config)
        : ParseResult.fail(
          new ParseResult.Pointer(
            "min_workers",
            config,
            new ParseResult.Type(
              Schema.Unknown.ast,
              config.min_workers,
              `min_workers (${config.min_workers}) must be less than or equal to max_workers (${config.max_workers})`
            )
          )
        ),
    encode: ParseResult.succeed
  }
).annotations({ identifier: "VendorConfigurationInput" })

/** The stored configuration of a request's `vendor_configuration`: the fields of its vendor. */
export const vendorConfigurationOf = (input: typeof VendorConfigurationInput.Type): ModelDeploymentVendorConfiguration => {
  const { max_workers, min_workers, per_worker, vendor } = input
  return vendor === "LLMENGINE"
    ? new LlmEngineVendorConfiguration({
      vendor,
      min_workers,
      max_workers,
      per_worker,
      base_model_name: input.base_model_name ?? null,
      checkpoint_path: input.checkpoint_path ?? null,
      cpus: input.cpus ?? null,
      gpu_type: input.gpu_type ?? null,
      gpus: input.gpus ?? null,
      high_priority: input.high_priority ?? null,
      inference_framework_image_tag: input.inference_framework_image_tag ?? null,
      memory: input.memory ?? null,
      model_name: input.model_name ?? null,
      num_shards: input.num_shards ?? null,
      storage: input.storage ?? null
    })
    : new VendorConfiguration({ vendor, min_workers, max_workers, per_worker })
}

export class ModelDeployment extends Schema.Class<ModelDeployment>("ModelDeployment")({
  id: Id,
  name: Schema.String,
  /** `PENDING` on create; other values are set by whatever deploys the model. */
  status: Schema.String,
  model_creation_parameters: Nullable(JsonObject),
  /** `null` until the deployment has an endpoint. */
  model_endpoint_id: Nullable(Id),
  model_instance_id: Id,
  deployment_metadata: Nullable(JsonObject),
  vendor_configuration: Nullable(ModelDeploymentVendorConfiguration),
  ...AuditFields
}) {}

export class CreateModelDeployment extends Schema.Class<CreateModelDeployment>("CreateModelDeployment")({
  name: NonEmptyString,
  model_creation_parameters: Optional(JsonObject),
  deployment_metadata: Optional(JsonObject),
  vendor_configuration: Optional(VendorConfigurationInput),
  account_id: Optional(Id)
}) {}

/**
 * An update of a deployment: every field optional. Absent leaves a field as it is; `null` clears
 * `deployment_metadata` or `model_creation_parameters`; a `vendor_configuration` replaces the
 * deployment's whole (its absent fields take the create's defaults).
 */
export class UpdateModelDeployment extends Schema.Class<UpdateModelDeployment>("UpdateModelDeployment")({
  name: Schema.optionalWith(NonEmptyString, { exact: true }),
  model_creation_parameters: Schema.optionalWith(Schema.NullOr(JsonObject), { exact: true }),
  deployment_metadata: Schema.optionalWith(Schema.NullOr(JsonObject), { exact: true }),
  vendor_configuration: Schema.optionalWith(VendorConfigurationInput, { exact: true })
}) {}

/** The fields a model deployment list sorts on (docs/models.md "Sorting (`sort_by`)"). */
export const ModelDeploymentSortFields = [
  "model_creation_parameters",
  "model_endpoint_id",
  "model_instance_id",
  "vendor_configuration",
  "deployment_metadata",
  "status",
  "id",
  "created_at",
  "account_id",
  "created_by_user_id",
  "created_by_identity_type",
  "name"
] as const
export type ModelDeploymentSortField = typeof ModelDeploymentSortFields[number]

/** One sort key, `<field>:asc` or `<field>:desc`. */
export const ModelDeploymentSortKey = SortKeys(ModelDeploymentSortFields, "ModelDeploymentSortKey")
export type ModelDeploymentSortKey = typeof ModelDeploymentSortKey.Type

/**
 * Query of a model deployment list. A Struct rather than a Class so the OpenAPI document lists
 * each parameter.
 */
export const ModelDeploymentListQuery = Schema.Struct({
  ...V4PageQuery,
  /** Applied in order, then newest first. Comma-joined or repeated. */
  sort_by: Schema.optionalWith(
    QueryArray(Schema.compose(Schema.String, ModelDeploymentSortKey, { strict: false })),
    { exact: true }
  )
})
export type ModelDeploymentListQuery = typeof ModelDeploymentListQuery.Type

/** Query of the model server list (v4 page). */
export const ModelServerListQuery = Schema.Struct(V4PageQuery)

// ---------------------------------------------------------------------------------------------
// Model servers

/** A server alias: non-empty, without `/` (it is a path segment of the execute path). */
export const ModelServerAlias = NonEmptyString.pipe(
  Schema.pattern(/^[^/]+$/, { message: () => "An alias must not contain '/'" })
)

export class ModelServer extends Schema.Class<ModelServer>("ModelServer")({
  model_server_id: Id,
  name: Schema.String,
  account_id: Id,
  model_deployment_id: Id,
  alias: Nullable(Schema.String),
  created_by_user_id: Id,
  created_by_identity_type: IdentityType,
  created_at: DateTimeString
}) {}

/** `GET /v4/serving/{id}/deployment`: the deployment the server serves now (the SDK's `DeploymentRetrieveResponse`). */
export class ModelServerDeployment extends Schema.Class<ModelServerDeployment>("DeploymentRetrieveResponse")({
  model_deployment_id: Id
}) {}

/** `PUT /v4/serving/{id}/backend`: the deployment the server serves from now on. */
export class UpdateModelServerBackend extends Schema.Class<UpdateModelServerBackend>("UpdateModelServerBackend")({
  new_model_deployment_id: Id
}) {}

/** What a backend change answers: the server as it is now, with the deployments before and after. */
export class ModelServerUpdateBackendResponse extends Schema.Class<ModelServerUpdateBackendResponse>("ModelServerUpdateBackendResponse")({
  account_id: Id,
  model_deployment_id: Id,
  model_server_id: Id,
  name: Schema.String,
  new_model_deployment_id: Id,
  old_model_deployment_id: Id,
  alias: Nullable(Schema.String)
}) {}

/** What a rollback answers: the deployment it left, and the one it serves again. */
export class ModelServerRollbackResponse extends Schema.Class<ModelServerRollbackResponse>("ModelServerRollbackResponse")({
  from_deployment: Id,
  rolled_back_to_deployment: Id
}) {}

export class CreateModelServer extends Schema.Class<CreateModelServer>("CreateModelServer")({
  name: NonEmptyString,
  model_deployment_id: Id,
  alias: Optional(ModelServerAlias),
  account_id: Optional(Id)
}) {}

// ---------------------------------------------------------------------------------------------
// Where a deployment's model runs (documented keys of `model_creation_parameters`, docs/models.md)

/** The kit's built-in model: deterministic, no set-up (docs/models.md "The built-in model"). */
export const BuiltinProviderParameters = Schema.Struct({
  provider: Schema.Literal("builtin")
}).annotations({ identifier: "BuiltinProviderParameters" })

/** An OpenAI-compatible API (a hosted one, vLLM, llama.cpp's server, Ollama, LM Studio). */
export const OpenAiCompatibleProviderParameters = Schema.Struct({
  provider: Schema.Literal("openai_compatible"),
  /** The API's base URL, up to and including its version (`http://127.0.0.1:8000/v1`). */
  base_url: Schema.String.pipe(Schema.pattern(/^https?:\/\/[^\s]+$/, { message: () => "base_url must be an http(s) URL" })),
  /** The model's name at the upstream (`model` of each request it is sent). */
  model: NonEmptyString,
  /** A credential of the deployment's account whose secret is the upstream's API key. */
  api_key_credential_id: Schema.optionalWith(Id, { exact: true }),
  /** The whole call, retries included (ms). */
  timeout_ms: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 600_000)), { exact: true, default: () => 60_000 }),
  /** Tries after a 429, a 5xx or a failed connection, with exponential backoff. */
  max_retries: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 10)), { exact: true, default: () => 2 }),
  /** Calls to the upstream at once from this process, for this deployment; the rest wait. */
  max_concurrency: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 1_000)), { exact: true, default: () => 16 })
}).annotations({ identifier: "OpenAiCompatibleProviderParameters" })

/** Where a deployment's model runs: `provider` and its keys; no `provider` is the built-in model. */
export const ProviderParameters = Schema.Union(BuiltinProviderParameters, OpenAiCompatibleProviderParameters)
export type ProviderParameters = typeof ProviderParameters.Type

// ---------------------------------------------------------------------------------------------
// Usage statistics (the SDK's `ModelUsage`)

const queryInstant = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/

/**
 * An instant in a query: an ISO 8601 date or date-time, as the SDK sends `datetime.isoformat()`;
 * without a zone it is UTC (not the server's local time).
 */
export const QueryInstant = Schema.transformOrFail(Schema.String, Schema.DateFromSelf, {
  strict: true,
  decode: (s, _, ast) => {
    const zoned = !s.includes("T") ? `${s}T00:00:00Z` : /(Z|[+-]\d{2}:?\d{2})$/.test(s) ? s : `${s}Z`
    const ms = queryInstant.test(s) ? Date.parse(zoned) : Number.NaN
    return Number.isNaN(ms)
      ? ParseResult.fail(new ParseResult.Type(ast, s, "Input should be a valid ISO 8601 date or date-time"))
      : ParseResult.succeed(new Date(ms))
  },
  encode: (date) => ParseResult.succeed(date.toISOString())
}).annotations({ identifier: "QueryInstant", jsonSchema: { type: "string", format: "date-time" } })

/**
 * Query of the usage statistics of a deployment or a model: the window `[start_date, end_date)`
 * in `chunks` equal chunks. The handler checks that the window is not empty.
 */
export const ModelUsageQuery = Schema.Struct({
  /** How many data points (1–1000; default 1). */
  chunks: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1000)), { exact: true }),
  /** Default: when the deployment (the model) was created. */
  start_date: Schema.optionalWith(QueryInstant, { exact: true }),
  /** Default: now. */
  end_date: Schema.optionalWith(QueryInstant, { exact: true })
})

/** One chunk of the window. `request_count`, `error_count`, `average_latency_ms`: the kit's, beside the SDK's fields. */
export class ModelUsageDataPoint extends Schema.Class<ModelUsageDataPoint>("ModelUsageDataPoint")({
  /** The start of the chunk. */
  date: DateTimeString,
  prompt_tokens: Schema.Int,
  response_tokens: Schema.Int,
  /** Every token: prompt and response. */
  summary_tokens: Schema.Int,
  request_count: Schema.Int,
  /** Executions that did not answer 200. */
  error_count: Schema.Int,
  /** 0 without executions. */
  average_latency_ms: Schema.Number
}) {}

/** The usage of a deployment or a model over a window (the SDK's `ModelUsage`). */
export class ModelUsage extends Schema.Class<ModelUsage>("ModelUsage")({
  data: Schema.Array(ModelUsageDataPoint),
  /** The first data point's date. */
  start_date: DateTimeString,
  /** The last data point's date. */
  end_date: DateTimeString
}) {}
