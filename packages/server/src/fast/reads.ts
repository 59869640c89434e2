/// <reference path="./better-sqlite3.d.ts" />
/**
 * The thin path for the hot reads (a caller's key, a document by id, a page): the statement is
 * built and compiled by `@effect/sql`'s builder as always, then run on a read-only connection of
 * its own, synchronously, without the client's per-statement machinery (connection semaphore,
 * statement cache lookup, span, acquire/release): about 15 µs a read instead of 50–90 µs
 * (docs/benchmarks.md "The read connection").
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
import { Context, Effect, type Fiber, Layer } from "effect"

/** Statements prepared on the read connection, at most this many (then it starts over). */
const preparedLimit = 500

/**
 * The read connection's page cache, in KiB (SQLite's default is 2 MiB): a read by id touches an
 * index leaf and a table page; a page already cached costs no `pread`
 * (docs/benchmarks.md "The read connection").
 */
const cacheKiB = 32 * 1024

export class ReadConnection extends Context.Tag("@platform-kit/server/ReadConnection")<ReadConnection, {
  /** Runs a compiled read; `undefined` when the connection cannot serve it (then use `SqlClient`). Throws what better-sqlite3 throws. */
  readonly all: (sql: string, params: ReadonlyArray<unknown>) => ReadonlyArray<any> | undefined
  /**
   * A number that changes whenever a write has been committed to the database since it was last
   * asked (SQLite's `PRAGMA data_version`, which sees every other connection's commits, other
   * processes' included); `undefined` when the connection cannot tell.
   */
  readonly dataVersion: () => number | undefined
}>() {
  /** A read-only connection to the SQLite file `filename` (opened at first use, closed with the layer). */
  static readonly sqlite = (filename: string) =>
    Layer.scoped(
      ReadConnection,
      Effect.gen(function*() {
        // the connection once open, with its prepared statements
        let open: {
          readonly db: Database
          readonly statement: (sql: string) => Database.Statement
          readonly dataVersion: Database.Statement<number>
        } | undefined
        // closed with the layer, or the file is not in WAL mode (a reader could then wait on the writer)
        let unusable = false
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            unusable = true
            open?.db.close()
          })
        )
        /** The open connection (opened at first use), or `undefined` when it cannot serve. */
        const connection = () => {
          if (unusable) return undefined
          if (open !== undefined) return open
          const db = new Database(filename, { readonly: true, fileMustExist: true })
          if (String(db.pragma("journal_mode", { simple: true })).toLowerCase() !== "wal") {
            db.close()
            unusable = true
            return undefined
          }
          db.pragma(`cache_size = -${cacheKiB}`)
          const prepared = new Map<string, Database.Statement>()
          const statement = (sql: string) => {
            let found = prepared.get(sql)
            if (found === undefined) {
              if (prepared.size >= preparedLimit) prepared.clear()
              found = db.prepare(sql)
              prepared.set(sql, found)
            }
            return found
          }
          return open = { db, statement, dataVersion: db.prepare<number>("PRAGMA data_version").pluck() }
        }
        return {
          all: (sql, params) => connection()?.statement(sql).all(...params),
          dataVersion: () => connection()?.dataVersion.get()
        }
      })
    )
}

/** Whether a transaction is open in the fiber (its reads must see its own uncommitted writes). */
const inTransaction = (fiber: Fiber.RuntimeFiber<unknown, unknown>) =>
  fiber.currentContext.unsafeMap.has(SqlClient.TransactionConnection.key)

/**
 * `read(statement)` runs a SELECT on the read connection when there is one and no transaction is
 * open in the calling fiber, else as the statement itself (see the module comment).
 */
export const makeRead = Effect.map(Effect.serviceOption(ReadConnection), (connection) =>
<A extends object>(statement: Statement.Statement<A>): Effect.Effect<ReadonlyArray<A>, SqlError> => {
  if (connection._tag === "None") return statement
  const reads = connection.value
  return Effect.withFiberRuntime((fiber) => {
    if (inTransaction(fiber)) return statement
    try {
      const [sql, params] = statement.compile()
      const rows = reads.all(sql, params)
      return rows === undefined ? statement : Effect.succeed(rows as ReadonlyArray<A>)
    } catch (cause) {
      return Effect.fail(new SqlError({ cause, message: "Failed to execute statement" }))
    }
  })
})

/**
 * `memo(key, compute)` answers what `compute()` last answered for `key` as long as no write has been
 * committed since (the read connection's `dataVersion`), else computes again. Without the read
 * connection, and inside a transaction (whose own writes are not committed yet), it always
 * computes. At most `limit` answers are kept (then it starts over).
 */
export const makeCommittedMemo = <A>(limit: number) =>
  Effect.map(Effect.serviceOption(ReadConnection), (connection) => {
    const answers = new Map<string, { readonly version: number; readonly value: A }>()
    return <E, R>(key: string, compute: () => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
      if (connection._tag === "None") return Effect.suspend(compute)
      const reads = connection.value
      return Effect.withFiberRuntime((fiber) => {
        if (inTransaction(fiber)) return compute()
        // the version is taken before computing: a commit in between makes the answer stale, never wrong
        const version = reads.dataVersion()
        if (version === undefined) return compute()
        const known = answers.get(key)
        if (known !== undefined && known.version === version) return Effect.succeed(known.value)
        return Effect.tap(compute(), (value) => {
          if (answers.size >= limit) answers.clear()
          answers.set(key, { version, value })
        })
      })
    }
  })
