/**
 * Uploads (`kb_uploads`, migration 0033): documents with the knowledge base, the status and, for
 * an upload a schedule's firing made, that firing (unique: a firing repeated finds its upload).
 */
import { SqlClient } from "@effect/sql"
import {
  KnowledgeBaseUploadItem,
  LocalChunk,
  Nullable,
  type UploadStatus,
  UploadTaggingInformation
} from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import type { LifecycleEntity } from "../../engine/Lifecycles.js"
import { makeDocuments } from "../../sql/documents.js"

/** An upload as stored: the list's fields and what its run needs. */
export class StoredUpload extends Schema.Class<StoredUpload>("StoredUpload")({
  ...KnowledgeBaseUploadItem.fields,
  force_reupload: Schema.Boolean,
  tagging_information: Nullable(UploadTaggingInformation),
  /** A `LocalChunks` upload's chunks. */
  chunks: Nullable(Schema.Array(LocalChunk)),
  /** `<schedule id>#<firing>` for an upload a schedule's firing made. */
  schedule_firing: Nullable(Schema.String),
  /** Files found unchanged (not read again) and artifacts removed with their files, once planned. */
  unchanged: Schema.Int,
  removed: Schema.Int
}) {}

/** The list item of a stored upload. */
export const uploadItem = (upload: StoredUpload) =>
  new KnowledgeBaseUploadItem({
    id: upload.id,
    knowledge_base_id: upload.knowledge_base_id,
    data_source_config: upload.data_source_config,
    data_source_id: upload.data_source_id,
    chunking_strategy_config: upload.chunking_strategy_config,
    created_by_schedule_id: upload.created_by_schedule_id,
    data_source_idempotency_key: upload.data_source_idempotency_key,
    status: upload.status,
    status_reason: upload.status_reason,
    updated_at: upload.updated_at,
    account_id: upload.account_id,
    created_by_user_id: upload.created_by_user_id,
    created_by_identity_type: upload.created_by_identity_type,
    created_at: upload.created_at
  }, true)

