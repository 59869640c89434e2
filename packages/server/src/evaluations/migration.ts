/**
 * The tables of evaluations: the evaluations (with the columns lists filter and sort on: the name
 * lowered, for the case-insensitive substring filter and name order, and `archived_at`) and their
 * tags lowered, one row per distinct tag, for the case-insensitive any-of tag filter.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { documentTable } from "../sql/documents.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* documentTable("evaluations", ["name_lower TEXT NOT NULL", "archived_at TEXT"])
  // keyset order of `sort_by=name` (documentTable indexes created_at)
  yield* sql`CREATE INDEX evaluations_account_name ON evaluations (account_id, name_lower, id)`

  yield* sql`CREATE TABLE evaluation_tags (
    evaluation_id TEXT NOT NULL,
    tag_lower TEXT NOT NULL,
    PRIMARY KEY (evaluation_id, tag_lower)
  )`
  yield* sql`CREATE INDEX evaluation_tags_tag ON evaluation_tags (tag_lower, evaluation_id)`
})
