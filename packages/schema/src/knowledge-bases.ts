/**
 * Knowledge bases (docs/knowledge-bases.md): knowledge bases, their data sources, upload
 * schedules and artifacts. Artifacts are our extension (see docs/knowledge-bases.md): they are
 * what `artifacts_status`, `artifact_count` and draft test case approval count and look up.
 */
import { Either, ParseResult, Schema, SchemaAST } from "effect"
import {
  AuditFields,
  DateTimeString,
  Id,
  JsonObject,
  NonEmptyString,
  Nullable,
  OnlyWithView,
  Optional,
  QueryArray,
  QueryBoolean,
  V4PageQuery
} from "./common.js"

// ---------------------------------------------------------------------------------------------
// Embedding config

/** The models variant: embeddings from a model deployment of the same account. */
export class EmbeddingConfigModelsApi extends Schema.Class<EmbeddingConfigModelsApi>("EmbeddingConfigModelsAPI")({
  type: Schema.Literal("models_api"),
  model_deployment_id: NonEmptyString
}) {}

/**
 * The base variant, as existing clients send it (`EmbeddingConfigBase`): `embedding_model` (a
 * model name such as `openai/text-embedding-ada-002`) and `type` = `base`, optional. A config
 * without `type` is this variant. `embedding_model` may be left out (the platform keeps accepting
 * `{"type":"base"}`). Any other fields are kept as given.
 */
export const EmbeddingConfigBaseInput = Schema.Struct(
  {
    type: Optional(Schema.Literal("base")),
    embedding_model: Optional(NonEmptyString)
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "EmbeddingConfigBaseInput" })

/**
 * The base variant as answered: `type` is always `base`, `embedding_model` is always present
 * (`null` when it was left out on create). Any other fields as given.
 */
export const EmbeddingConfigBase = Schema.Struct(
  {
    type: Schema.Literal("base"),
    embedding_model: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "EmbeddingConfigBase" })

export const EmbeddingConfig = Schema.Union(EmbeddingConfigModelsApi, EmbeddingConfigBase).annotations({
  identifier: "EmbeddingConfig"
})
export type EmbeddingConfig = typeof EmbeddingConfig.Type

const EmbeddingConfigInputMembers = Schema.Union(EmbeddingConfigModelsApi, EmbeddingConfigBaseInput)

/**
 * `embedding_config` in a create body: `type` picks the variant (`models_api`, else base), and the
 * config is then checked as that variant only, so every problem is reported at its own field
 * (`embedding_model`, `model_deployment_id`) and an unknown `type` is a `literal_error` at `type`.
 */
export const EmbeddingConfigInput = Schema.transformOrFail(
  Schema.Struct(
    { type: Schema.optionalWith(Schema.NullOr(Schema.Literal("models_api", "base")), { exact: true }) },
    Schema.Record({ key: Schema.String, value: Schema.Unknown })
  ),
  Schema.typeSchema(EmbeddingConfigInputMembers),
  {
    strict: true,
    decode: (config, options) =>
      config.type === "models_api"
        ? ParseResult.decodeUnknown(EmbeddingConfigModelsApi)(config, options)
        : ParseResult.decodeUnknown(EmbeddingConfigBaseInput)(config, options),
    encode: (config, options) => ParseResult.encodeUnknown(EmbeddingConfigInputMembers)(config, options)
  }
).annotations({
  identifier: "EmbeddingConfigInput",
  // documented (OpenAPI) as the union it decodes to, not as the loose shape it first reads
  [SchemaAST.SurrogateAnnotationId]: EmbeddingConfigInputMembers.ast
})
export type EmbeddingConfigInput = typeof EmbeddingConfigInput.Type


// ---------------------------------------------------------------------------------------------
// Knowledge base

export const IndexBackend = Schema.Literal("BACKEND_A", "BACKEND_B", "BACKEND_C", "BACKEND_D").annotations({
  identifier: "IndexBackend"
})
export type IndexBackend = typeof IndexBackend.Type

