/** What a SQL error means to a caller, in one place for both dialects. */
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"

/**
 * Whether `error` is a unique index refusing a row: SQLite names the columns in its message
 * (`table.column`), PostgreSQL names the index (code 23505).
 */
export const isUniqueViolation = (
  error: SqlError,
  index: { readonly sqliteColumn: string; readonly postgresIndex: string }
): boolean => {
  const cause = error.cause as { readonly code?: unknown; readonly message?: unknown; readonly constraint?: unknown }
  if (typeof cause !== "object" || cause === null) return false
  if (cause.code === "SQLITE_CONSTRAINT_UNIQUE") {
    return typeof cause.message === "string" && cause.message.includes(index.sqliteColumn)
  }
  return cause.code === "23505" && cause.constraint === index.postgresIndex
}

/**
 * `effect` with its SQL failures as defects, but for a refusal of the unique index `index`: that
 * fails with `taken()` (a name or alias in use, say).
 */
export const uniqueRefusedAs = <E>(
  index: { readonly sqliteColumn: string; readonly postgresIndex: string },
  taken: () => E
) =>
<A, R>(effect: Effect.Effect<A, SqlError, R>): Effect.Effect<A, E, R> =>
  Effect.catchAll(effect, (error) => (isUniqueViolation(error, index) ? Effect.fail(taken()) : Effect.die(error)))

/**
 * Whether `error` is PostgreSQL refusing what another session created at the same moment: a
 * `CREATE … IF NOT EXISTS` racing another (a duplicate in the catalog's unique indexes, 23505; the
 * object existing already, 42P07 duplicate table, 42P06 duplicate schema, 42710 duplicate object),
 * or a migration's row recorded by another process first (23505). For a start's schema set-up only:
 * trying again finds the objects made.
 */
export const isConcurrentDdl = (error: unknown): boolean => {
  const cause = (error as { readonly cause?: unknown } | null)?.cause as { readonly code?: unknown } | undefined
  if (typeof cause !== "object" || cause === null) return false
  return cause.code === "23505" || cause.code === "42P07" || cause.code === "42P06" || cause.code === "42710"
}
