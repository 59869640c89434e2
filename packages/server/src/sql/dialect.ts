/**
 * Every difference between the SQL the server speaks to SQLite and to PostgreSQL, in one place.
 * Migrations name column types through `columnTypes`; the few statements that need a dialect's
 * own clause take it from here; the PostgreSQL client reads values back through `pgTypeParsers`
 * so that every repository sees the same JavaScript values on both databases (docs/postgresql.md).
 */
import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { Effect } from "effect"
import * as Pg from "pg"

/** The column types of the migrations. */
export interface ColumnTypes {
  /**
   * Text that compares and sorts byte-wise. SQLite's TEXT does (BINARY collation); on
   * PostgreSQL the column gets the `"C"` collation, whatever the database's locale, so ORDER BY,
   * keyset comparisons and their indexes give the order SQLite gives.
   */
  readonly text: string
  /** An instant, written and read as an ISO-8601 UTC string (`2024-01-02T03:04:05.678Z`). */
  readonly timestamp: string
  /** A JSON document, read back as the exact text written (key order and spacing kept). */
  readonly json: string
  readonly integer: string
  /** Integers beyond 32 bits (epoch milliseconds); read as JavaScript numbers. */
  readonly bigint: string
}

export const sqliteColumnTypes: ColumnTypes = {
  text: "TEXT",
  timestamp: "TEXT",
  json: "TEXT",
  integer: "INTEGER",
  bigint: "BIGINT"
}

/**
 * `doc` is `json`, not `jsonb`: jsonb re-orders object keys and drops spacing, so free-form
 * objects (metadata, configurations) would not come back byte for byte as SQLite returns them.
 */
export const pgColumnTypes: ColumnTypes = {
  text: "TEXT COLLATE \"C\"",
  timestamp: "TIMESTAMPTZ",
  json: "JSON",
  integer: "INTEGER",
  bigint: "BIGINT"
}

/** The column types of the database at hand. */
export const columnTypes: Effect.Effect<ColumnTypes, never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
  (sql) => sql.onDialectOrElse({ pg: () => pgColumnTypes, orElse: () => sqliteColumnTypes })
)

/**
 * The row-lock clause of a SELECT that claims work: `FOR UPDATE SKIP LOCKED` on PostgreSQL, so
 * two instances never take the same row (the second skips it); nothing on SQLite, whose single
 * writer already runs one claiming transaction at a time.
 */
export const forUpdateSkipLocked = (sql: SqlClient.SqlClient): Statement.Fragment =>
  sql.literal(sql.onDialectOrElse({ pg: () => "FOR UPDATE SKIP LOCKED", orElse: () => "" }))

/**
 * The row-lock clause of a read that a transaction will write back: `FOR UPDATE` on PostgreSQL,
 * so concurrent read-modify-write transactions of one row run one after the other as they do on
 * SQLite (one writer, one transaction at a time); nothing on SQLite.
 */
export const forUpdate = (sql: SqlClient.SqlClient): Statement.Fragment =>
  sql.literal(sql.onDialectOrElse({ pg: () => "FOR UPDATE", orElse: () => "" }))

const OID = {
  int8: 20,
  numeric: 1700,
  json: 114,
  timestamptz: 1184
} as const

/**
 * How the PostgreSQL client turns column values into JavaScript, so repositories read what
 * SQLite gives them:
 * - `bigint` (COUNT(*), SUM, epoch milliseconds) and `numeric` (AVG) as numbers, not strings;
 * - `json` as its text (the repositories decode documents with `Schema.parseJson`);
 * - `timestamptz` as the ISO-8601 UTC string the server wrote.
 */
export const pgTypeParsers: Pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (format === undefined || format === "text") {
      switch (oid) {
        case OID.int8:
        case OID.numeric:
          return (value: string) => Number(value)
        case OID.json:
          return (value: string) => value
        case OID.timestamptz: {
          const parse = Pg.types.getTypeParser(OID.timestamptz, "text") as (value: string) => Date
          return (value: string) => parse(value).toISOString()
        }
      }
    }
    return Pg.types.getTypeParser(oid, format as "text")
  }) as Pg.CustomTypesConfig["getTypeParser"]
}

/**
 * PostgreSQL text cannot hold U+0000, which JSON strings (and so request bodies and query
 * strings) may. Documents are unaffected (`JSON.stringify` escapes it as `\u0000`); a string
 * parameter (an indexed column's value, a filter) gets U+0001 in its place, so every statement
 * runs instead of failing. Only ordering and equality among strings differing by U+0000 versus
 * U+0001 can tell, and only on PostgreSQL.
 */
const withoutNul = (value: unknown): unknown =>
  typeof value === "string" && value.includes("\u0000") ? value.replaceAll("\u0000", "\u0001") : value

/** Applies `withoutNul` to every parameter a pooled connection sends (the pool's `connect` hook). */
export const pgOnConnect = (client: Pg.PoolClient): void => {
  const query = client.query as (...args: Array<any>) => any
  client.query = function(this: Pg.PoolClient, config: any, values?: any, callback?: any) {
    if (Array.isArray(values)) {
      values = values.map(withoutNul)
    } else if (config !== null && typeof config === "object" && Array.isArray(config.values)) {
      config.values = config.values.map(withoutNul)
    }
    return query.call(this, config, values, callback)
  } as typeof client.query
}