/** Views of a knowledge base read (`?view=Connections,ArtifactCount` or repeated). */
export const KnowledgeBaseView = Schema.Literal("Connections", "ArtifactCount", "IndexConfiguration").annotations({
  identifier: "KnowledgeBaseView"
})
export type KnowledgeBaseView = typeof KnowledgeBaseView.Type

/** Per-status counts over every artifact of a knowledge base, whatever its data source. */
export class ArtifactsStatus extends Schema.Class<ArtifactsStatus>("ArtifactsStatus")({
  artifacts_chunking: Schema.Int,
  artifacts_embedding: Schema.Int,
  artifacts_completed: Schema.Int,
  artifacts_pending: Schema.Int,
  artifacts_uploading: Schema.Int,
  artifacts_failed: Schema.Int
}) {}

/** One field of an index's metadata schema; a `complex` field nests its own `fields`. */
export interface IndexFieldDefinition {
  readonly type: "int32" | "string" | "complex"
  readonly filterable: boolean
  readonly searchable: boolean
  /** The nested fields of a `complex` field; `null` for the others. */
  readonly fields: { readonly [name: string]: IndexFieldDefinition } | null
}

export const IndexFieldDefinition: Schema.Schema<IndexFieldDefinition> = Schema.Struct({
  type: Schema.Literal("int32", "string", "complex"),
  filterable: Schema.Boolean,
  searchable: Schema.Boolean,
  fields: Nullable(Schema.Record({ key: Schema.String, value: Schema.suspend(() => IndexFieldDefinition) }))
}).annotations({ identifier: "IndexFieldDefinition" })

/** The effective metadata schema of a knowledge base's index (view `IndexConfiguration`). */
export class KbIndexConfiguration extends Schema.Class<KbIndexConfiguration>("KbIndexConfiguration")({
  fields: Schema.Record({ key: Schema.String, value: IndexFieldDefinition }),
  max_index_size: Schema.Int
}) {}

// ---------------------------------------------------------------------------------------------
// Data sources

/** Where a data source's files are: an object store bucket (the one source the spec shows). */
export class ObjectStoreDataSourceConfig
  extends Schema.Class<ObjectStoreDataSourceConfig>("ObjectStoreDataSourceConfig")({
    source: Schema.Literal("OBJECT_STORE"),
    object_store_bucket: NonEmptyString,
    cloud_region: Schema.String,
    cloud_account_id: Schema.String,
    object_store_prefix: Schema.optionalWith(Schema.String, { default: () => "", nullable: true })
  })
{}

export class TaggingInformation extends Schema.Class<TaggingInformation>("TaggingInformation")({
  type: Schema.Literal("all"),
  tags_to_apply: JsonObject
}) {}

export class KnowledgeBaseDataSource extends Schema.Class<KnowledgeBaseDataSource>("KnowledgeBaseDataSource")({
  id: Id,
  name: Schema.String,
  description: Nullable(Schema.String),
  data_source_config: ObjectStoreDataSourceConfig,
  tagging_information: Nullable(TaggingInformation),
  updated_at: DateTimeString,
  ...AuditFields
}) {}

export class CreateKnowledgeBaseDataSource
  extends Schema.Class<CreateKnowledgeBaseDataSource>("CreateKnowledgeBaseDataSource")({
    name: NonEmptyString,
    description: Optional(Schema.String),
    data_source_config: ObjectStoreDataSourceConfig,
    tagging_information: Optional(TaggingInformation),
    account_id: Optional(Id)
  })
{}

/** `PATCH /v4/knowledge-base-data-sources/{id}`: every field optional; `data_source_config` is not updatable. */
export class UpdateKnowledgeBaseDataSource
  extends Schema.Class<UpdateKnowledgeBaseDataSource>("UpdateKnowledgeBaseDataSource")({
    name: Optional(NonEmptyString),
    description: Optional(Schema.String),
    tagging_information: Optional(TaggingInformation)
  })
{}

