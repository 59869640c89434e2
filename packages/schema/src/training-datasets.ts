/** Training datasets (the real SDK's `training_datasets`; docs/training-datasets.md). */
import { Schema } from "effect"
import { DateTimeString, Id } from "./common.js"

/** What a dataset's rows are: only `GENERATION` (input → output) is supported (the SDK's docstring). */
export const TrainingDatasetSchemaType = Schema.Literal("GENERATION", "RERANKING_QUESTIONS").annotations({
  identifier: "TrainingDatasetSchemaType"
})
export type TrainingDatasetSchemaType = typeof TrainingDatasetSchemaType.Type

/** Where a dataset's file came from: `LocalFile` for a file uploaded to `POST /v4/training-datasets`. */
export const TrainingDatasetDataSource = Schema.Literal(
  "S3",
  "SharePoint",
  "LocalFile",
  "LocalChunks",
  "GoogleDrive",
  "AzureBlobStorage",
  "Confluence",
  "Slack"
).annotations({ identifier: "TrainingDatasetDataSource" })

/** A training dataset: an uploaded file of rows, kept in the object store. */
export class TrainingDataset extends Schema.Class<TrainingDataset>("TrainingDataset")({
  id: Id,
  account_id: Id,
  created_at: DateTimeString,
  created_by_user_id: Id,
  data_source: TrainingDatasetDataSource,
  name: Schema.String,
  schema_type: TrainingDatasetSchemaType
}) {}

/**
 * The form of `POST /v4/training-datasets` (multipart/form-data), as the OpenAPI document shows
 * it: read part by part by the server, the file streamed into the object store.
 */
export const CreateTrainingDatasetForm = Schema.Struct({
  file: Schema.String.annotations({
    description: "the rows: JSON Lines (`.jsonl`) or CSV (`.csv`) with `input` and `output` (UTF-8)"
  }),
  account_id: Id,
  name: Schema.String.annotations({ description: "a non-empty name" }),
  schema_type: TrainingDatasetSchemaType
}).annotations({ identifier: "CreateTrainingDatasetForm" })

/** One row of a `GENERATION` dataset (the SDK's `TrainingDatasetGenerationItem`). */
export class TrainingDatasetGenerationItem extends Schema.Class<TrainingDatasetGenerationItem>("TrainingDatasetGenerationItem")({
  input: Schema.String,
  output: Schema.String,
  schema_type: Schema.optionalWith(Schema.Literal("GENERATION"), { exact: true })
}) {}
