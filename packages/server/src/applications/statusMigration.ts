/**
 * Migration 0021: application deployments get the columns their lifecycle works with (docs/applications.md):
 * `status` (the document's, indexed: the engine finds the deployments still `PENDING` on start
 * without reading every document) and `activation` (how many times the deployment was deployed
 * again after its create: the lifecycle of each activation is a workflow of its own, and a step of
 * an older one moves nothing). Rows written before get the status their document holds.
 *
 * Frozen in time like every migration: it reads the documents as JSON, not through today's Schema.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"

const batch = 500

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`ALTER TABLE application_deployments ADD COLUMN status ${t.text}`)
  yield* sql.unsafe(`ALTER TABLE application_deployments ADD COLUMN activation ${t.integer} NOT NULL DEFAULT 0`)
  let after = ""
  for (;;) {
    const rows = yield* sql<{ id: string; doc: string }>`SELECT id, doc FROM application_deployments WHERE id > ${after} ORDER BY id LIMIT ${batch}`
    for (const row of rows) {
      yield* sql`UPDATE application_deployments SET status = ${JSON.parse(row.doc).status} WHERE id = ${row.id}`
    }
    if (rows.length < batch) break
    after = rows[rows.length - 1]!.id
  }
  yield* sql.unsafe("CREATE INDEX application_deployments_status ON application_deployments (status)")
})