export class UploadsRepo extends Effect.Service<UploadsRepo>()("@platform-kit/server/UploadsRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "kb_uploads",
      label: "Upload",
      schema: StoredUpload,
      columns: (upload) => ({
        id: upload.id,
        account_id: upload.account_id,
        created_at: upload.created_at,
        knowledge_base_id: upload.knowledge_base_id,
        status: upload.status,
        data_source_id: upload.data_source_id,
        schedule_firing: upload.schedule_firing
      })
    })
    const sql = yield* SqlClient.SqlClient

    /** Upload `id` of knowledge base `knowledgeBaseId`, if there is one. */
    const findInKnowledgeBase = (knowledgeBaseId: string, id: string, accountIds: ReadonlyArray<string>) =>
      Effect.map(documents.findById(id, accountIds), Option.filter((upload) => upload.knowledge_base_id === knowledgeBaseId))

    /** The upload a schedule's firing made, if it made one. */
    const ofFiring = (scheduleFiring: string, accountId: string) =>
      documents.findFirst([accountId], [sql`schedule_firing = ${scheduleFiring}`])

    /** One v4 page of the uploads of `knowledgeBaseId`, newest first, in `status` when given. */
    const pageOfKnowledgeBase = (
      knowledgeBaseId: string,
      accountId: string,
      page: { readonly page: number; readonly limit: number },
      status?: UploadStatus
    ) =>
      documents.page({
        accountIds: [accountId],
        where: [sql`knowledge_base_id = ${knowledgeBaseId}`, ...(status === undefined ? [] : [sql`status = ${status}`])],
        ...page
      })

    /** Every upload still running: what the engine's start goes on with. */
    const running: Effect.Effect<ReadonlyArray<LifecycleEntity>> = sql<{ id: string; account_id: string }>`
      SELECT id, account_id FROM kb_uploads WHERE status = 'Running' ORDER BY created_at, id`.pipe(
      Effect.map((rows) => rows.map((row) => ({ id: row.id, account_id: row.account_id }))),
      Effect.orDie
    )

    /** Deletes the uploads of `knowledgeBaseId` (its deletion, inside the caller's transaction). */
    const removeOfKnowledgeBase = (knowledgeBaseId: string) =>
      Effect.zipRight(
        Effect.orDie(sql`DELETE FROM kb_upload_files WHERE upload_id IN (SELECT id FROM kb_uploads WHERE knowledge_base_id = ${knowledgeBaseId})`),
        Effect.orDie(sql`DELETE FROM kb_uploads WHERE knowledge_base_id = ${knowledgeBaseId}`)
      )

    /** Deletes the uploads of data source `dataSourceId` into `knowledgeBaseId` (its connection's delete; a running one stops). */
    const removeOfDataSource = (knowledgeBaseId: string, dataSourceId: string) =>
      Effect.orDie(sql`DELETE FROM kb_uploads WHERE knowledge_base_id = ${knowledgeBaseId} AND data_source_id = ${dataSourceId}`)

    /** Keeps the files posted with upload `uploadId` until it ends (inside the create's transaction). */
    const saveFiles = (uploadId: string, files: ReadonlyArray<{ readonly name: string; readonly content: Uint8Array }>) =>
      Effect.forEach(files, (file) => sql`INSERT INTO kb_upload_files ${sql.insert({ upload_id: uploadId, name: file.name, content: Buffer.from(file.content) })}`, {
        discard: true
      }).pipe(Effect.orDie)

    /** The names and sizes of the files of upload `uploadId`, by name. */
    const fileSizes = (uploadId: string) =>
      sql<{ name: string; size: number }>`SELECT name, length(content) AS size FROM kb_upload_files WHERE upload_id = ${uploadId} ORDER BY name`.pipe(
        Effect.map((rows) => rows.map((row) => ({ name: row.name, size: Number(row.size) }))),
        Effect.orDie
      )

    /** The content of each of the files `names` of upload `uploadId`, or none (gone with its upload). */
    const readFiles = (uploadId: string, names: ReadonlyArray<string>) =>
      Effect.map(
        names.length === 0 ? Effect.succeed([]) : Effect.orDie(
          sql<{ name: string; content: Uint8Array }>`SELECT name, content FROM kb_upload_files WHERE upload_id = ${uploadId} AND ${sql.in("name", names)}`
        ),
        (rows) => {
          const byName = new Map(rows.map((row) => [row.name, row.content]))
          return names.map((name) => Option.fromNullable(byName.get(name)))
        }
      )

    /** Forgets the files of upload `uploadId` (it has ended). */
    const dropFiles = (uploadId: string) => Effect.orDie(sql`DELETE FROM kb_upload_files WHERE upload_id = ${uploadId}`).pipe(Effect.asVoid)

    return {
      ...documents,
      findInKnowledgeBase,
      ofFiring,
      pageOfKnowledgeBase,
      running,
      removeOfKnowledgeBase,
      removeOfDataSource,
      saveFiles,
      fileSizes,
      readFiles,
      dropFiles
    } as const
  })
}) {}

/** A new upload, `Running`: of a data source (with its id), of a config, or of chunks. */
export const newUpload = (fields: {
  readonly id: string
  readonly knowledge_base_id: string
  readonly data_source_config: StoredUpload["data_source_config"]
  readonly data_source_id: string | null
  readonly chunking_strategy_config: StoredUpload["chunking_strategy_config"]
  readonly force_reupload: boolean
  readonly tagging_information: StoredUpload["tagging_information"]
  readonly chunks: StoredUpload["chunks"]
  readonly created_by_schedule_id: string | null
  readonly schedule_firing: string | null
  readonly account_id: string
  readonly created_by_user_id: string
  readonly created_by_identity_type: StoredUpload["created_by_identity_type"]
  readonly created_at: string
}) =>
  new StoredUpload({
    ...fields,
    data_source_idempotency_key: null,
    status: "Running",
    status_reason: null,
    unchanged: 0,
    removed: 0,
    updated_at: fields.created_at
  }, true)

/** The tags a data source gives the artifacts of an upload that names none. */
export const taggingOfDataSource = (tagging: { readonly tags_to_apply: Readonly<Record<string, unknown>> } | null) =>
  tagging === null ? null : new UploadTaggingInformation({ type: "all", tags_to_apply: { ...tagging.tags_to_apply } })
