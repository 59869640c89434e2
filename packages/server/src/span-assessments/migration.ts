import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { documentTable } from "../sql/documents.js"

/**
 * The table of span assessments. `id` is the assessment id; `trace_id`, `span_id` and
 * `assessment_type` are what the list filters on, with an index for each way in (by span, by
 * trace), ordered by creation.
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("span_assessments", (t) => [
    `trace_id ${t.text} NOT NULL`,
    `span_id ${t.text} NOT NULL`,
    `assessment_type ${t.text} NOT NULL`
  ])
  yield* sql`CREATE INDEX span_assessments_account_span ON span_assessments (account_id, span_id, created_at, id)`
  yield* sql`CREATE INDEX span_assessments_account_trace ON span_assessments (account_id, trace_id, created_at, id)`
})

/** The span assessments migrations, by id (listed in ../migrations.ts). */
export const spanAssessmentsMigrations = {
  "0013_span_assessments": created
}
