/// <reference path="./better-sqlite3.d.ts" />
/**
 * The kit's SQLite client: `@effect/sql`'s own `SqlClient` (made by `SqlClient.make`, so the
 * statement builder, transactions and savepoints are the library's) over one better-sqlite3
 * connection, with **group commit**.
 *
 * With `synchronous = FULL` every COMMIT waits for an fsync of the write-ahead log, and SQLite has
 * one writer: committed one at a time, concurrent writes queue behind each other's fsync. Here
 * the writes that arrive together share one transaction and one fsync, and none completes before
 * that commit is durable:
 *
 * - A *unit* is one statement outside a transaction, or one `withTransaction`. Units run one at a
 *   time on the connection (a semaphore, as in `@effect/sql-sqlite-node`).
 * - The first unit that writes (any transaction; a statement that is not read-only) opens the
 *   *group* with `BEGIN IMMEDIATE`. Until the group commits, every unit runs inside it: a
 *   transaction as a savepoint (its failure rolls back itself alone), a statement as itself (SQLite
 *   undoes a failing statement alone).
 * - The group commits when the event loop has taken in what arrived with it (`setImmediate` after
 *   it opened, then as soon as no unit holds the connection).
 * - A unit that ran in a group completes only after the group committed: with its own result,
 *   or with the commit's error. A read-only statement outside a transaction runs at once when no
 *   group is open; when one is, it saw the group's uncommitted writes, so it waits as well.
 * - When SQLite rolls the whole transaction back itself (an I/O error, a full disk), the group
 *   fails, and every unit in it with it: none had completed.
 *
 * A unit that rolled back does not wait for its group. `sql.reserve` takes the connection inside
 * the group (nothing in the kit uses it).
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient, Statement } from "@effect/sql"
import type { SqlConnection } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import Database from "better-sqlite3"
import { Deferred, Effect, Exit, FiberId, FiberSet, Layer, Metric, Scope } from "effect"

/** At most this many statements stay prepared per connection (then the cache starts over). */
const preparedLimit = 500

/** A statement of `db` prepared once per SQL text (at most `preparedLimit` kept). */
export const preparedStatements = (db: Database) => {
  const prepared = new Map<string, Database.Statement>()
  return (sql: string): Database.Statement => {
    let statement = prepared.get(sql)
    if (statement === undefined) {
      if (prepared.size >= preparedLimit) prepared.clear()
      statement = db.prepare(sql)
      prepared.set(sql, statement)
    }
    return statement
  }
}

/** Group commits done by SQLite clients of this process (each one transaction, one fsync). */
export const groupCommits = Metric.counter("platform_sqlite_group_commits", {
  description: "Transactions committed by the SQLite client, each holding the writes that arrived together",
  incremental: true
})

export interface SqliteOptions {
  /** A file path, or `:memory:`. */
  readonly filename: string
  /** `PRAGMA synchronous`; FULL makes a commit durable when it returns. */
  readonly synchronous: "FULL" | "NORMAL" | "OFF" | "EXTRA"
}

// what @effect/sql issues for a top-level transaction, here a savepoint inside the group
const unitBegin = "SAVEPOINT platform_unit"
const unitCommit = "RELEASE platform_unit"
const unitRollback = "ROLLBACK TO platform_unit"

const failure = (cause: unknown, message: string) => new SqlError({ cause, message })

/** How long a writer waits for another connection's write lock (SQLite's busy timeout). */
const busyTimeoutMs = 5000

const isBusy = (cause: unknown) => String((cause as { code?: unknown } | null)?.code ?? "").startsWith("SQLITE_BUSY")

const pauseFor = (millis: number) =>
  Effect.async<void>((resume) => {
    const handle = setTimeout(() => resume(Effect.void), millis)
    return Effect.sync(() => clearTimeout(handle))
  })

interface Group {
  readonly committed: Deferred.Deferred<void, SqlError>
}

type Mode = "rows" | "raw" | "values"

/** Runs `statement`: its rows (`values`: as arrays), or for a write the run's result (`raw`) or no rows. */
const runStatement = (statement: Database.Statement, params: ReadonlyArray<unknown>, mode: Mode): any => {
  if (statement.reader) {
    if (mode !== "values") return statement.all(...params)
    statement.raw(true)
    try {
      return statement.all(...params)
    } finally {
      statement.raw(false)
    }
  }
  const result = statement.run(...params)
  return mode === "raw" ? result : []
}

