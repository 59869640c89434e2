/**
 * The items of evaluations (docs/evaluations.md "Items"): a document table with the evaluation
 * they belong to, their order (`sort_key`: the evaluation's creation time, then the item's
 * position in it) and where their run stands (`run_status`: `pending` until the evaluation's tasks
 * ran on it, then `successful` or `failed`, with the alias of the task that failed), which the run
 * reads its next items and its counts by.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { documentTable } from "../sql/documents.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("evaluation_items", (t) => [
    `evaluation_id ${t.text} NOT NULL`,
    `sort_key ${t.text} NOT NULL`,
    `run_status ${t.text} NOT NULL`,
    `run_error_alias ${t.text}`
  ])
  yield* sql`CREATE INDEX evaluation_items_run ON evaluation_items (evaluation_id, run_status, sort_key)`
  yield* sql`CREATE INDEX evaluation_items_account_sort ON evaluation_items (account_id, sort_key, id)`
  yield* sql`CREATE INDEX evaluation_items_evaluation_sort ON evaluation_items (evaluation_id, sort_key, id)`
})
