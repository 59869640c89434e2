import { SqlClient } from "@effect/sql"
import { ArtifactsStatus, KnowledgeBaseArtifact } from "@platform-kit/schema"
import type { ArtifactStatus } from "@platform-kit/schema"
import { Array as Arr, Effect, Option } from "effect"
import { makeDocuments } from "../../sql/documents.js"

/** The statuses of an artifact still being ingested: a cancel (or an upload that fails) ends them. */
export const inProgress: ReadonlyArray<ArtifactStatus> = ["Pending", "Uploading", "Chunking", "Embedding"]

/** The statuses `artifacts_status` counts, by its field. */
const counted = {
  Chunking: "artifacts_chunking",
  Embedding: "artifacts_embedding",
  Completed: "artifacts_completed",
  Pending: "artifacts_pending",
  Uploading: "artifacts_uploading",
  Failed: "artifacts_failed"
} as const satisfies Partial<Record<ArtifactStatus, keyof ArtifactsStatus>>

/** Per-status counts of a set of artifacts (a knowledge base's, an upload's). */
export interface ArtifactCounts {
  readonly status: ArtifactsStatus
  /** Every artifact, whatever its status (`Canceled` and `Deleting` included). */
  readonly total: number
}

const toCounts = (rows: ReadonlyArray<{ readonly status: string; readonly n: number }>): ArtifactCounts => {
  const counts = {
    artifacts_chunking: 0,
    artifacts_embedding: 0,
    artifacts_completed: 0,
    artifacts_pending: 0,
    artifacts_uploading: 0,
    artifacts_failed: 0
  }
  let total = 0
  for (const row of rows) {
    const field = counted[row.status as keyof typeof counted]
    if (field !== undefined) counts[field] += Number(row.n)
    total += Number(row.n)
  }
  return { status: new ArtifactsStatus(counts), total }
}

/**
 * Artifacts live in `kb_artifacts` (`id` = artifact id, plus `knowledge_base_id`, `status`,
 * `artifact_uri`, `upload_id`): the draft test case approval of evaluation datasets looks them up
 * there; an upload finds a file's artifact by its URI.
 */
