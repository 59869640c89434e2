/**
 * A transaction whose body only writes what it was handed (it waits on no other work, reads at
 * most its own rows): on the standalone server's SQLite client (fast/sqliteClient.ts) it runs
 * inside the group of writes that arrived with it, sharing their commit and its fsync, where any
 * other transaction commits that group first and so pays a commit of its own. Elsewhere (another
 * SQLite client, PostgreSQL) it is `withTransaction` as it is.
 */
import { SqlClient } from "@effect/sql"
import { Effect, FiberRef } from "effect"

/** Set while a `writesTogether` transaction acquires its connection. */
export const WritesTogether = FiberRef.unsafeMake(false)

/** `effect` as one transaction of `sql` that joins the open group of writes (see the module comment). */
export const writesTogetherOn = (sql: SqlClient.SqlClient) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.locally(sql.withTransaction(effect), WritesTogether, true)

/** `writesTogetherOn` the context's client. */
export const writesTogether = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => writesTogetherOn(sql)(effect))
