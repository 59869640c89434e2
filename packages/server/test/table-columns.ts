/** What tests that write rows straight into a family's table need to know about its columns. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The columns of `table` with whether each is NOT NULL, on SQLite and PostgreSQL alike. */
export const tableColumns = (table: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql.onDialectOrElse({
      pg: () =>
        sql<{ name: string; notnull: unknown }>`SELECT column_name AS name, is_nullable = 'NO' AS notnull
          FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table}`,
      orElse: () => sql<{ name: string; notnull: unknown }>`SELECT name, "notnull" FROM pragma_table_info(${table})`
    })
    return rows.map((row) => ({ name: row.name, notNull: row.notnull === true || Number(row.notnull) === 1 }))
  })
