import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"

/**
 * The table of spans: the span's wire JSON in `doc` (and the form of the Schema that wrote it,
 * sql/documentForms.ts), beside the columns search filters and sorts on. A span id is unique
 * within its account, so the key is `(account_id, id)`. `start_ms` is the start in epoch
 * milliseconds, `duration_us` the end minus the start in microseconds (NULL until the span has an
 * end), `search_text` the lowered text values of `input` and `output` (sql/like.ts). Two indexes
 * besides the key: the account's spans by start (every search's order) and a trace's spans by
 * start (the trace filters, `assessment_types`).
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`CREATE TABLE spans (
    account_id ${t.text} NOT NULL,
    id ${t.text} NOT NULL,
    trace_id ${t.text} NOT NULL,
    parent_id ${t.text},
    name ${t.text} NOT NULL,
    start_ms ${t.bigint} NOT NULL,
    duration_us ${t.bigint},
    status ${t.text},
    type ${t.text},
    group_id ${t.text},
    application_variant_id ${t.text},
    search_text ${t.text} NOT NULL,
    doc ${t.json} NOT NULL,
    form ${t.text},
    PRIMARY KEY (account_id, id)
  )`)
  yield* sql`CREATE INDEX spans_account_start ON spans (account_id, start_ms, id)`
  yield* sql`CREATE INDEX spans_account_trace ON spans (account_id, trace_id, start_ms, id)`
})

/** The spans migrations, by id (listed in ../migrations.ts). */
export const spansMigrations = {
  "0058_spans": created
}
