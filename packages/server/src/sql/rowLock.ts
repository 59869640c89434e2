/**
 * The row lock that makes a read-modify-write of one entity atomic, on both dialects. Called first
 * inside the transaction, before the read:
 * - PostgreSQL: `SELECT … FOR UPDATE` locks the row until the transaction ends; a concurrent
 *   read-modify-write of the same row waits, then reads what this one wrote.
 * - SQLite: a no-op UPDATE of the row takes the database's write lock (one writer at a time, in
 *   this process through the single connection, across processes through the file lock; waiting is
 *   bounded by the busy timeout). Taking it before the read matters: a transaction that read first
 *   cannot upgrade to a write once another process has written (SQLITE_BUSY, no retry).
 * Nothing is locked (and nothing happens) when `id` is not in `accountIds`: the read that follows
 * answers the 404.
 */
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export const lockRow = (
  sql: SqlClient.SqlClient,
  table: string,
  id: string,
  accountIds: ReadonlyArray<string>
): Effect.Effect<void> => {
  if (accountIds.length === 0) return Effect.void
  const owned = sql.in("account_id", accountIds)
  return sql.onDialectOrElse({
    pg: () => sql`SELECT id FROM ${sql(table)} WHERE id = ${id} AND ${owned} FOR UPDATE`,
    orElse: () => sql`UPDATE ${sql(table)} SET id = id WHERE id = ${id} AND ${owned}`
  }).pipe(Effect.asVoid, Effect.orDie)
}
