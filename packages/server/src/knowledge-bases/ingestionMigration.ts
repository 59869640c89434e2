/**
 * Migration 0033, ingestion (docs/knowledge-bases.md "Tables"):
 * - `kb_uploads`: uploads (documents), by knowledge base and status, with the data source they
 *   read (a base's connections); `schedule_firing` (unique) names the firing of an upload
 *   schedule that made one, so a firing repeated makes no second.
 * - `kb_upload_files`: the files posted with `upload_files`, kept until their upload ends.
 * - `kb_chunks`: the chunks, one row each (not documents: a query reads thousands), numbered by a
 *   `serialKey` (`seq`) the full-text index and the in-memory vector index key on; the text, its
 *   metadata, its embedding (float32, little-endian) and the embedding's sign bits (`code`). The
 *   chunk's id (a UUID) has no index of its own: an index keyed at random cost every insert a
 *   tenth of its time, for the one read by id (a base's chunk list with `chunk_id`), which scans
 *   the base's chunks instead.
 * - the full-text index of the chunks' text, by knowledge base (sql/dialect.ts `createFullTextIndex`).
 * - `kb_artifacts` gains `artifact_uri` and `upload_id` columns (an upload finds a file's artifact
 *   by its URI); its statuses become the SDK's (`pending` → `Pending`, …) and its documents gain
 *   the SDK's fields (`source`, `tags`, `chunks_status`, …).
 * - `knowledge_bases` gains `chunk_generation` and `chunk_deletions`: counters each change of the
 *   base's chunks moves (and each deletion), which tell a process when its vector index is stale.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes, createFullTextIndex } from "../sql/dialect.js"
import { documentTable } from "../sql/documents.js"

const capitalized = (status: string) => `${status[0]!.toUpperCase()}${status.slice(1)}`

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* documentTable("kb_uploads", (t) => [
    `knowledge_base_id ${t.text} NOT NULL`,
    `status ${t.text} NOT NULL`,
    `data_source_id ${t.text}`,
    `schedule_firing ${t.text}`
  ])
  yield* sql`CREATE INDEX kb_uploads_kb ON kb_uploads (knowledge_base_id, created_at, id)`
  yield* sql`CREATE INDEX kb_uploads_status ON kb_uploads (status)`
  yield* sql`CREATE UNIQUE INDEX kb_uploads_schedule_firing ON kb_uploads (schedule_firing)`

  yield* sql.unsafe(`CREATE TABLE kb_chunks (
    seq ${t.serialKey},
    id ${t.text} NOT NULL,
    account_id ${t.text} NOT NULL,
    knowledge_base_id ${t.text} NOT NULL,
    artifact_id ${t.text} NOT NULL,
    chunk_position ${t.integer} NOT NULL,
    status ${t.text} NOT NULL,
    text ${t.text} NOT NULL,
    metadata ${t.json} NOT NULL,
    user_metadata ${t.json},
    embedding ${t.bytes} NOT NULL,
    code ${t.bytes} NOT NULL,
    created_at ${t.timestamp} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE TABLE kb_upload_files (
    upload_id ${t.text} NOT NULL,
    name ${t.text} NOT NULL,
    content ${t.bytes} NOT NULL,
    PRIMARY KEY (upload_id, name)
  )`)
  yield* sql`CREATE INDEX kb_chunks_kb ON kb_chunks (knowledge_base_id, seq)`
  yield* sql`CREATE INDEX kb_chunks_artifact ON kb_chunks (artifact_id, chunk_position)`
  yield* createFullTextIndex("kb_chunks", "seq", "text", "knowledge_base_id")

  yield* sql.unsafe(`ALTER TABLE kb_artifacts ADD COLUMN artifact_uri ${t.text}`)
  yield* sql.unsafe(`ALTER TABLE kb_artifacts ADD COLUMN upload_id ${t.text}`)
  yield* sql`CREATE INDEX kb_artifacts_uri ON kb_artifacts (knowledge_base_id, artifact_uri)`
  yield* sql`CREATE INDEX kb_artifacts_upload ON kb_artifacts (upload_id)`
  // the artifacts written before: SDK statuses and fields (few rows: the kit's own create made them)
  const rows = yield* sql<{ id: string; doc: string }>`SELECT id, doc FROM kb_artifacts`
  for (const row of rows) {
    const doc = JSON.parse(row.doc) as Record<string, unknown>
    const status = capitalized(String(doc.status ?? "pending"))
    const next = {
      ...doc,
      status,
      artifact_uri_public: null,
      source: "LocalFile",
      status_reason: null,
      tags: {},
      chunks_status: { chunks_completed: 0, chunks_failed: 0, chunks_pending: 0 },
      upload_id: null,
      chunking_strategy_config: null
    }
    yield* sql`UPDATE kb_artifacts SET doc = ${JSON.stringify(next)}, form = NULL, status = ${status}, artifact_uri = ${
      (doc.artifact_uri as string | null | undefined) ?? null
    } WHERE id = ${row.id}`
  }

  yield* sql.unsafe(`ALTER TABLE knowledge_bases ADD COLUMN chunk_generation ${t.integer} NOT NULL DEFAULT 0`)
  yield* sql.unsafe(`ALTER TABLE knowledge_bases ADD COLUMN chunk_deletions ${t.integer} NOT NULL DEFAULT 0`)
})
