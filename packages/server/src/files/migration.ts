import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { countRows } from "../sql/documentCounts.js"
import { documentTable } from "../sql/documents.js"

/**
 * The table of files (docs/files.md): a document per file, next to what the list filters and
 * sorts on (`filename`, its lowered form for the case-insensitive filter, `size`) and the object
 * of the store holding its bytes (`blob`, shared by the account's files with the same bytes;
 * indexed for the count a delete makes). Counted, so the unfiltered list's total is one read.
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("files", (t) => [
    `filename ${t.text} NOT NULL`,
    `filename_lower ${t.text} NOT NULL`,
    `size ${t.bigint} NOT NULL`,
    `blob ${t.text} NOT NULL`
  ])
  yield* sql`CREATE INDEX files_account_filename ON files (account_id, filename, id)`
  yield* sql`CREATE INDEX files_account_size ON files (account_id, size, id)`
  yield* sql`CREATE INDEX files_blob ON files (blob)`
  yield* countRows("files", { archived: false })
})

/** The files migrations, by id (listed in ../migrations.ts). */
export const filesMigrations = {
  "0056_files": created
}