export class ArtifactsRepo extends Effect.Service<ArtifactsRepo>()("@platform-kit/server/ArtifactsRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "kb_artifacts",
      label: "Artifact",
      schema: KnowledgeBaseArtifact,
      columns: (artifact) => ({
        id: artifact.artifact_id,
        account_id: artifact.account_id,
        created_at: artifact.created_at,
        knowledge_base_id: artifact.knowledge_base_id,
        knowledge_base_data_source_id: artifact.knowledge_base_data_source_id,
        status: artifact.status,
        artifact_uri: artifact.artifact_uri,
        upload_id: artifact.upload_id
      })
    })
    const sql = yield* SqlClient.SqlClient

    /** The artifact `id` of knowledge base `knowledgeBaseId`, if there is one (row-locked inside a transaction). */
    const findInKnowledgeBase = (knowledgeBaseId: string, id: string, accountIds: ReadonlyArray<string>) =>
      documents.findById(id, accountIds).pipe(
        Effect.map(Option.filter((artifact) => artifact.knowledge_base_id === knowledgeBaseId))
      )

    /** The artifact of knowledge base `knowledgeBaseId` read from `uri`, if there is one. */
    const findByUri = (knowledgeBaseId: string, accountId: string, uri: string) =>
      documents.findFirst([accountId], [sql`knowledge_base_id = ${knowledgeBaseId}`, sql`artifact_uri = ${uri}`])

    /** The artifacts of knowledge base `knowledgeBaseId` read from `uris` (500 URIs a query). */
    const ofUris = (knowledgeBaseId: string, accountId: string, uris: ReadonlyArray<string>) =>
      Effect.map(
        Effect.forEach(Arr.chunksOf(uris, 500), (some) =>
          documents.findNarrowed([accountId], [sql`knowledge_base_id = ${knowledgeBaseId}`, sql.in("artifact_uri", some)])),
        (found) => found.flat()
      )

    /** The per-status counts of each knowledge base's artifacts, in one query. */
    const counts = (knowledgeBaseIds: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const rows = knowledgeBaseIds.length === 0 ? [] : yield* sql<{ knowledge_base_id: string; status: string; n: number }>`
SELECT knowledge_base_id, status, COUNT(*) AS n FROM kb_artifacts
WHERE ${sql.in("knowledge_base_id", knowledgeBaseIds)}
GROUP BY knowledge_base_id, status`
        return new Map(knowledgeBaseIds.map((id) => [id, toCounts(rows.filter((row) => row.knowledge_base_id === id))]))
      }).pipe(Effect.orDie)

    /** The per-status counts of the artifacts upload `uploadId` ingested (or is ingesting). */
    const countsOfUpload = (uploadId: string) =>
      sql<{ status: string; n: number }>`SELECT status, COUNT(*) AS n FROM kb_artifacts WHERE upload_id = ${uploadId} GROUP BY status`.pipe(
        Effect.map(toCounts),
        Effect.orDie
      )

    /** The per-status counts of the artifacts of each upload of `uploadIds` (an async job's progress), in one query. */
    const countsOfUploads = (uploadIds: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const rows = uploadIds.length === 0 ? [] : yield* sql<{ upload_id: string; status: string; n: number }>`
SELECT upload_id, status, COUNT(*) AS n FROM kb_artifacts WHERE ${sql.in("upload_id", uploadIds)} GROUP BY upload_id, status`
        return new Map(uploadIds.map((id) => [id, toCounts(rows.filter((row) => row.upload_id === id))]))
      }).pipe(Effect.orDie)

    /** The artifacts of upload `uploadId`, oldest first. */
    const ofUpload = (uploadId: string, accountId: string) => documents.findNarrowed([accountId], [sql`upload_id = ${uploadId}`])

    /** The artifacts of knowledge base `knowledgeBaseId` read from data source `dataSourceId`. */
    const ofDataSource = (knowledgeBaseId: string, dataSourceId: string, accountId: string) =>
      documents.findNarrowed([accountId], [sql`knowledge_base_id = ${knowledgeBaseId}`, sql`knowledge_base_data_source_id = ${dataSourceId}`])

    /** One v4 page of the artifacts of knowledge base `knowledgeBaseId` (in `accountId`), in `status` when given. */
    const pageOfKnowledgeBase = (
      knowledgeBaseId: string,
      accountId: string,
      page: { readonly page: number; readonly limit: number },
      status?: ArtifactStatus
    ) =>
      documents.page({
        accountIds: [accountId],
        where: [sql`knowledge_base_id = ${knowledgeBaseId}`, ...(status === undefined ? [] : [sql`status = ${status}`])],
        ...page
      })

    /** Deletes the artifacts `ids` (their chunks are the caller's to delete in the same transaction). */
    const removeAll = (ids: ReadonlyArray<string>) =>
      Effect.forEach(Arr.chunksOf(ids, 500), (some) => sql`DELETE FROM kb_artifacts WHERE ${sql.in("id", some)}`, { discard: true }).pipe(
        Effect.orDie
      )

    /** Deletes every artifact of `knowledgeBaseId` (its deletion, inside the caller's transaction, with its chunks). */
    const removeOfKnowledgeBase = (knowledgeBaseId: string) => Effect.orDie(sql`DELETE FROM kb_artifacts WHERE knowledge_base_id = ${knowledgeBaseId}`)

    return { ...documents, removeOfKnowledgeBase, findInKnowledgeBase, findByUri, ofUris, pageOfKnowledgeBase, counts, countsOfUpload, countsOfUploads, ofUpload, ofDataSource, removeAll } as const
  })
}) {}
