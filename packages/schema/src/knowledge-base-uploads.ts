/**
 * Uploads of a knowledge base (the real SDK's `knowledge_bases.uploads`): what an upload reads (an
 * object store folder through a data source or a config, chunks given in the request, files posted
 * with it), how it is chunked, and where it stands. The work itself runs on the engine
 * (docs/knowledge-bases.md "Uploads").
 */
import { ParseResult, Schema, SchemaAST } from "effect"
import {
  AuditFields,
  DateTimeString,
  Id,
  JsonObject,
  NonEmptyString,
  Nullable,
  Optional,
  QueryBoolean,
  V4PageQuery
} from "./common.js"
import {
  ArtifactSource,
  ArtifactsStatus,
  ArtifactStatus,
  ChunkingStrategyConfig,
  ChunksStatus,
  ObjectStoreDataSourceConfig
} from "./knowledge-bases.js"

// ---------------------------------------------------------------------------------------------
// What an upload reads

/** A nullable string that is `null` when left out (answered always present). */
const NullByDefault = Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })

/**
 * The SDK's S3 source. The kit reads no cloud: `s3_bucket` names a folder of the local object
 * store, as `object_store_bucket` does (docs/knowledge-bases.md "The object store").
 */
export class S3DataSourceConfig extends Schema.Class<S3DataSourceConfig>("S3DataSourceConfig")({
  source: Schema.Literal("S3"),
  s3_bucket: NonEmptyString,
  s3_prefix: Schema.optionalWith(Schema.String, { default: () => "", nullable: true }),
  aws_region: NullByDefault,
  aws_account_id: NullByDefault
}) {}

/** Chunks given in the upload's own body make one artifact (`artifact_name` must have an extension). */
export class LocalChunksSourceConfig extends Schema.Class<LocalChunksSourceConfig>("LocalChunksSourceConfig")({
  source: Schema.Literal("LocalChunks"),
  artifact_name: Schema.String.pipe(
    Schema.pattern(/\.[^./\\]+$/, { message: () => "artifact_name must have an extension (e.g. notes.txt)" }),
    Schema.maxLength(512)
  ),
  artifact_uri: NonEmptyString.pipe(Schema.maxLength(512)),
  /** `Overwrite` (default): an artifact with this URI is replaced; `Fail`: the upload fails if there is one. */
  deduplication_strategy: Schema.optionalWith(Schema.Literal("Overwrite", "Fail"), { default: () => "Overwrite", nullable: true })
}) {}

/** Files posted with `upload_files`: the config the form gave, as given (its `source` `LocalFile`). */
export const LocalFileSourceConfig = Schema.Struct(
  { source: Schema.Literal("LocalFile") },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "LocalFileSourceConfig" })

/** What an upload read, as it answers it. */
export const UploadDataSourceConfig = Schema.Union(
  ObjectStoreDataSourceConfig,
  S3DataSourceConfig,
  LocalChunksSourceConfig,
  LocalFileSourceConfig
).annotations({ identifier: "UploadDataSourceConfig" })
export type UploadDataSourceConfig = typeof UploadDataSourceConfig.Type

/** One chunk of a `LocalChunks` upload. */
export class LocalChunk extends Schema.Class<LocalChunk>("LocalChunk")({
  chunk_position: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0), Schema.lessThanOrEqualTo(2_147_483_647)),
  text: Schema.String,
  metadata: Optional(JsonObject)
}) {}

/**
 * Tags an upload gives its artifacts (and their chunks' metadata): `all` (the default) gives every
 * artifact `tags_to_apply`; `per_file` maps an artifact's name to its tags.
 */
export class UploadTaggingInformation extends Schema.Class<UploadTaggingInformation>("UploadTaggingInformation")({
  type: Schema.optionalWith(Schema.Literal("all", "per_file"), { default: () => "all", nullable: true }),
  tags_to_apply: Schema.optionalWith(JsonObject, { default: () => ({}), nullable: true })
}) {}

const common = {
  force_reupload: Optional(Schema.Boolean),
  tagging_information: Optional(UploadTaggingInformation)
} as const

/** Variant C: the files of a stored data source, chunked as told. */
export class UploadFromDataSource extends Schema.Class<UploadFromDataSource>("UploadFromDataSource")({
  data_source_id: NonEmptyString,
  chunking_strategy_config: ChunkingStrategyConfig,
  ...common
}) {}

