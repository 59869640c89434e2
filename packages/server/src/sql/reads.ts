/**
 * The thin path for the hot reads (a caller's key, a document by id, a page): `read(statement)`
 * runs a compiled SELECT on a `ReadConnection` when the application has one (the standalone
 * server's SQLite file: fast/readConnection.ts), synchronously, without the client's per-statement
 * machinery (connection semaphore, statement cache lookup, span, acquire/release): about 15 µs a
 * read instead of 50–90 µs (docs/benchmarks.md "The read connection").
 *
 * Without a `ReadConnection` (PostgreSQL, an in-memory database, an embedding application's
 * composition), in a transaction, or when the connection cannot serve (not in WAL mode, closed), a
 * read is the statement itself on `SqlClient`. In WAL mode a read on that connection is its own
 * snapshot of what was committed, as a read outside a transaction on the shared connection was; it
 * does not wait for another fiber's open transaction to end.
 */
import type { Statement } from "@effect/sql"
import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, type Fiber } from "effect"

/** A read-only connection for the hot reads, when the database has one (see the module comment). */
export class ReadConnection extends Context.Tag("@platform-kit/server/ReadConnection")<ReadConnection, {
  /** Runs a compiled read; `undefined` when the connection cannot serve it (then use `SqlClient`). Throws what the driver throws. */
  readonly all: (sql: string, params: ReadonlyArray<unknown>) => ReadonlyArray<any> | undefined
  /**
   * A number that changes whenever a write has been committed to the database since it was last
   * asked (SQLite's `PRAGMA data_version`, which sees every other connection's commits, other
   * processes' included); `undefined` when the connection cannot tell.
   */
  readonly dataVersion: () => number | undefined
}>() {}

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