/** The client on `options.filename`, closed with the scope (a group still open is committed first). */
export const make = (options: SqliteOptions) =>
  Effect.gen(function*() {
    const runFork = yield* FiberSet.makeRuntime<never>()
    const db = new Database(options.filename, { timeout: busyTimeoutMs })
    db.pragma("journal_mode = WAL")
    db.pragma(`synchronous = ${options.synchronous}`)
    db.pragma("foreign_keys = ON")
    const prepare = preparedStatements(db)
    const begin = db.prepare("BEGIN IMMEDIATE")
    const commit = db.prepare("COMMIT")
    const rollback = db.prepare("ROLLBACK")
    const semaphore = yield* Effect.makeSemaphore(1)

    let group: Group | undefined
    /** Whether a transaction holds the connection (it may be waiting on something else). */
    let unitActive = false

    /** Rolls the open transaction back, if SQLite has not already (its own error is not the news). */
    const rollbackQuietly = () => {
      try {
        if (db.inTransaction) rollback.run()
      } catch {
        // the connection is closing or broken: the transaction ends with it
      }
    }

    const end = (ended: Group, exit: Exit.Exit<void, SqlError>) => {
      if (group === ended) group = undefined
      Deferred.unsafeDone(ended.committed, exit)
    }

    const commitGroup = (ending: Group) => {
      if (group !== ending) return
      try {
        commit.run()
        groupCommits.unsafeUpdate(1, [])
        end(ending, Exit.void)
      } catch (cause) {
        rollbackQuietly()
        end(ending, Exit.fail(failure(cause, "Failed to commit")))
      }
    }

    const nextTurn = Effect.async<void>((resume) => {
      const handle = setImmediate(() => resume(Effect.void))
      return Effect.sync(() => clearImmediate(handle))
    })

    /**
     * Opens a group: `BEGIN IMMEDIATE` takes the write lock. While another connection holds it,
     * waits without blocking the event loop (SQLite's own busy wait would block it, and with it a
     * holder in this process: a deadlock), up to the busy timeout.
     */
    const beginGroup = (deadline: number, pause: number): Effect.Effect<Group, SqlError> =>
      Effect.suspend(() => {
        try {
          db.pragma("busy_timeout = 0")
          try {
            begin.run()
          } finally {
            db.pragma(`busy_timeout = ${busyTimeoutMs}`)
          }
        } catch (cause) {
          if (isBusy(cause) && Date.now() < deadline) {
            return Effect.zipRight(pauseFor(pause), beginGroup(deadline, Math.min(2 * pause, 50)))
          }
          return Effect.fail(failure(cause, "Failed to begin a transaction"))
        }
        const opened: Group = { committed: Deferred.unsafeMake<void, SqlError>(FiberId.none) }
        group = opened
        runFork(Effect.zipRight(nextTurn, semaphore.withPermits(1)(Effect.sync(() => commitGroup(opened)))))
        return Effect.succeed(opened)
      })

    /** The open group, or a new one. */
    const joinGroup = Effect.suspend(() => group !== undefined ? Effect.succeed(group) : beginGroup(Date.now() + busyTimeoutMs, 1))

    /** After a failed statement: if SQLite rolled the whole transaction back, the group is over. */
    const afterFailure = (cause: unknown) => {
      if (group !== undefined && !db.inTransaction) {
        end(group, Exit.fail(failure(cause, "The transaction was rolled back by SQLite")))
      }
      return Effect.fail(failure(cause, "Failed to execute statement"))
    }

    /** A statement outside a transaction: a unit of its own. */
    const autocommit = (
      sql: string,
      params: ReadonlyArray<unknown>,
      mode: Mode,
      prepared: boolean
    ): Effect.Effect<any, SqlError> =>
      Effect.flatten(semaphore.withPermits(1)(Effect.suspend(() => {
        let statement: Database.Statement
        try {
          statement = prepared ? prepare(sql) : db.prepare(sql)
        } catch (cause) {
          return Effect.succeed(Effect.fail(failure(cause, "Failed to prepare statement")))
        }
        // runs with the connection held; answers what the caller waits for once it is released
        const run = (joined: Group | undefined): Effect.Effect<any, SqlError> => {
          let result: unknown
          try {
            result = runStatement(statement, params, mode)
          } catch (cause) {
            return afterFailure(cause)
          }
          return joined === undefined ? Effect.succeed(result) : Effect.as(Deferred.await(joined.committed), result)
        }
        if (statement.readonly && group === undefined) return Effect.succeed(run(undefined))
        return Effect.match(joinGroup, { onFailure: Effect.fail, onSuccess: run })
      })))

    const autocommitConnection: SqlConnection.Connection = {
      execute: (sql, params, transformRows) => {
        const rows = autocommit(sql, params, "rows", true)
        return transformRows ? Effect.map(rows, transformRows) : rows
      },
      executeRaw: (sql, params) => autocommit(sql, params, "raw", true),
      executeValues: (sql, params) => autocommit(sql, params, "values", true),
      executeUnprepared: (sql, params, transformRows) => {
        const rows = autocommit(sql, params ?? [], "rows", false)
        return transformRows ? Effect.map(rows, transformRows) : rows
      },
      executeStream: () => Effect.dieMessage("executeStream not implemented")
    }

    /** One transaction's connection: its statements run inside the group, in its savepoint. */
    const unitConnection = (unit: Group, release: Effect.Effect<void>): SqlConnection.Connection => {
      const run = (sql: string, params: ReadonlyArray<unknown>, mode: Mode, prepared: boolean) =>
        Effect.suspend(() => {
          if (group !== unit) {
            return Effect.fail(failure(undefined, "The transaction was rolled back by SQLite"))
          }
          try {
            return Effect.succeed(runStatement(prepared ? prepare(sql) : db.prepare(sql), params, mode))
          } catch (cause) {
            return afterFailure(cause)
          }
        })
      return {
        execute: (sql, params, transformRows) => {
          const rows = run(sql, params, "rows", true)
          return transformRows ? Effect.map(rows, transformRows) : rows
        },
        executeRaw: (sql, params) => run(sql, params, "raw", true),
        executeValues: (sql, params) => run(sql, params, "values", true),
        executeUnprepared: (sql, params, transformRows) => {
          switch (sql) {
            case unitCommit:
              // the savepoint's work joins the group; the unit completes with the group's commit
              return run(sql, [], "rows", true).pipe(
                Effect.zipLeft(release),
                Effect.zipLeft(Deferred.await(unit.committed))
              )
            case unitRollback:
              return Effect.suspend(() => {
                if (group === unit && db.inTransaction) {
                  prepare(unitRollback).run()
                  prepare(unitCommit).run()
                }
                return Effect.as(release, [])
              })
            default: {
              const rows = run(sql, params ?? [], "rows", false)
              return transformRows ? Effect.map(rows, transformRows) : rows
            }
          }
        },
        executeStream: () => Effect.dieMessage("executeStream not implemented")
      }
    }

    const transactionAcquirer: SqlConnection.Connection.Acquirer = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        yield* restore(semaphore.take(1))
        unitActive = true
        let held = true
        const release = Effect.suspend(() => {
          if (!held) return Effect.void
          held = false
          unitActive = false
          return semaphore.release(1)
        })
        yield* Scope.addFinalizer(yield* Effect.scope, release)
        const unit = yield* joinGroup
        return unitConnection(unit, release)
      })
    )

    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        if (group !== undefined) {
          // a transaction still holding the connection has not finished: nothing of the group completed
          if (unitActive) {
            rollbackQuietly()
            end(group, Exit.fail(failure(undefined, "The database closed")))
          } else {
            commitGroup(group)
          }
        }
        db.close()
      })
    )

    return yield* SqlClient.make({
      acquirer: Effect.succeed(autocommitConnection),
      transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]],
      beginTransaction: unitBegin,
      commit: unitCommit,
      rollback: unitRollback
    })
  })

/** `SqlClient` on SQLite with group commit (see the module comment). */
export const layer = (options: SqliteOptions): Layer.Layer<SqlClient.SqlClient> =>
  Layer.scoped(SqlClient.SqlClient, make(options)).pipe(Layer.provide(Reactivity.layer))
