import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { documentTable } from "../sql/documents.js"
import schedulesMigration from "./schedulesMigration.js"
import failuresMigration from "./failuresMigration.js"
import ingestionMigration from "./ingestionMigration.js"
import fullTextMigration from "./fullTextMigration.js"

/**
 * The tables of knowledge bases, their data sources, upload schedules and artifacts. Other
 * families read `knowledge_bases`, `knowledge_base_data_sources` and `kb_artifacts`
 * (`SELECT id FROM kb_artifacts WHERE knowledge_base_id = ? AND id = ?`) by these names.
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("knowledge_bases")
  yield* documentTable("knowledge_base_data_sources")
  yield* documentTable("kb_upload_schedules", (t) => [
    `knowledge_base_id ${t.text} NOT NULL`,
    `knowledge_base_data_source_id ${t.text} NOT NULL`
  ])
  yield* sql`CREATE INDEX kb_upload_schedules_kb ON kb_upload_schedules (knowledge_base_id, created_at, id)`
  yield* documentTable("kb_artifacts", (t) => [
    `knowledge_base_id ${t.text} NOT NULL`,
    `knowledge_base_data_source_id ${t.text}`,
    `status ${t.text} NOT NULL`
  ])
  yield* sql`CREATE INDEX kb_artifacts_kb ON kb_artifacts (knowledge_base_id, status)`
})

/** The knowledge bases migrations, by id (listed in ../migrations.ts). */
export const knowledgeBasesMigrations = {
  "0004_knowledge_bases": created,
  "0024_upload_schedule_firings": schedulesMigration,
  "0026_upload_schedule_failures": failuresMigration,
  "0033_kb_ingestion": ingestionMigration,
  "0036_kb_full_text_by_statement": fullTextMigration
}