/** Variant A: the files a config names (an object store folder, or `S3` read as one); character defaults when no strategy is given. */
export class UploadFromConfig extends Schema.Class<UploadFromConfig>("UploadFromConfig")({
  data_source_config: Schema.Union(ObjectStoreDataSourceConfig, S3DataSourceConfig),
  chunking_strategy_config: Optional(ChunkingStrategyConfig),
  /** Accepted and not kept: the object store needs no credentials. */
  data_source_auth_config: Optional(JsonObject),
  ...common
}) {}

/** Variant B: chunks given in the body, one artifact. */
export class UploadFromChunks extends Schema.Class<UploadFromChunks>("UploadFromChunks")({
  data_source_config: LocalChunksSourceConfig,
  chunks: Schema.optionalWith(Schema.Array(LocalChunk), { default: () => [], nullable: true }),
  ...common
}) {}

const UploadVariants = Schema.Union(UploadFromDataSource, UploadFromConfig, UploadFromChunks)

/** The sources an upload reads; the SDK's others (SharePoint, …) are not served (a 422 at `source`). */
const readableSources = ["OBJECT_STORE", "S3", "LocalChunks"] as const

/**
 * `POST /v4/knowledge-bases/{id}/uploads`: `data_source_id` picks variant C; else
 * `data_source_config.source` picks `LocalChunks` (B) or a readable folder (A). The body is then
 * checked as that variant only, so each problem is reported at its own field.
 */
export const CreateKnowledgeBaseUpload = Schema.transformOrFail(
  Schema.Struct(
    {
      data_source_id: Schema.optionalWith(Schema.Unknown, { exact: true }),
      data_source_config: Schema.optionalWith(
        Schema.Struct(
          { source: Schema.Literal(...readableSources) },
          Schema.Record({ key: Schema.String, value: Schema.Unknown })
        ),
        { exact: true }
      )
    },
    Schema.Record({ key: Schema.String, value: Schema.Unknown })
  ),
  Schema.typeSchema(UploadVariants),
  {
    strict: true,
    decode: (body, options) =>
      body.data_source_id !== undefined && body.data_source_id !== null
        ? ParseResult.decodeUnknown(UploadFromDataSource)(body, options)
        : body.data_source_config?.source === "LocalChunks"
        ? ParseResult.decodeUnknown(UploadFromChunks)(body, options)
        : ParseResult.decodeUnknown(UploadFromConfig)(body, options),
    encode: (body, options) => ParseResult.encodeUnknown(UploadVariants)(body, options)
  }
).annotations({
  identifier: "CreateKnowledgeBaseUpload",
  [SchemaAST.SurrogateAnnotationId]: UploadVariants.ast
})
export type CreateKnowledgeBaseUpload = typeof CreateKnowledgeBaseUpload.Type

export class CreateKnowledgeBaseUploadResponse
  extends Schema.Class<CreateKnowledgeBaseUploadResponse>("CreateKnowledgeBaseUploadResponse")({
    upload_id: Id
  })
{}

/**
 * `POST /v4/knowledge-bases/{id}/upload_files`, multipart/form-data (the SDK's form): files under
 * `files` (repeated), and `chunking_strategy_config`, `data_source_config` and
 * `tagging_information` as JSON text, `force_reupload` as `true`/`false`. Read part by part by the
 * handler (files in memory, within the body size limit), not decoded by this Schema: it documents
 * the form.
 */
export const UploadFilesForm = Schema.Struct({
  files: Schema.Array(Schema.String).annotations({ description: "the files, one part each (repeated `files`)" }),
  chunking_strategy_config: Schema.String.annotations({ description: "a chunking strategy config, as JSON text" }),
  data_source_config: Schema.String.annotations({ description: "a JSON object (kept as the upload's `LocalFile` config)" }),
  force_reupload: Schema.String.annotations({ description: "`true` or `false`" }),
  tagging_information: Schema.optional(Schema.String.annotations({ description: "tagging information, as JSON text" }))
}).annotations({ identifier: "UploadFilesForm" })

/** What `upload_files` answers: the upload it made of the files. */
export class UploadFilesResponse extends Schema.Class<UploadFilesResponse>("UploadFilesResponse")({
  upload_ids: Schema.Array(Id)
}) {}

// ---------------------------------------------------------------------------------------------
// Where an upload stands

export const UploadStatus = Schema.Literal("Running", "Completed", "Failed", "Canceled").annotations({
  identifier: "UploadStatus"
})
export type UploadStatus = typeof UploadStatus.Type

/** An artifact as an upload lists it (the SDK's `UploadArtifact`). */
export class UploadArtifact extends Schema.Class<UploadArtifact>("UploadArtifact")({
  artifact_id: Id,
  artifact_name: Schema.String,
  artifact_uri: Nullable(Schema.String),
  artifact_uri_public: Nullable(Schema.String),
  source: ArtifactSource,
  status: ArtifactStatus,
  status_reason: Nullable(Schema.String),
  tags: JsonObject,
  chunks_status: ChunksStatus,
  updated_at: DateTimeString
}) {}

