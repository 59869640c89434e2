/**
 * Migration 0037: the widgets and widget results of dashboards found by their dashboard through
 * an index on (`dashboard_id`, `account_id`), which matches both conditions of a dashboard's read
 * (DashboardsRepo `present`), where the index on `dashboard_id` alone tied with the accounts' index
 * and SQLite's planner (without statistics) read every widget of the account
 * (docs/evaluation-dashboards.md "Storage").
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP INDEX evaluation_dashboard_widgets_dashboard`
  yield* sql`CREATE INDEX evaluation_dashboard_widgets_dashboard ON evaluation_dashboard_widgets (dashboard_id, account_id)`
  yield* sql`DROP INDEX evaluation_dashboard_widget_results_dashboard`
  yield* sql`CREATE INDEX evaluation_dashboard_widget_results_dashboard ON evaluation_dashboard_widget_results (dashboard_id, account_id)`
})
