/** What a SQL error means to a caller, in one place for both dialects. */
import type { SqlError } from "@effect/sql/SqlError"

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
