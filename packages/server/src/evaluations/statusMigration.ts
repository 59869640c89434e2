/**
 * Migration 0020: evaluations written before it carry `status: "pending"`, which the real v5 SDK
 * rejects (it knows `running | completed | failed` only). Every such row is rewritten as a create
 * would write it today: `running` when it has work to do (a pending workflow), else `completed`.
 * The row keeps its `form` (the older Schema's), so reads decode and encode it (sql/documentForms.ts).
 *
 * Frozen in time like every migration: it reads the documents as JSON, not through today's Schema.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

const batch = 500

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  let after = ""
  for (;;) {
    const rows = yield* sql<{ id: string; doc: string }>`SELECT id, doc FROM evaluations WHERE id > ${after} AND CAST(doc AS TEXT) LIKE ${
      "%\"status\":\"pending\"%"
    } ORDER BY id LIMIT ${batch}`
    for (const row of rows) {
      const doc = JSON.parse(row.doc)
      if (doc.status !== "pending") continue
      doc.status = (doc.progress?.workflows?.pending ?? 0) > 0 ? "running" : "completed"
      yield* sql`UPDATE evaluations SET doc = ${JSON.stringify(doc)} WHERE id = ${row.id}`
    }
    if (rows.length < batch) return
    after = rows[rows.length - 1]!.id
  }
})
