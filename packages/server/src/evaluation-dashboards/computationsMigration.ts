/**
 * Widget results say where their computation stands in a column (`computation_status`), so the
 * engine's start finds the computations a crash interrupted. Rows written before are `pending`:
 * nothing computed them.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`ALTER TABLE evaluation_dashboard_widget_results ADD COLUMN computation_status ${t.text} NOT NULL DEFAULT 'pending'`)
  yield* sql`CREATE INDEX evaluation_dashboard_widget_results_status ON evaluation_dashboard_widget_results (computation_status)`
  yield* sql`CREATE INDEX evaluation_dashboard_widget_results_widget ON evaluation_dashboard_widget_results (widget_id)`
})
