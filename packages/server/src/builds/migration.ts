import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"
import { countRows } from "../sql/documentCounts.js"
import { documentTable } from "../sql/documents.js"

/**
 * The tables of builds (docs/builds.md): a document per build, with what the list sorts on
 * (`image_name`) and its `status` (what the engine's start looks for, unfinished builds), counted
 * so the unfiltered list's total is one read; and the builds' log lines, numbered from 0 per build
 * (`seq`), what the log stream reads after the last line it sent.
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* documentTable("builds", (t) => [
    `image_name ${t.text} NOT NULL`,
    `status ${t.text} NOT NULL`
  ])
  yield* sql`CREATE INDEX builds_account_image_name ON builds (account_id, image_name, id)`
  yield* sql`CREATE INDEX builds_status ON builds (status)`
  yield* countRows("builds", { archived: false })
  yield* sql.unsafe(`CREATE TABLE build_logs (
    build_id ${t.text} NOT NULL,
    seq ${t.integer} NOT NULL,
    line ${t.text} NOT NULL,
    PRIMARY KEY (build_id, seq)
  )`)
})

/** The builds migrations, by id (listed in ../migrations.ts). */
export const buildsMigrations = {
  "0063_builds": created
}
