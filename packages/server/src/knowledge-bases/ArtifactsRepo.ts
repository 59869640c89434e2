import { SqlClient } from "@effect/sql"
import { ArtifactsStatus, KnowledgeBaseArtifact } from "@platform-kit/schema"
import type { ArtifactStatus } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { makeDocuments } from "../sql/documents.js"

const emptyCounts = (): Record<ArtifactStatus, number> => ({
  pending: 0,
  uploading: 0,
  chunking: 0,
  embedding: 0,
  completed: 0,
  failed: 0
})

/** Per-status counts of one knowledge base's artifacts. */
export interface ArtifactCounts {
  readonly status: ArtifactsStatus
  readonly total: number
}

const toCounts = (counts: Record<ArtifactStatus, number>): ArtifactCounts => ({
  status: new ArtifactsStatus({
    artifacts_chunking: counts.chunking,
    artifacts_embedding: counts.embedding,
    artifacts_completed: counts.completed,
    artifacts_pending: counts.pending,
    artifacts_uploading: counts.uploading,
    artifacts_failed: counts.failed
  }),
  total: Object.values(counts).reduce((a, b) => a + b, 0)
})

/**
 * Artifacts live in `kb_artifacts` (`id` = artifact id, plus `knowledge_base_id`): the draft test
 * case approval of evaluation datasets looks them up there.
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
        status: artifact.status
      })
    })
    const sql = yield* SqlClient.SqlClient

    /** The artifact `id` of knowledge base `knowledgeBaseId`, if there is one. */
    const findInKnowledgeBase = (knowledgeBaseId: string, id: string, accountIds: ReadonlyArray<string>) =>
      documents.findById(id, accountIds).pipe(
        Effect.map(Option.filter((artifact) => artifact.knowledge_base_id === knowledgeBaseId))
      )

    /** The per-status counts of each knowledge base's artifacts, in one query. */
    const counts = (knowledgeBaseIds: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const byKb = new Map(knowledgeBaseIds.map((id) => [id, emptyCounts()]))
        if (knowledgeBaseIds.length > 0) {
          const rows = yield* sql<{ knowledge_base_id: string; status: ArtifactStatus; n: number }>`
SELECT knowledge_base_id, status, COUNT(*) AS n FROM kb_artifacts
WHERE ${sql.in("knowledge_base_id", knowledgeBaseIds)}
GROUP BY knowledge_base_id, status`
          for (const row of rows) {
            const counts = byKb.get(row.knowledge_base_id)
            if (counts !== undefined && row.status in counts) counts[row.status] = Number(row.n)
          }
        }
        return new Map([...byKb].map(([id, counts]) => [id, toCounts(counts)]))
      }).pipe(Effect.orDie)

    /** One v4 page of the artifacts of knowledge base `knowledgeBaseId` (in `accountId`). */
    const pageOfKnowledgeBase = (knowledgeBaseId: string, accountId: string, page: { readonly page: number; readonly limit: number }) =>
      documents.page({ accountIds: [accountId], where: [sql`knowledge_base_id = ${knowledgeBaseId}`], ...page })

    return { ...documents, findInKnowledgeBase, pageOfKnowledgeBase, counts } as const
  })
}) {}
