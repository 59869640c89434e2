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

/**
 * The search by `names` and `statuses` (a name's errors: docs/spans.md "Search"): the account's
 * spans of one name and status in start order, so such a page reads its own rows only, where the
 * start index reads every span of the account back to the page's last one (one in 25 is an
 * `ERROR`: about 1,300 for a page of 50). One index for both filters (not one each): a span
 * batch writes every index of every row, and a search by a name alone or a status alone finds its
 * page soon enough on the start index.
 */
const byNameAndStatus = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX spans_account_name_status ON spans (account_id, name, status, start_ms, id)`
})

/** The spans migrations, by id (listed in ../migrations.ts). */
export const spansMigrations = {
  "0058_spans": created,
  "0073_spans_name_status": byNameAndStatus
}
