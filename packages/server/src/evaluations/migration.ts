/**
 * The tables of evaluations: the evaluations (with the columns lists filter and sort on: the name
 * lowered, for the case-insensitive substring filter and name order, and `archived_at`) and their
 * tags lowered, one row per distinct tag, for the case-insensitive any-of tag filter.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"
import { documentTable } from "../sql/documents.js"
import statusMigration from "./statusMigration.js"
import itemsMigration from "./itemsMigration.js"

const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes

  yield* documentTable("evaluations", [`name_lower ${t.text} NOT NULL`, `archived_at ${t.timestamp}`])
  // keyset order of `sort_by=name` (documentTable indexes created_at)
  yield* sql`CREATE INDEX evaluations_account_name ON evaluations (account_id, name_lower, id)`

  yield* sql.unsafe(`CREATE TABLE evaluation_tags (
    evaluation_id ${t.text} NOT NULL,
    tag_lower ${t.text} NOT NULL,
    PRIMARY KEY (evaluation_id, tag_lower)
  )`)
  yield* sql`CREATE INDEX evaluation_tags_tag ON evaluation_tags (tag_lower, evaluation_id)`
})

/** The evaluations migrations, by id (listed in ../migrations.ts). */
export const evaluationsMigrations = {
  "0011_evaluations": created,
  "0020_evaluation_statuses": statusMigration,
  "0031_evaluation_items": itemsMigration
}
