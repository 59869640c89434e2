/** Fine-tuning jobs (beta; docs/fine-tuning-jobs.md). */
import { Schema } from "effect"
import { AuditFields, Id, JsonObject, NonEmptyString, Nullable, Optional } from "./common.js"

export const FineTuningJobStatus = Schema.Literal("PENDING", "RUNNING", "COMPLETED", "FAILED", "CANCELED")
  .annotations({ identifier: "FineTuningJobStatus" })
export type FineTuningJobStatus = typeof FineTuningJobStatus.Type

/** The Launch vendor configuration, as the response carries it (a field not given is `null`). */
export class LaunchFineTuningJobConfiguration
  extends Schema.Class<LaunchFineTuningJobConfiguration>("LaunchFineTuningJobConfiguration")({
    vendor: Schema.Literal("LAUNCH"),
    hyperparameters: Nullable(JsonObject),
    tracker_config: Nullable(JsonObject),
    suffix: Nullable(Schema.String),
    output: Nullable(Schema.String)
  })
{}

export const LaunchFineTuningJobConfigurationInput = Schema.Struct({
  vendor: Schema.Literal("LAUNCH"),
  hyperparameters: Optional(JsonObject),
  tracker_config: Optional(JsonObject),
  suffix: Optional(Schema.String),
  output: Optional(Schema.String)
}).annotations({ identifier: "LaunchFineTuningJobConfigurationInput" })

/**
 * The fields of the Engine and ExternalVendor configurations are not shown in the platform's
 * reference: they are open objects, told apart by `vendor` (`ENGINE`, `EXTERNAL_VENDOR`: the
 * neutral words for the vendor names that stood there), and kept as given.
 */
export const EngineFineTuningJobConfiguration = Schema.Struct(
  { vendor: Schema.Literal("ENGINE") },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "EngineFineTuningJobConfiguration" })

export const ExternalVendorFineTuningJobConfiguration = Schema.Struct(
  { vendor: Schema.Literal("EXTERNAL_VENDOR") },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "ExternalVendorFineTuningJobConfiguration" })

export const FineTuningJobVendorConfiguration = Schema.Union(
  LaunchFineTuningJobConfiguration,
  EngineFineTuningJobConfiguration,
  ExternalVendorFineTuningJobConfiguration
).annotations({ identifier: "FineTuningJobVendorConfiguration" })

export const FineTuningJobVendorConfigurationInput = Schema.Union(
  LaunchFineTuningJobConfigurationInput,
  EngineFineTuningJobConfiguration,
  ExternalVendorFineTuningJobConfiguration
).annotations({ identifier: "FineTuningJobVendorConfigurationInput" })

/**
 * A fine-tuning job. Dataset and model ids name things this service does not store: they are kept
 * as given.
 */
export class FineTuningJob extends Schema.Class<FineTuningJob>("FineTuningJob")({
  id: Id,
  training_dataset_id: Id,
  validation_dataset_id: Nullable(Id),
  base_model_id: Nullable(Id),
  fine_tuned_model_id: Nullable(Id),
  status: FineTuningJobStatus,
  vendor_configuration: Nullable(FineTuningJobVendorConfiguration),
  ...AuditFields
}) {}

export class CreateFineTuningJob extends Schema.Class<CreateFineTuningJob>("CreateFineTuningJob")({
  training_dataset_id: NonEmptyString,
  account_id: Id,
  base_model_id: Optional(NonEmptyString),
  vendor_configuration: Optional(FineTuningJobVendorConfigurationInput),
  fine_tuned_model_id: Optional(NonEmptyString),
  validation_dataset_id: Optional(NonEmptyString)
}) {}

/**
 * One entry of a job's log (`GET /v4/fine-tuning-jobs/{id}/events`, the real SDK's
 * `FineTuningJobEvent`): one per step of its lifecycle, and the progress of the simulated training
 * (docs/fine-tuning-jobs.md). `timestamp` is seconds since the epoch.
 */
export class FineTuningJobEvent extends Schema.Class<FineTuningJobEvent>("FineTuningJobEvent")({
  level: Schema.Literal("info", "warning", "error"),
  message: Schema.String,
  timestamp: Schema.Number
}) {}