/**
 * What `POST /v4/knowledge-base-data-sources/{id}/verify` answers (the SDK leaves it untyped):
 * whether the source can be read, why not, and how many files it would read.
 */
export class DataSourceVerification extends Schema.Class<DataSourceVerification>("DataSourceVerification")({
  knowledge_base_data_source_id: Id,
  readable: Schema.Boolean,
  status_reason: Nullable(Schema.String),
  object_count: Schema.Int
}) {}

/** What a data-source connection's delete answers: artifacts (to be) deleted, by data source id. */
export class DataSourceConnectionDeleteResponse
  extends Schema.Class<DataSourceConnectionDeleteResponse>("DataSourceConnectionDeleteResponse")({
    artifacts_to_delete: Schema.Record({ key: Schema.String, value: Schema.Int }),
    deletion_workflow_id: Nullable(Schema.String)
  })
{}

export const DataSourceConnectionDeleteQuery = Schema.Struct({
  dry_run: Schema.optionalWith(QueryBoolean, { exact: true })
})

/** A data source connected to a knowledge base by an upload schedule (view `Connections`). */
export class KnowledgeBaseConnection extends Schema.Class<KnowledgeBaseConnection>("KnowledgeBaseConnection")({
  /** When an artifact of this data source was last registered on the knowledge base. */
  last_uploaded_at: Nullable(DateTimeString),
  /** `DELETING` while the connection is being removed; no removal exists yet, so `null`. */
  deletion_status: Nullable(Schema.String),
  knowledge_base_data_source: KnowledgeBaseDataSource
}) {}

export class KnowledgeBase extends Schema.Class<KnowledgeBase>("KnowledgeBase")({
  knowledge_base_id: Id,
  /** Legacy (older vector store interface, not served here): always `null`. */
  vector_store_id: Nullable(Schema.String),
  knowledge_base_name: Schema.String,
  embedding_config: EmbeddingConfig,
  metadata: Nullable(JsonObject),
  index_backend: IndexBackend,
  /** `NOT_CLUSTERED`: this service does not cluster knowledge bases. */
  cluster_status: Schema.String,
  artifacts_status: ArtifactsStatus,
  connections: OnlyWithView(Schema.Array(KnowledgeBaseConnection)),
  artifact_count: OnlyWithView(Schema.Int),
  kb_index_configuration: OnlyWithView(Nullable(KbIndexConfiguration)),
  account_id: Id,
  created_by_user_id: Id,
  created_by_identity_type: AuditFields.created_by_identity_type,
  created_at: DateTimeString,
  updated_at: DateTimeString
}) {}

export class CreateKnowledgeBase extends Schema.Class<CreateKnowledgeBase>("CreateKnowledgeBase")({
  knowledge_base_name: NonEmptyString,
  embedding_config: EmbeddingConfigInput,
  metadata: Optional(JsonObject),
  /** Default `BACKEND_A`. */
  index_backend: Optional(IndexBackend),
  account_id: Optional(Id)
}) {}

/** `PATCH /v4/knowledge-bases/{knowledge_base_id}`: the name and the metadata (which replaces the old). */
export class UpdateKnowledgeBase extends Schema.Class<UpdateKnowledgeBase>("UpdateKnowledgeBase")({
  knowledge_base_name: Optional(NonEmptyString),
  metadata: Optional(JsonObject)
}) {}

/** What the update answers (the SDK's `KnowledgeBaseUpdateResponse`): the two fields as they now are. */
export class KnowledgeBaseUpdateResponse extends Schema.Class<KnowledgeBaseUpdateResponse>("KnowledgeBaseUpdateResponse")({
  knowledge_base_name: Schema.String,
  metadata: Nullable(JsonObject)
}) {}

