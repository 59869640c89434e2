/**
 * Model templates (the real v4 SDK's `model_templates`; docs/model-templates.md): how a `LAUNCH`
 * model is built and served (its image, endpoint and parameters), named by a model at its create
 * (`model_template_id`), which then takes the template's defaults.
 */
import { Schema } from "effect"
import { AuditFields, Id, NonEmptyString, Nullable, Optional } from "./common.js"
import { ModelType } from "./model-instances.js"
import { GpuType } from "./models.js"
import { TrainingDatasetSchemaType } from "./training-datasets.js"

export const ModelEndpointType = Schema.Literal("SYNC", "ASYNC", "STREAMING", "BATCH").annotations({ identifier: "ModelEndpointType" })
export const ModelEndpointProtocol = Schema.Literal("SGP", "COHERE", "VLLM").annotations({ identifier: "ModelEndpointProtocol" })

/** The types a template parameter may declare. */
export const ParameterType = Schema.Literal("str", "int", "float", "bool").annotations({ identifier: "ParameterType" })
export type ParameterType = typeof ParameterType.Type

const Count = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))
const Env = Schema.Record({ key: Schema.String, value: Schema.String })
const Command = Schema.Array(Schema.String)

/** One parameter a template declares (every field required, as the SDK's `ParameterSchemaField`). */
export const ParameterSchemaField = Schema.Struct({
  description: Schema.String,
  name: NonEmptyString,
  required: Schema.Boolean,
  type: ParameterType
}).annotations({ identifier: "ParameterSchemaField" })

/**
 * The parameters a model of the template takes; two with one name are a 422 at the second. A
 * Struct (as a create takes it and a template answers it), so a typed client passes a plain object.
 */
export const ParameterSchema = Schema.Struct({
  parameters: Schema.Array(ParameterSchemaField).pipe(
    Schema.filter((parameters) => {
      const seen = new Set<string>()
      for (const [index, parameter] of parameters.entries()) {
        if (seen.has(parameter.name)) {
          return { path: [index, "name"], message: `Parameter '${parameter.name}' is declared twice` }
        }
        seen.add(parameter.name)
      }
      return true
    })
  )
}).annotations({ identifier: "ParameterSchema" })
export type ParameterSchema = typeof ParameterSchema.Type

// ---------------------------------------------------------------------------------------------
// As the API answers them: every field present, `null` when not given

export class BundleConfig extends Schema.Class<BundleConfig>("BundleConfig")({
  image: Schema.String,
  registry: Schema.String,
  tag: Schema.String,
  command: Nullable(Command),
  env: Nullable(Env),
  healthcheck_route: Nullable(Schema.String),
  predict_route: Nullable(Schema.String),
  readiness_initial_delay_seconds: Nullable(Schema.Int),
  streaming_command: Nullable(Command),
  streaming_predict_route: Nullable(Schema.String)
}) {}

export class TemplateEndpointConfig extends Schema.Class<TemplateEndpointConfig>("TemplateEndpointConfig")({
  cpus: Nullable(Schema.Int),
  endpoint_type: Nullable(ModelEndpointType),
  gpu_type: Nullable(GpuType),
  gpus: Nullable(Schema.Int),
  high_priority: Nullable(Schema.Boolean),
  max_workers: Nullable(Schema.Int),
  memory: Nullable(Schema.String),
  min_workers: Nullable(Schema.Int),
  per_worker: Nullable(Schema.Int),
  storage: Nullable(Schema.String)
}) {}

export class FineTuningJobResources extends Schema.Class<FineTuningJobResources>("FineTuningJobResources")({
  cpus: Nullable(Schema.Int),
  gpu_type: Nullable(GpuType),
  gpus: Nullable(Schema.Int),
  memory: Nullable(Schema.String),
  storage: Nullable(Schema.String)
}) {}

export class FineTuningJobBundleConfig extends Schema.Class<FineTuningJobBundleConfig>("FineTuningJobBundleConfig")({
  image: Schema.String,
  registry: Schema.String,
  tag: Schema.String,
  command: Nullable(Command),
  env: Nullable(Env),
  mount_location: Nullable(Schema.String),
  resources: Nullable(FineTuningJobResources),
  training_dataset_schema_type: Nullable(TrainingDatasetSchemaType)
}) {}

