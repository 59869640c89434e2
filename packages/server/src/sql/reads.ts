/// <reference path="./better-sqlite3.d.ts" />
/**
 * The thin path for the hot reads (a caller's key, a document by id, a page): the statement is
 * built and compiled by `@effect/sql`'s builder as always, then run on a read-only connection of
 * its own, synchronously, without the client's per-statement machinery (connection semaphore,
 * statement cache lookup, span, acquire/release): about 15 µs a read instead of 50–90 µs
 * (docs/benchmarks.md).
 *
 * Only a SQLite file in WAL mode has the read connection (`ReadConnection.sqlite`). In a
 * transaction, on PostgreSQL, on an in-memory database, without WAL, once the layer has closed, or
 * without the layer, a read is the statement itself on `SqlClient`, as before. In WAL mode a read on
 * that connection is its own snapshot of what was committed, as a read outside a transaction on
 * the shared connection was; it no longer waits for another fiber's open transaction to end (the
 * shared connection serves one transaction or statement at a time).
 */
import type { Statement } from "@effect/sql"
import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import Database from "better-sqlite3"
import { Context, Effect, Layer } from "effect"
import { preparedStatements } from "./sqliteClient.js"

/**
 * The read connection's page cache, in KiB (SQLite's default is 2 MiB): a read by id touches an
 * index leaf and a table page; a page already cached costs no `pread` (docs/benchmarks.md).
 */
const cacheKiB = 32 * 1024

export class ReadConnection extends Context.Tag("@platform-kit/server/ReadConnection")<ReadConnection, {
  /** Runs a compiled read; `undefined` when the connection cannot serve it (then use `SqlClient`). Throws what better-sqlite3 throws. */
  readonly all: (sql: string, params: ReadonlyArray<unknown>) => ReadonlyArray<any> | undefined
}>() {
  /** A read-only connection to the SQLite file `filename` (opened at first use, closed with the layer). */
  static readonly sqlite = (filename: string) =>
    Layer.scoped(
      ReadConnection,
      Effect.gen(function*() {
        let db: Database | undefined
        let prepare: ((sql: string) => Database.Statement) | undefined
        // closed with the layer, or the file is not in WAL mode (a reader could then wait on the writer)
        let unusable = false
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            unusable = true
            db?.close()
          })
        )
        const open = () => {
          const connection = new Database(filename, { readonly: true, fileMustExist: true })
          if (String(connection.pragma("journal_mode", { simple: true })).toLowerCase() !== "wal") {
            connection.close()
            unusable = true
            return undefined
          }
          connection.pragma(`cache_size = -${cacheKiB}`)
          return connection
        }
        return {
          all: (sql, params) => {
            if (unusable) return undefined
            if (db === undefined) {
              db = open()
              if (db === undefined) return undefined
              prepare = preparedStatements(db)
            }
            return prepare!(sql).all(...params)
          }
        }
      })
    )
}

/**
 * `read(statement)` runs a SELECT on the read connection when there is one and no transaction is
 * open in the calling fiber, else as the statement itself (see the module comment).
 */
export const makeRead = Effect.map(Effect.serviceOption(ReadConnection), (connection) =>
<A extends object>(statement: Statement.Statement<A>): Effect.Effect<ReadonlyArray<A>, SqlError> => {
  if (connection._tag === "None") return statement
  const reads = connection.value
  return Effect.withFiberRuntime((fiber) => {
    if (fiber.currentContext.unsafeMap.has(SqlClient.TransactionConnection.key)) return statement
    try {
      const [sql, params] = statement.compile()
      const rows = reads.all(sql, params)
      return rows === undefined ? statement : Effect.succeed(rows as ReadonlyArray<A>)
    } catch (cause) {
      return Effect.fail(new SqlError({ cause, message: "Failed to execute statement" }))
    }
  })
})
