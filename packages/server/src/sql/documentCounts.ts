/**
 * Row counters of document tables, so that a list's `total` (v5) or `total_item_count` (v4)
 * costs one indexed read instead of a COUNT(*) over every row of the account.
 *
 * `document_counts` holds, per (table, account), the number of rows (`total`) and of archived rows
 * (`archived`: `archived_at` set). Triggers (`countingTriggers` in dialect.ts) keep it exact
 * inside the statement that inserts, deletes, archives, restores or moves a row, so every path
 * that writes the table counts, the shared repository's and a family's own SQL alike, in that
 * statement's transaction. `counted_document_tables` names the tables counted and whether they
 * count archived rows: the repository (`makeDocuments`) reads it once when it is built and answers
 * the unfiltered lists of those tables from the counters; every other table, and every filtered
 * list, counts with COUNT(*).
 *
 * A document table starts being counted in a migration, by `countRows`: it installs the triggers,
 * then counts the rows already there, in the migration's transaction (on PostgreSQL the trigger
 * DDL locks the table against writers until the migration commits, so no row is missed or
 * counted twice).
 */
import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { Effect, Option } from "effect"
import { columnTypes, countingTriggers } from "./dialect.js"

/** The counters' tables (one migration, before any `countRows`). */
export const countersTables = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`CREATE TABLE document_counts (
    table_name ${t.text} NOT NULL,
    account_id ${t.text} NOT NULL,
    total ${t.bigint} NOT NULL,
    archived ${t.bigint} NOT NULL,
    PRIMARY KEY (table_name, account_id)
  )`)
  yield* sql.unsafe(`CREATE TABLE counted_document_tables (
    table_name ${t.text} PRIMARY KEY,
    archived ${t.integer} NOT NULL
  )`)
})

/**
 * Starts counting the rows of document `table` (with `archived: true` when it has an
 * `archived_at` column whose lists hide archived rows): triggers, then the rows already there.
 */
export const countRows = (table: string, options: { readonly archived: boolean }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (const statement of countingTriggers(sql, table, options.archived)) yield* sql.unsafe(statement)
    const archived = options.archived ? sql.literal("CASE WHEN archived_at IS NULL THEN 0 ELSE 1 END") : sql.literal("0")
    yield* sql`INSERT INTO document_counts (table_name, account_id, total, archived)
      SELECT ${sql.literal(`'${table}'`)}, account_id, COUNT(*), SUM(${archived}) FROM ${sql(table)} GROUP BY account_id`
    yield* sql`INSERT INTO counted_document_tables ${sql.insert({ table_name: table, archived: options.archived ? 1 : 0 })}`
  })

/** How `table` is counted, if it is (read once, when a repository is built). */
export const countingOf = (
  table: string
): Effect.Effect<Option.Option<{ readonly archived: boolean }>, never, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ archived: number }>`SELECT archived FROM counted_document_tables WHERE table_name = ${table}`
    return Option.map(Option.fromNullable(rows[0]), (row) => ({ archived: Number(row.archived) === 1 }))
  }).pipe(Effect.orDie)

/**
 * A scalar subquery answering how many rows of counted `table` the accounts hold (without the
 * archived ones when `hideArchived`): the sum of their counters, 0 when they have none.
 */
export const countedRows = (
  sql: SqlClient.SqlClient,
  table: string,
  accountIds: ReadonlyArray<string>,
  hideArchived: boolean
): Statement.Fragment => {
  const counted = sql.literal(hideArchived ? "total - archived" : "total")
  return sql`(SELECT COALESCE(SUM(${counted}), 0) FROM document_counts WHERE table_name = ${table} AND ${
    sql.in("account_id", accountIds)
  })`
}

/**
 * The document tables counted from migration 0018 on: those with a list whose filters can all be
 * absent (`archived: true` where the list hides archived rows by default). Tables listed only
 * under a parent (test cases, interactions, widgets, …) or never paged (events) are not counted:
 * their lists filter, and counting them would only add work (and, on PostgreSQL, a counter row
 * every writer of an account waits on) to their writes.
 */
const countedFrom0018: ReadonlyArray<readonly [string, boolean]> = [
  ["model_groups", false],
  ["application_deployments", false],
  ["knowledge_bases", false],
  ["knowledge_base_data_sources", false],
  ["evaluation_datasets", false],
  ["questions", false],
  ["evaluation_configs", false],
  ["fine_tuning_jobs", false],
  ["deployment_package_jobs", false],
  ["model_deployments", false],
  ["model_servers", false],
  ["agent_runtime_deployments", false],
  ["credentials", false],
  ["evaluations", true],
  ["evaluation_dashboards", true]
]

/** Migration 0018: the counters, and counting of the tables above (rows already there included). */
export const documentCountsMigration = Effect.gen(function*() {
  yield* countersTables
  for (const [table, archived] of countedFrom0018) yield* countRows(table, { archived })
})