/** A template's vendor configuration: `vendor` is always `LAUNCH` (the only one there is). */
export class TemplateVendorConfiguration extends Schema.Class<TemplateVendorConfiguration>("TemplateVendorConfiguration")({
  bundle_config: BundleConfig,
  endpoint_config: Nullable(TemplateEndpointConfig),
  fine_tuning_job_bundle_config: Nullable(FineTuningJobBundleConfig),
  vendor: Schema.Literal("LAUNCH")
}) {}

/** A model template, as stored and as the API answers it. */
export class ModelTemplate extends Schema.Class<ModelTemplate>("ModelTemplate")({
  id: Id,
  name: Schema.String,
  endpoint_type: ModelEndpointType,
  model_type: ModelType,
  vendor_configuration: TemplateVendorConfiguration,
  endpoint_protocol: Nullable(ModelEndpointProtocol),
  model_creation_parameters_schema: Nullable(ParameterSchema),
  model_request_parameters_schema: Nullable(ParameterSchema),
  ...AuditFields
}) {}

// ---------------------------------------------------------------------------------------------
// As a create takes them: optional fields absent or `null`

export const BundleConfigInput = Schema.Struct({
  image: NonEmptyString,
  registry: NonEmptyString,
  tag: NonEmptyString,
  command: Optional(Command),
  env: Optional(Env),
  healthcheck_route: Optional(Schema.String),
  predict_route: Optional(Schema.String),
  readiness_initial_delay_seconds: Optional(Count),
  streaming_command: Optional(Command),
  streaming_predict_route: Optional(Schema.String)
}).annotations({ identifier: "BundleConfigInput" })

export const TemplateEndpointConfigInput = Schema.Struct({
  cpus: Optional(Count),
  endpoint_type: Optional(ModelEndpointType),
  gpu_type: Optional(GpuType),
  gpus: Optional(Count),
  high_priority: Optional(Schema.Boolean),
  max_workers: Optional(Count),
  memory: Optional(Schema.String),
  min_workers: Optional(Count),
  per_worker: Optional(Count),
  storage: Optional(Schema.String)
}).annotations({ identifier: "TemplateEndpointConfigInput" })

export const FineTuningJobResourcesInput = Schema.Struct({
  cpus: Optional(Count),
  gpu_type: Optional(GpuType),
  gpus: Optional(Count),
  memory: Optional(Schema.String),
  storage: Optional(Schema.String)
}).annotations({ identifier: "FineTuningJobResourcesInput" })

export const FineTuningJobBundleConfigInput = Schema.Struct({
  image: NonEmptyString,
  registry: NonEmptyString,
  tag: NonEmptyString,
  command: Optional(Command),
  env: Optional(Env),
  mount_location: Optional(Schema.String),
  resources: Optional(FineTuningJobResourcesInput),
  training_dataset_schema_type: Optional(TrainingDatasetSchemaType)
}).annotations({ identifier: "FineTuningJobBundleConfigInput" })

export const TemplateVendorConfigurationInput = Schema.Struct({
  bundle_config: BundleConfigInput,
  endpoint_config: Optional(TemplateEndpointConfigInput),
  fine_tuning_job_bundle_config: Optional(FineTuningJobBundleConfigInput),
  vendor: Optional(Schema.Literal("LAUNCH"))
}).annotations({ identifier: "TemplateVendorConfigurationInput" })

export class CreateModelTemplate extends Schema.Class<CreateModelTemplate>("CreateModelTemplate")({
  account_id: Id,
  endpoint_type: ModelEndpointType,
  model_type: ModelType,
  name: NonEmptyString,
  vendor_configuration: TemplateVendorConfigurationInput,
  endpoint_protocol: Optional(ModelEndpointProtocol),
  model_creation_parameters_schema: Optional(ParameterSchema),
  model_request_parameters_schema: Optional(ParameterSchema)
}) {}
