/**
 * The chunks of a knowledge base (as the real SDK reads them): what a query answers, the
 * knowledge base's and an artifact's chunk lists, and an artifact read with its chunks.
 * Retrieval and scoring: docs/knowledge-bases.md "Retrieval".
 */
import { Schema } from "effect"
import { DateTimeString, Id, JsonObject, NonEmptyString, Nullable, Optional, V4PageQuery } from "./common.js"
import { KnowledgeBaseArtifact } from "./knowledge-bases.js"

/**
 * A chunk as a query (and the knowledge base's chunk list) answers it (the SDK's `Chunk`):
 * `score` in 0..1, higher is closer; `metadata` the artifact's fields, its tags and the chunk's own
 * metadata; `embedding` only with `include_embeddings`, else `null`.
 */
export class Chunk extends Schema.Class<Chunk>("Chunk")({
  chunk_id: Id,
  score: Schema.Number,
  text: Schema.String,
  metadata: Nullable(JsonObject),
  /** The artifact's name. */
  title: Nullable(Schema.String),
  attachment_url: Nullable(Schema.String),
  user_supplied_metadata: Nullable(JsonObject),
  embedding: Nullable(Schema.Array(Schema.Number))
}) {}

/** `{chunks: […]}`, the SDK's `SyncChunkPagination` envelope. */
export class ChunkList extends Schema.Class<ChunkList>("ChunkList")({
  chunks: Schema.Array(Chunk)
}) {}

/** A metadata field matched against a pattern (`*` any run of characters, `?` one). */
export class WildcardFilter extends Schema.Class<WildcardFilter>("WildcardFilter")({
  value: Schema.String.pipe(Schema.maxLength(1_000)),
  case_insensitive: Optional(Schema.Boolean)
}) {}

/** A metadata filter's value: a JSON scalar, or a list of at most 1,000 of them (any of). */
const FilterValue = Schema.Union(
  Schema.String,
  Schema.Number,
  Schema.Boolean,
  Schema.Array(Schema.Union(Schema.String, Schema.Number, Schema.Boolean)).pipe(Schema.maxItems(1_000))
)

/** A metadata field's name in a filter: 1–256 characters, no `"`, `\\` or control character. */
const fieldName = /^[^"\\\u0000-\u001f]{1,256}$/

/**
 * At most 64 fields in one filter, each name a `fieldName` (checked on the whole object: a key
 * refinement of a Record would drop a bad key silently, not refuse it).
 */
const checkedFields = <A extends object>(self: Schema.Schema<A, any>) =>
  self.pipe(Schema.filter((record) => {
    const keys = Object.keys(record)
    if (keys.length > 64) return "At most 64 fields"
    const bad = keys.find((key) => !fieldName.test(key))
    return bad === undefined || `Not a metadata field's name (1 to 256 characters, no quotes, backslashes or control characters): ${JSON.stringify(bad)}`
  }))

/** `metadata_filters`: field → value; a chunk matches when each field equals its value (or one of them). */
export const MetadataFilters = Schema.Record({ key: Schema.String, value: FilterValue }).pipe(checkedFields).annotations({
  identifier: "MetadataFilters"
})
export type MetadataFilters = typeof MetadataFilters.Type

/** `POST /v4/knowledge-bases/{id}/query`. */
export class KnowledgeBaseQuery extends Schema.Class<KnowledgeBaseQuery>("KnowledgeBaseQuery")({
  query: NonEmptyString.pipe(Schema.maxLength(100_000)),
  /** How many chunks, best first; every chunk when left out. */
  top_k: Optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1), Schema.lessThanOrEqualTo(10_000))),
  include_embeddings: Optional(Schema.Boolean),
  metadata_filters: Optional(MetadataFilters),
  /** Accepted; the kit logs nothing more for it. */
  verbose: Optional(Schema.Boolean),
  wildcard_filters: Optional(Schema.Record({ key: Schema.String, value: WildcardFilter }).pipe(checkedFields))
}) {}

/** `GET /v4/knowledge-bases/{id}/chunks`: one chunk by id, or up to `max_chunks` (default 10, at most 2000) matching the filters. */
export const KnowledgeBaseChunksQuery = Schema.Struct({
  chunk_id: Schema.optionalWith(Id, { exact: true }),
  max_chunks: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 2000)), { exact: true }),
  /** JSON text of a `MetadataFilters` object. */
  metadata_filters: Schema.optionalWith(Schema.parseJson(MetadataFilters), { exact: true })
})

export const ChunkStatus = Schema.Literal("Pending", "Completed", "Failed").annotations({ identifier: "ChunkStatus" })

/** A chunk as an artifact's chunk list answers it (the SDK's `ArtifactChunk`). */
export class ArtifactChunk extends Schema.Class<ArtifactChunk>("ArtifactChunk")({
  id: Id,
  artifact_id: Id,
  chunk_position: Schema.Int,
  status: ChunkStatus,
  text: Schema.String,
  metadata: Nullable(JsonObject),
  status_reason: Nullable(Schema.String),
  user_supplied_metadata: Nullable(JsonObject),
  created_at: DateTimeString
}) {}

export const ArtifactChunksQuery = Schema.Struct({
  ...V4PageQuery,
  chunk_status: Schema.optionalWith(ChunkStatus, { exact: true })
})

/** A chunk inside an artifact read (the SDK's `Artifact.chunks[]`). */
export class ArtifactChunkEntry extends Schema.Class<ArtifactChunkEntry>("ArtifactChunkEntry")({
  chunk_id: Id,
  chunk_position: Schema.Int,
  text: Schema.String,
  upload_status: Schema.Literal("Embedding", "Pending", "Completed", "Failed", "Uploading"),
  metadata: Nullable(JsonObject),
  status_reason: Nullable(Schema.String),
  user_supplied_metadata: Nullable(JsonObject)
}) {}

/** An artifact read by id (the SDK's `Artifact`): its fields and its chunks in order. */
export class KnowledgeBaseArtifactWithChunks extends Schema.Class<KnowledgeBaseArtifactWithChunks>("KnowledgeBaseArtifactWithChunks")({
  ...KnowledgeBaseArtifact.fields,
  chunks: Schema.Array(ArtifactChunkEntry)
}) {}

/** `status_filter`: only the chunks in this status. */
export const ArtifactGetQuery = Schema.Struct({
  status_filter: Schema.optionalWith(ChunkStatus, { exact: true })
})

/**
 * `POST` and `PUT /v4/knowledge-bases/{kb}/artifacts/{artifact_id}/chunks[/{chunk_id}]`: a chunk
 * written by hand into a `LocalChunks` artifact (the SDK's `chunk_create_params` /
 * `chunk_put_params`). `text` must hold more than white space (there is nothing to embed else);
 * `metadata` is the chunk's own (answered as `user_supplied_metadata`, and merged into `metadata`).
 */
export class ArtifactChunkWrite extends Schema.Class<ArtifactChunkWrite>("ArtifactChunkWrite")({
  chunk_position: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0), Schema.lessThanOrEqualTo(2_147_483_647)),
  text: Schema.String.pipe(
    Schema.maxLength(1_000_000),
    Schema.filter((text) => text.trim() !== "" || "text must hold more than white space")
  ),
  metadata: Optional(JsonObject)
}) {}

/** What a chunk's delete answers (the SDK's `ChunkDeleteResponse`). */
export class DeleteArtifactChunkResponse extends Schema.Class<DeleteArtifactChunkResponse>("DeleteArtifactChunkResponse")({
  artifact_id: Id,
  chunk_id: Id,
  deleted: Schema.Boolean
}) {}
