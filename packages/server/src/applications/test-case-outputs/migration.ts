/**
 * The tables of test case outputs and variant reports (docs/applications.md "Test case outputs",
 * "Reports"): document tables, counted, with real columns for what their lists filter on. An
 * output of a report is unique per report and test case, so a report's job that runs a step again
 * (after kill -9) stores no second output.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { countRows } from "../../sql/documentCounts.js"
import { documentTable } from "../../sql/documents.js"

const outputs = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("application_test_case_outputs", (t) => [
    `application_variant_id ${t.text} NOT NULL`,
    `evaluation_dataset_id ${t.text} NOT NULL`,
    `evaluation_dataset_version_num ${t.integer} NOT NULL`,
    `test_case_id ${t.text} NOT NULL`,
    // the report whose job produced the output; NULL for an output of a batch
    `application_variant_report_id ${t.text}`,
    `application_test_case_output_group_id ${t.text}`
  ])
  yield* sql`CREATE INDEX application_test_case_outputs_variant ON application_test_case_outputs (application_variant_id)`
  yield* sql`CREATE UNIQUE INDEX application_test_case_outputs_report_case ON application_test_case_outputs (application_variant_report_id, test_case_id)`
  yield* countRows("application_test_case_outputs", { archived: false })
})

const reports = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("application_variant_reports", (t) => [
    `application_spec_id ${t.text} NOT NULL`,
    `application_variant_id ${t.text} NOT NULL`,
    // 1 while the report's job has not ended (what the engine's start goes on with)
    `unfinished ${t.integer} NOT NULL`
  ])
  yield* sql`CREATE INDEX application_variant_reports_variant ON application_variant_reports (application_variant_id)`
  yield* countRows("application_variant_reports", { archived: false })
})

/** The migrations of test case outputs and reports, by id (listed in ../../migrations.ts). */
export const applicationReportsMigrations = {
  "0054_application_test_case_outputs": outputs,
  "0055_application_variant_reports": reports
}
