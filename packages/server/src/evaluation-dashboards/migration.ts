/**
 * The tables of evaluation dashboards: the dashboards (with the columns lists filter and sort on),
 * their tags lowered for case-insensitive matching, their widgets and the widgets' results.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"
import { documentTable } from "../sql/documents.js"
import computationsMigration from "./computationsMigration.js"
import dashboardIndexesMigration from "./dashboardIndexesMigration.js"

const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes

  yield* documentTable("evaluation_dashboards", [
    `name ${t.text} NOT NULL`,
    `name_lower ${t.text} NOT NULL`,
    `updated_at ${t.timestamp} NOT NULL`,
    `archived_at ${t.timestamp}`,
    `evaluation_id ${t.text}`,
    `evaluation_group_id ${t.text}`,
    `created_by_id ${t.text} NOT NULL`
  ])
  // keyset order of each sortable field besides created_at (documentTable indexes that one)
  yield* sql`CREATE INDEX evaluation_dashboards_account_updated ON evaluation_dashboards (account_id, updated_at, id)`
  yield* sql`CREATE INDEX evaluation_dashboards_account_name ON evaluation_dashboards (account_id, name, id)`
  yield* sql`CREATE INDEX evaluation_dashboards_account_evaluation ON evaluation_dashboards (account_id, evaluation_id)`
  yield* sql`CREATE INDEX evaluation_dashboards_account_group ON evaluation_dashboards (account_id, evaluation_group_id)`
  yield* sql`CREATE INDEX evaluation_dashboards_account_creator ON evaluation_dashboards (account_id, created_by_id)`

  yield* sql.unsafe(`CREATE TABLE evaluation_dashboard_tags (
    dashboard_id ${t.text} NOT NULL,
    tag_lower ${t.text} NOT NULL,
    PRIMARY KEY (dashboard_id, tag_lower)
  )`)
  yield* sql`CREATE INDEX evaluation_dashboard_tags_tag ON evaluation_dashboard_tags (tag_lower, dashboard_id)`

  yield* documentTable("evaluation_dashboard_widgets", [`dashboard_id ${t.text} NOT NULL`])
  yield* sql`CREATE INDEX evaluation_dashboard_widgets_dashboard ON evaluation_dashboard_widgets (dashboard_id)`

  yield* documentTable("evaluation_dashboard_widget_results", [`dashboard_id ${t.text} NOT NULL`, `widget_id ${t.text} NOT NULL`])
  yield* sql`CREATE INDEX evaluation_dashboard_widget_results_dashboard ON evaluation_dashboard_widget_results (dashboard_id)`
})

/** The evaluation dashboards migrations, by id (listed in ../migrations.ts). */
export const evaluationDashboardsMigrations = {
  "0012_evaluation_dashboards": created,
  "0032_widget_computations": computationsMigration,
  "0037_dashboard_widget_indexes": dashboardIndexesMigration
}