export class DeleteKnowledgeBaseResponse extends Schema.Class<DeleteKnowledgeBaseResponse>("DeleteKnowledgeBaseResponse")({
  deleted: Schema.Boolean,
  knowledge_base_id: Id
}) {}

/** `view` of a knowledge base read (comma-joined or repeated); absent is no view. */
const ViewQuery = { view: Schema.optionalWith(QueryArray(KnowledgeBaseView), { exact: true }) } as const

/** Query schemas are Structs so the OpenAPI document lists their fields as parameters. */
export const KnowledgeBaseGetQuery = Schema.Struct(ViewQuery)

export const KnowledgeBaseListQuery = Schema.Struct({ ...V4PageQuery, ...ViewQuery })

// ---------------------------------------------------------------------------------------------
// Upload schedules

/**
 * Character chunking: `separator` default `"\n\n"`, `chunk_size` ≥ 1 default 1000,
 * `0 ≤ chunk_overlap < chunk_size` default 200 (docs/knowledge-bases.md "Chunking").
 */
export class CharacterChunkingStrategyConfig
  extends Schema.Class<CharacterChunkingStrategyConfig>("CharacterChunkingStrategyConfig")({
    strategy: Schema.Literal("character"),
    separator: Schema.optionalWith(Schema.String, { default: () => "\n\n", nullable: true }),
    chunk_size: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)), {
      default: () => 1000,
      nullable: true
    }),
    chunk_overlap: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)), {
      default: () => 200,
      nullable: true
    })
  })
{}

/**
 * The character config with its cross-field rule `chunk_overlap < chunk_size`, reported at
 * `chunk_overlap` as a `less_than` problem (a class filter would report it at the config itself).
 */
const CheckedCharacterChunkingStrategyConfig = Schema.transformOrFail(
  CharacterChunkingStrategyConfig,
  Schema.typeSchema(CharacterChunkingStrategyConfig),
  {
    strict: true,
    decode: (config) =>
      Either.match(ParseResult.validateEither(Schema.Int.pipe(Schema.lessThan(config.chunk_size)))(config.chunk_overlap), {
        onLeft: (issue) => ParseResult.fail(new ParseResult.Pointer("chunk_overlap", config, issue)),
        onRight: () => ParseResult.succeed(config)
      }),
    encode: ParseResult.succeed
  }
).annotations({ identifier: "CharacterChunkingStrategyConfig" })

/**
 * The other chunking configs: their fields are "not shown" by the spec, so each is an open object
 * tagged by `strategy` (the values existing clients send: `token`, `custom`, `pre_chunked`,
 * `enhanced`), kept as given.
 */
const openStrategy = <Tag extends string>(tag: Tag, identifier: string) =>
  Schema.Struct({ strategy: Schema.Literal(tag) }, Schema.Record({ key: Schema.String, value: Schema.Unknown }))
    .annotations({ identifier })

export const TokenChunkingStrategyConfig = openStrategy("token", "TokenChunkingStrategyConfig")
export const CustomChunkingStrategyConfig = openStrategy("custom", "CustomChunkingStrategyConfig")
export const PreChunkedStrategyConfig = openStrategy("pre_chunked", "PreChunkedStrategyConfig")
export const EnhancedChunkingStrategyConfig = openStrategy("enhanced", "EnhancedChunkingStrategyConfig")

export const ChunkingStrategyConfig = Schema.Union(
  CheckedCharacterChunkingStrategyConfig,
  TokenChunkingStrategyConfig,
  CustomChunkingStrategyConfig,
  PreChunkedStrategyConfig,
  EnhancedChunkingStrategyConfig
).annotations({ identifier: "ChunkingStrategyConfig" })
export type ChunkingStrategyConfig = typeof ChunkingStrategyConfig.Type

export const UploadScheduleStatus = Schema.Literal("HEALTHY", "UNHEALTHY", "ERROR", "PAUSED").annotations({
  identifier: "UploadScheduleStatus"
})