/** An upload as the list answers it (the SDK's `UploadItem`). */
export class KnowledgeBaseUploadItem extends Schema.Class<KnowledgeBaseUploadItem>("KnowledgeBaseUploadItem")({
  id: Id,
  knowledge_base_id: Id,
  data_source_config: UploadDataSourceConfig,
  /** The stored data source read (variant C and schedules), else `null`. */
  data_source_id: Nullable(Id),
  chunking_strategy_config: Nullable(ChunkingStrategyConfig),
  created_by_schedule_id: Nullable(Id),
  /** The kit keeps none: `null`. */
  data_source_idempotency_key: Nullable(Schema.String),
  status: UploadStatus,
  status_reason: Nullable(Schema.String),
  updated_at: DateTimeString,
  ...AuditFields
}) {}

/**
 * An upload as the retrieve answers it (the SDK's `KnowledgeBaseUpload`): `artifacts` are the
 * artifacts it ingested (or tried to), listed with `include_artifact_list`, else empty;
 * `artifacts_status` counts them at every moment.
 */
export class KnowledgeBaseUpload extends Schema.Class<KnowledgeBaseUpload>("KnowledgeBaseUpload")({
  upload_id: Id,
  knowledge_base_id: Id,
  data_source_config: UploadDataSourceConfig,
  data_source_id: Nullable(Id),
  chunking_strategy_config: Nullable(ChunkingStrategyConfig),
  created_by_schedule_id: Nullable(Id),
  status: UploadStatus,
  status_reason: Nullable(Schema.String),
  artifacts: Schema.Array(UploadArtifact),
  artifacts_status: ArtifactsStatus,
  updated_at: DateTimeString,
  ...AuditFields
}) {}

export class CancelUploadResponse extends Schema.Class<CancelUploadResponse>("CancelUploadResponse")({
  /** Whether this call canceled it (`false` when it had ended already). */
  canceled: Schema.Boolean,
  upload_id: Id
}) {}

export const UploadListQuery = Schema.Struct({
  ...V4PageQuery,
  status: Schema.optionalWith(UploadStatus, { exact: true })
})

export const UploadGetQuery = Schema.Struct({
  include_artifact_list: Schema.optionalWith(QueryBoolean, { exact: true })
})

// ---------------------------------------------------------------------------------------------
// Async jobs: a knowledge base's uploads (and the upload schedule runs that failed before making
// one) as the SDK's `knowledge_bases.async_jobs.list` reads them (docs/knowledge-bases.md "Async jobs")

/** The SDK's `job_type` values; a knowledge base's jobs are all `knowledge_base_upload`. */
export const AsyncJobType = Schema.Literal(
  "evaluation-auto-eval",
  "evaluation-test-cases-result-gen",
  "evaluation-metrics-gen",
  "evaluation-builder",
  "evaluation-dataset-generation",
  "knowledge_base_upload",
  "application-variant-report-generation",
  "application-interaction-evaluation",
  "deploy-inference-model",
  "update-inference-model"
).annotations({ identifier: "AsyncJobType" })

/** A job's status: an upload's (`Running`, `Completed`, `Failed`, `Canceled`); the kit has no `Pending` job. */
export const AsyncJobStatus = Schema.Literal("Pending", "Running", "Completed", "Failed", "Canceled").annotations({
  identifier: "AsyncJobStatus"
})
export type AsyncJobStatus = typeof AsyncJobStatus.Type

/**
 * One job (the SDK's `AsyncJobListResponse`): `job_metadata` says what it is (the upload, or the
 * schedule run) and why it ended so; `progress` counts an upload's artifacts by status.
 */
export class AsyncJob extends Schema.Class<AsyncJob>("AsyncJob")({
  id: Id,
  account_id: Id,
  job_type: AsyncJobType,
  status: AsyncJobStatus,
  created_by_user_id: Nullable(Schema.String),
  job_metadata: Nullable(JsonObject),
  parent_job_id: Nullable(Id),
  progress: Nullable(JsonObject),
  created_at: DateTimeString,
  updated_at: DateTimeString
}) {}

/** `status`: one job status, `Active` (`Pending` or `Running`) or `All` (the same as none). */
export const AsyncJobListQuery = Schema.Struct({
  ...V4PageQuery,
  status: Schema.optionalWith(Schema.Literal("Active", "All", "Pending", "Running", "Completed", "Failed", "Canceled"), { exact: true })
})
