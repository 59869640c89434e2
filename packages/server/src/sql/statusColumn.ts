/**
 * For a migration: gives the document table `table` a `status` column, indexed, filled from each
 * row's document (its `status` field), for a family whose lifecycle starts to query by status.
 * Reads the documents as JSON, not through a Schema, so the migrations that use it stay frozen.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "./dialect.js"

const batch = 500

export const statusColumnFromDocuments = (table: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const t = yield* columnTypes
    yield* sql.unsafe(`ALTER TABLE ${table} ADD COLUMN status ${t.text}`)
    let after = ""
    for (;;) {
      const rows = yield* sql<{ id: string; doc: string }>`SELECT id, doc FROM ${sql(table)} WHERE id > ${after} ORDER BY id LIMIT ${batch}`
      for (const row of rows) {
        yield* sql`UPDATE ${sql(table)} SET status = ${JSON.parse(row.doc).status} WHERE id = ${row.id}`
      }
      if (rows.length < batch) break
      after = rows[rows.length - 1]!.id
    }
    yield* sql.unsafe(`CREATE INDEX ${table}_status ON ${table} (status)`)
  })