export class UploadSchedule extends Schema.Class<UploadSchedule>("UploadSchedule")({
  id: Id,
  knowledge_base_id: Id,
  knowledge_base_data_source_id: Id,
  chunking_strategy_config: ChunkingStrategyConfig,
  status: UploadScheduleStatus,
  status_reason: Nullable(Schema.String),
  /** Seconds between automatic runs; 0 = none. */
  interval: Schema.Number,
  next_run_at: Nullable(DateTimeString),
  updated_at: DateTimeString,
  ...AuditFields
}) {}

/**
 * `PATCH /v4/knowledge-bases/{kb}/upload-schedules/{id}` (the real SDK's update: every field
 * optional). `status` is the kit's extension: `PAUSED` stops the schedule firing, `HEALTHY`
 * resumes it (docs/knowledge-bases.md).
 */
export class UpdateUploadSchedule extends Schema.Class<UpdateUploadSchedule>("UpdateUploadSchedule")({
  chunking_strategy_config: Optional(ChunkingStrategyConfig),
  interval: Optional(Schema.Number.pipe(Schema.greaterThanOrEqualTo(0))),
  next_run_at: Optional(DateTimeString),
  status: Optional(Schema.Literal("HEALTHY", "PAUSED"))
}) {}

/** One firing of an upload schedule (the kit's extension, `GET …/upload-schedules/{id}/runs`). */
export class UploadScheduleRun extends Schema.Class<UploadScheduleRun>("UploadScheduleRun")({
  id: Id,
  upload_schedule_id: Id,
  knowledge_base_id: Id,
  knowledge_base_data_source_id: Id,
  /** The `next_run_at` the run was due at. */
  scheduled_at: DateTimeString,
  /** When it ran. */
  created_at: DateTimeString,
  status: Schema.Literal("COMPLETED", "FAILED"),
  /** What the ingestion step said (a failure's reason). */
  status_reason: Nullable(Schema.String),
  account_id: Id
}) {}

export class CreateUploadSchedule extends Schema.Class<CreateUploadSchedule>("CreateUploadSchedule")({
  knowledge_base_data_source_id: NonEmptyString,
  chunking_strategy_config: ChunkingStrategyConfig,
  /** Seconds, ≥ 0; 0 means no automatic runs. */
  interval: Schema.Number.pipe(Schema.greaterThanOrEqualTo(0)),
  next_run_at: Optional(DateTimeString),
  account_id: Optional(Id)
}) {}

// ---------------------------------------------------------------------------------------------
// Artifacts: the files (or chunk sets) of a knowledge base, made by its uploads (and by the kit's
// own create, our extension)

/** An artifact's status: the real SDK's eight values (`ArtifactListItem.status`). */
export const ArtifactStatus = Schema.Literal(
  "Pending",
  "Chunking",
  "Uploading",
  "Embedding",
  "Completed",
  "Failed",
  "Canceled",
  "Deleting"
).annotations({ identifier: "ArtifactStatus" })
export type ArtifactStatus = typeof ArtifactStatus.Type

/** The statuses the artifact create took before ingestion existed, lower-cased: still accepted there. */
const LegacyArtifactStatus = Schema.transform(
  Schema.Literal("pending", "uploading", "chunking", "embedding", "completed", "failed"),
  Schema.Literal("Pending", "Uploading", "Chunking", "Embedding", "Completed", "Failed"),
  {
    strict: true,
    decode: (status) => `${status[0]!.toUpperCase()}${status.slice(1)}` as "Pending",
    encode: (status) => status.toLowerCase() as "pending"
  }
)

/** Where an artifact came from (the SDK's `source`): an object store file is `S3`'s (docs/knowledge-bases.md). */
export const ArtifactSource = Schema.Literal(
  "S3",
  "SharePoint",
  "LocalFile",
  "LocalChunks",
  "GoogleDrive",
  "AzureBlobStorage",
  "Confluence",
  "Slack"
).annotations({ identifier: "ArtifactSource" })
export type ArtifactSource = typeof ArtifactSource.Type

