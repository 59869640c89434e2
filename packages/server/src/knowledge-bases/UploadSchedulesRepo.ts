import { SqlClient } from "@effect/sql"
import { KnowledgeBaseConnection, KnowledgeBaseDataSource, UploadSchedule } from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import { makeDocuments } from "../sql/documents.js"

export class UploadSchedulesRepo extends Effect.Service<UploadSchedulesRepo>()(
  "@platform-kit/server/UploadSchedulesRepo",
  {
    effect: Effect.gen(function*() {
      const documents = yield* makeDocuments({
        table: "kb_upload_schedules",
        label: "Upload schedule",
        schema: UploadSchedule,
        columns: (schedule) => ({
          id: schedule.id,
          account_id: schedule.account_id,
          created_at: schedule.created_at,
          knowledge_base_id: schedule.knowledge_base_id,
          knowledge_base_data_source_id: schedule.knowledge_base_data_source_id
        })
      })
      const sql = yield* SqlClient.SqlClient
      const decodeDataSource = Schema.decodeUnknownSync(Schema.parseJson(KnowledgeBaseDataSource))

      /** The schedule `id` of knowledge base `knowledgeBaseId`, if there is one. */
      const findInKnowledgeBase = (knowledgeBaseId: string, id: string, accountIds: ReadonlyArray<string>) =>
        documents.findById(id, accountIds).pipe(
          Effect.map(Option.filter((schedule) => schedule.knowledge_base_id === knowledgeBaseId))
        )

      /**
       * The connections of each knowledge base: every data source one of its upload schedules
       * names (once, in the order first connected), with the time an artifact of that data source
       * was last registered on the knowledge base.
       */
      const connections = (knowledgeBaseIds: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const out = new Map<string, Array<KnowledgeBaseConnection>>(knowledgeBaseIds.map((id) => [id, []]))
          if (knowledgeBaseIds.length === 0) return out
          const rows = yield* sql<{
            knowledge_base_id: string
            doc: string
            last_uploaded_at: string | null
          }>`SELECT c.knowledge_base_id, d.doc, u.last_uploaded_at
FROM (
  SELECT knowledge_base_id, knowledge_base_data_source_id, MIN(created_at) AS connected_at
  FROM kb_upload_schedules WHERE ${sql.in("knowledge_base_id", knowledgeBaseIds)}
  GROUP BY knowledge_base_id, knowledge_base_data_source_id
) c
JOIN knowledge_base_data_sources d ON d.id = c.knowledge_base_data_source_id
LEFT JOIN (
  SELECT knowledge_base_id, knowledge_base_data_source_id, MAX(created_at) AS last_uploaded_at
  FROM kb_artifacts WHERE ${sql.in("knowledge_base_id", knowledgeBaseIds)}
  GROUP BY knowledge_base_id, knowledge_base_data_source_id
) u ON u.knowledge_base_id = c.knowledge_base_id AND u.knowledge_base_data_source_id = c.knowledge_base_data_source_id
ORDER BY c.connected_at, d.id`
          for (const row of rows) {
            out.get(row.knowledge_base_id)?.push(
              new KnowledgeBaseConnection({
                last_uploaded_at: row.last_uploaded_at,
                deletion_status: null,
                knowledge_base_data_source: decodeDataSource(row.doc)
              })
            )
          }
          return out
        }).pipe(Effect.orDie)

      /** One v4 page of the schedules of knowledge base `knowledgeBaseId` (in `accountId`). */
      const pageOfKnowledgeBase = (knowledgeBaseId: string, accountId: string, page: { readonly page: number; readonly limit: number }) =>
        documents.page({ accountIds: [accountId], where: [sql`knowledge_base_id = ${knowledgeBaseId}`], ...page })

      return { ...documents, findInKnowledgeBase, pageOfKnowledgeBase, connections } as const
    })
  }
) {}