/** Per-status counts of an artifact's chunks. */
export class ChunksStatus extends Schema.Class<ChunksStatus>("ChunksStatus")({
  chunks_completed: Schema.Int,
  chunks_failed: Schema.Int,
  chunks_pending: Schema.Int
}) {}

/**
 * An artifact as the list, the create and the update answer it: the SDK's `ArtifactListItem` and
 * `ArtifactUpdateResponse` fields, with the audit fields and the kit's own
 * (`knowledge_base_data_source_id`, `upload_id`: the upload that last ingested it).
 */
export class KnowledgeBaseArtifact extends Schema.Class<KnowledgeBaseArtifact>("KnowledgeBaseArtifact")({
  artifact_id: Id,
  knowledge_base_id: Id,
  artifact_name: Schema.String,
  /** Where it was read from (`s3://bucket/name`, `local://upload/name`, or as given); `null` only for a create without one. */
  artifact_uri: Nullable(Schema.String),
  /** A public link to the file: the kit has none, `null`. */
  artifact_uri_public: Nullable(Schema.String),
  source: ArtifactSource,
  status: ArtifactStatus,
  status_reason: Nullable(Schema.String),
  tags: JsonObject,
  chunks_status: ChunksStatus,
  knowledge_base_data_source_id: Nullable(Id),
  upload_id: Nullable(Id),
  /** The SHA-256 of the content ingested (hex), or as the create gave it. */
  content_modification_identifier: Nullable(Schema.String),
  chunking_strategy_config: Nullable(ChunkingStrategyConfig),
  updated_at: DateTimeString,
  ...AuditFields
}) {}

export class CreateKnowledgeBaseArtifact
  extends Schema.Class<CreateKnowledgeBaseArtifact>("CreateKnowledgeBaseArtifact")({
    /** At most 512 characters (a name and a URI are indexed). */
    artifact_name: NonEmptyString.pipe(Schema.maxLength(512)),
    artifact_uri: Optional(Schema.String.pipe(Schema.maxLength(512))),
    knowledge_base_data_source_id: Optional(Id),
    content_modification_identifier: Optional(Schema.String),
    /** Default `Pending`; the lower-case forms (`pending`, …) are read as their SDK values. */
    status: Optional(Schema.Union(ArtifactStatus, LegacyArtifactStatus)),
    /** Default `LocalFile`. */
    source: Optional(ArtifactSource),
    tags: Optional(JsonObject),
    account_id: Optional(Id)
  })
{}

/** `PATCH /v4/knowledge-bases/{kb}/artifacts/{artifact_id}`: `tags` replaces the artifact's tags (and its chunks' tag metadata). */
export class UpdateKnowledgeBaseArtifact extends Schema.Class<UpdateKnowledgeBaseArtifact>("UpdateKnowledgeBaseArtifact")({
  tags: Optional(JsonObject)
}) {}

export class DeleteArtifactResponse extends Schema.Class<DeleteArtifactResponse>("DeleteArtifactResponse")({
  artifact_id: Id,
  deleted: Schema.Boolean
}) {}

export class BatchDeleteArtifacts extends Schema.Class<BatchDeleteArtifacts>("BatchDeleteArtifacts")({
  artifact_ids: Schema.Array(Id).pipe(Schema.maxItems(10_000))
}) {}

/** The ids of the artifacts deleted (those of the request that were the knowledge base's). */
export class BatchDeleteArtifactsResponse extends Schema.Class<BatchDeleteArtifactsResponse>("BatchDeleteArtifactsResponse")({
  artifact_ids: Schema.Array(Id)
}) {}

/** `status` filter of the artifact list (the SDK's five values). */
export const ArtifactListQuery = Schema.Struct({
  ...V4PageQuery,
  status: Schema.optionalWith(Schema.Literal("Pending", "Completed", "Failed", "Uploading", "Deleting"), { exact: true })
})
