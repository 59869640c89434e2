/**
 * The kit's SQLite client: `@effect/sql`'s own `SqlClient` (made by `SqlClient.make`, so the
 * statement builder, transactions and savepoints are the library's) over the connection of
 * `@effect/sql-sqlite-node`'s client, with **group commit**.
 *
 * With `synchronous = FULL` every COMMIT waits for an fsync of the write-ahead log, and SQLite has
 * one writer: committed one at a time, concurrent writes queue behind each other's fsync. Here
 * the writes that arrive together share one transaction and one fsync, and none completes before
 * that commit is durable; that fsync runs on libuv's thread pool, not in the COMMIT on this
 * thread (walSync.ts):
 *
 * - A *unit* is one statement outside a transaction, or one `withTransaction`. Units run one at a
 *   time on the connection (this client holds `@effect/sql-sqlite-node`'s connection for its whole
 *   life and serialises the units itself).
 * - The first statement that may write (anything but a SELECT) opens the *group* with `BEGIN
 *   IMMEDIATE`; until the group commits, every unit runs inside it, a statement as itself (SQLite
 *   undoes a failing statement alone). A transaction commits the open group first and starts one
 *   of its own, running as a savepoint in it (its failure rolls back itself alone): its body may
 *   then wait on writes that completed before it began. A transaction that only writes what it
 *   was handed (`writesTogether`, sql/writesTogether.ts) joins the open group instead.
 * - The group commits when the event loop has taken in what arrived with it (`setImmediate` after
 *   it opened; then, or as soon as no unit holds the connection). A group opened by a fiber that
 *   runs on a scheduler of its own (the workflow engine's, engine/backgroundScheduler.ts) commits
 *   as a task of that scheduler: the commit is that work's, in its share of the time; until a unit
 *   of another fiber joins the group, which then commits on the next turn as any other.
 * - A unit that ran in a group completes only after the group committed and its fsync ended: with its own result,
 *   or with the commit's error; a unit that failed, with its failure (which may have been decided
 *   on the group's uncommitted rows). A SELECT outside a transaction runs at once when no group is
 *   open; when one is, it saw the group's uncommitted writes, so it waits as well.
 * - When SQLite rolls the whole transaction back itself (an I/O error, a full disk, `OR ROLLBACK`),
 *   the group fails, and every unit in it with it: none had completed. (After a statement fails
 *   inside a group, a `BEGIN` tells: it fails while the transaction is still open.)
 *
 * Transaction control in a statement (`BEGIN`, `COMMIT`, …) and `sql.reserve` are refused;
 * `PRAGMA`, `VACUUM`, `ATTACH` and `DETACH` run outside any group. docs/reliability.md has the rules
 * and what they cost.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient, Statement } from "@effect/sql"
import type { SqlConnection } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Cause, Deferred, Effect, Exit, FiberId, FiberRef, FiberSet, Layer, Metric, Option, Scheduler } from "effect"
import { WritesTogether } from "../sql/writesTogether.js"
import * as WalCheckpointer from "./walCheckpointer.js"
import * as WalSync from "./walSync.js"

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
  /**
   * A file's write-ahead log checkpointed by a thread of its own (fast/walCheckpointer.ts), not in
   * the writer's commits. Default true.
   */
  readonly checkpointThread?: boolean
  /** That thread's nice value on Linux (docs/operations.md "Helper threads"); default 19, 0 leaves it be. */
  readonly checkpointThreadNice?: number
  /** How the write-ahead log is fsynced after a commit (walSync.ts); `fs.fsync` unless a test says otherwise. */
  readonly fileSync?: WalSync.FileSync
}

// what @effect/sql issues for a top-level transaction, here a savepoint inside the group
const unitBegin = "SAVEPOINT platform_unit"
const unitCommit = "RELEASE platform_unit"
const unitRollback = "ROLLBACK TO platform_unit"

const failure = (cause: unknown, message: string) => new SqlError({ cause, message })

/** The shortest time between two checkpoints of the write-ahead log (fast/walCheckpointer.ts). */
const checkpointIntervalMs = 250

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
  /** The scheduler its commit runs on: that of the fiber that opened it, until a fiber of another joins. */
  scheduler: Scheduler.Scheduler
}

/** Whitespace and comments before a statement's first keyword. */
const leading = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/

/** Whether the statement's first keyword is one of `keywords` (a regex alternation). */
const startsWith = (keywords: RegExp) => (sql: string) => keywords.test(sql.slice(leading.exec(sql)![0].length))

/** A SELECT only reads: outside a transaction it need not open a group. Anything else may write. */
const isSelect = startsWith(/^select\b/i)

/** Settings and maintenance that SQLite ignores or refuses inside a transaction: run outside the group. */
const isOutsideTransaction = startsWith(/^(pragma|vacuum|attach|detach)\b/i)

/** Transaction control belongs to the client (`sql.withTransaction`), never to a statement. */
const isTransactionControl = startsWith(/^(begin|commit|end|rollback|savepoint|release)\b/i)

/** What `@effect/sql` issues for a transaction nested in another. */
const nestedSavepoint = /^(SAVEPOINT|ROLLBACK TO SAVEPOINT|RELEASE SAVEPOINT) effect_sql_\d+$/

/** A statement that would begin or end a transaction behind the client's back. */
const refusedControl = (sql: string) => Effect.dieMessage(`"${sql}": transactions are made with sql.withTransaction`)

const rolledBackBySqlite = () => failure(undefined, "The transaction was rolled back by SQLite")

/** The client on `options.filename`, closed with the scope (a group still open is committed first). */
export const make = (options: SqliteOptions) =>
  Effect.gen(function*() {
    const client = yield* SqliteClient.make({ filename: options.filename })
    // the only user of the client's connection: units are serialised by `semaphore` below
    const conn = yield* client.reserve
    // control statements, run unprepared (cheaper than the client's statement cache for these);
    // lazily: the client prepares an unprepared statement when asked for the effect, and SQLite
    // applies some pragmas (busy_timeout) when it prepares them
    const exec = (sql: string) => Effect.suspend(() => conn.executeUnprepared(sql, [], undefined))
    // a file in WAL mode at FULL (or EXTRA) durability: its commits' fsync runs off this thread
    // (walSync.ts), the connection itself at NORMAL; anything else as asked
    const journal = yield* exec("PRAGMA journal_mode")
    const walSync = options.filename !== ":memory:" && (options.synchronous === "FULL" || options.synchronous === "EXTRA") &&
        String((journal[0] as { journal_mode?: unknown } | undefined)?.journal_mode).toLowerCase() === "wal"
      ? WalSync.make(options.filename, options.fileSync)
      : undefined
    yield* exec(`PRAGMA synchronous = ${walSync === undefined ? options.synchronous : "NORMAL"}`)
    yield* exec("PRAGMA foreign_keys = ON")
    const runFork = yield* FiberSet.makeRuntime<never>()
    // a file's checkpoints on a thread of their own (an in-memory database has no log)
    const checkpoints = options.filename === ":memory:" || options.checkpointThread === false ? undefined : yield* WalCheckpointer.make({
      filename: options.filename,
      synchronous: options.synchronous,
      intervalMs: checkpointIntervalMs,
      nice: options.checkpointThreadNice ?? 19,
      onFailure: (error) =>
        runFork(Effect.zipRight(
          Effect.logWarning("SQLite checkpoints: the checkpoint thread failed; the writer checkpoints again", error),
          Effect.ignore(exec(`PRAGMA wal_autocheckpoint = ${WalCheckpointer.writerDefaultPages}`))
        ))
    })
    if (checkpoints !== undefined) yield* exec(`PRAGMA wal_autocheckpoint = ${WalCheckpointer.writerFallbackPages}`)
    const semaphore = yield* Effect.makeSemaphore(1)

    let group: Group | undefined
    /** Whether a transaction holds the connection (it may be waiting on something else). */
    let unitActive = false

    /** Rolls the open transaction back, if there is one (its own error is not the news). */
    const rollbackQuietly = Effect.ignore(exec("ROLLBACK"))

    const end = (ended: Group, exit: Exit.Exit<void, SqlError>) => {
      if (group === ended) group = undefined
      Deferred.unsafeDone(ended.committed, exit)
    }

    /** Ends the committed group `ended`: its units complete once it is durable (walSync.ts), or now. */
    const committedGroup = (ended: Group) => {
      if (walSync === undefined) return end(ended, Exit.void)
      if (group === ended) group = undefined
      walSync.durable((error) =>
        Deferred.unsafeDone(
          ended.committed,
          error === null ? Exit.void : Exit.fail(failure(error, "The commit could not be made durable (fsync of the write-ahead log failed)"))
        )
      )
    }

    /** Commits the group if it is still the open one (the connection held). */
    const commitGroup = (ending: Group): Effect.Effect<void> =>
      Effect.suspend(() =>
        group !== ending ? Effect.void : Effect.matchEffect(exec("COMMIT"), {
          onSuccess: () =>
            Effect.sync(() => {
              groupCommits.unsafeUpdate(1, [])
              committedGroup(ending)
              checkpoints?.committed()
            }),
          onFailure: (error) => Effect.zipRight(rollbackQuietly, Effect.sync(() => end(ending, Exit.fail(error))))
        })
      ).pipe(Effect.uninterruptible)

    /** Commits the open group now, if there is one (the connection held). */
    const commitOpen = Effect.suspend(() => group === undefined ? Effect.void : commitGroup(group))

    /**
     * Commits `opened` on the event loop's next turn, once what arrived with it has joined (or as a
     * task of the scheduler it commits on, see the module comment): at once if the connection is
     * free then (the usual case: it is held only by a transaction that waits on something, or a
     * writer waiting for another connection's lock), else as soon as it is.
     */
    const commitSoon = (opened: Group) => {
      const commit = () => {
        if (group !== opened) return
        const now = Effect.runSync(semaphore.withPermitsIfAvailable(1)(commitGroup(opened)))
        if (Option.isNone(now)) runFork(semaphore.withPermits(1)(commitGroup(opened)))
      }
      if (opened.scheduler === Scheduler.defaultScheduler) setImmediate(commit)
      else opened.scheduler.scheduleTask(commit, 0)
    }

    /**
     * Opens a group: `BEGIN IMMEDIATE` takes the write lock. While another connection holds it,
     * waits without blocking the event loop (SQLite's own busy wait would block it, and with it a
     * holder in this process: a deadlock), up to the busy timeout.
     */
    const beginGroup = (deadline: number, pause: number): Effect.Effect<Group, SqlError> =>
      exec("PRAGMA busy_timeout = 0").pipe(
        Effect.zipRight(Effect.exit(exec("BEGIN IMMEDIATE"))),
        Effect.zipLeft(exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`)),
        Effect.zip(FiberRef.get(FiberRef.currentScheduler)),
        // the transaction begun is the group from the same step on: an interruption in between
        // would leave SQLite in a transaction nothing commits
        Effect.map(([begun, scheduler]) =>
          Exit.map(begun, () => {
            const opened: Group = { committed: Deferred.unsafeMake<void, SqlError>(FiberId.none), scheduler }
            group = opened
            commitSoon(opened)
            return opened
          })
        ),
        Effect.uninterruptible,
        Effect.flatMap((begun) => {
          if (Exit.isSuccess(begun)) return begun
          const error = Cause.squash(begun.cause)
          if (error instanceof SqlError && isBusy(error.cause) && Date.now() < deadline) {
            return Effect.zipRight(pauseFor(pause), beginGroup(deadline, Math.min(2 * pause, 50)))
          }
          return begun
        })
      )

    /**
     * The open group, or a new one. A group that waited for the engine's scheduler, joined by a
     * fiber of another, commits on the next turn from then on.
     */
    const joinGroup = Effect.suspend(() => {
      const open = group
      if (open === undefined) return beginGroup(Date.now() + busyTimeoutMs, 1)
      return Effect.map(FiberRef.get(FiberRef.currentScheduler), (scheduler) => {
        if (open.scheduler !== scheduler && open.scheduler !== Scheduler.defaultScheduler) {
          open.scheduler = Scheduler.defaultScheduler
          commitSoon(open)
        }
        return open
      })
    })

    /**
     * After a statement failed inside the group: if SQLite ended the whole transaction (then a
     * `BEGIN` succeeds, and its empty transaction is ended at once), the group is over.
     */
    const afterFailure = (error: SqlError): Effect.Effect<never, SqlError> =>
      Effect.suspend(() => {
        const current = group
        if (current === undefined) return Effect.fail(error)
        return Effect.matchEffect(exec("BEGIN"), {
          onFailure: () => Effect.fail(error),
          onSuccess: () =>
            Effect.zipRight(rollbackQuietly, Effect.suspend(() => {
              end(current, Exit.fail(rolledBackBySqlite()))
              return Effect.fail(error)
            }))
        })
      })

    /** What a unit of `joined` answers: its own outcome, once the group's commit is known. */
    const settled = <A>(joined: Group, outcome: Exit.Exit<A, SqlError>): Effect.Effect<A, SqlError> =>
      Exit.isSuccess(outcome)
        ? Effect.as(Deferred.await(joined.committed), outcome.value)
        // a failure may have been decided on the group's uncommitted rows (a duplicate name): it
        // waits too, and stands whatever the commit's outcome
        : Effect.zipRight(Effect.exit(Deferred.await(joined.committed)), outcome)

    /** A statement outside a transaction: a unit of its own. */
    const autocommit = <A>(sql: string, run: Effect.Effect<A, SqlError>): Effect.Effect<A, SqlError> => {
      if (isTransactionControl(sql)) return refusedControl(sql)
      const outside = isOutsideTransaction(sql)
      return Effect.flatten(semaphore.withPermits(1)(Effect.suspend(() => {
        // runs with the connection held; answers what the caller waits for once it is released
        if (outside) return Effect.zipRight(commitOpen, Effect.exit(run))
        if (group === undefined && isSelect(sql)) return Effect.exit(run)
        return Effect.matchEffect(joinGroup, {
          onFailure: (error) => Effect.succeed(Effect.fail(error)),
          onSuccess: (joined) =>
            // a statement and the check after its failure are one step: interrupted in between, a
            // transaction SQLite rolled back would go unnoticed
            Effect.map(Effect.uninterruptible(Effect.exit(Effect.catchAll(run, afterFailure))), (outcome) =>
              settled(joined, outcome))
        })
      })))
    }

    const autocommitConnection: SqlConnection.Connection = {
      execute: (sql, params, transformRows) => autocommit(sql, conn.execute(sql, params, transformRows)),
      executeRaw: (sql, params) => autocommit(sql, conn.executeRaw(sql, params)),
      executeValues: (sql, params) => autocommit(sql, conn.executeValues(sql, params)),
      executeUnprepared: (sql, params, transformRows) =>
        autocommit(sql, Effect.suspend(() => conn.executeUnprepared(sql, params, transformRows))),
      executeStream: (sql, params, transformRows) => conn.executeStream(sql, params, transformRows)
    }

    /** One transaction's connection: its statements run inside the group, in its savepoint. */
    const unitConnection = (unit: Group, holds: () => boolean, release: Effect.Effect<void>): SqlConnection.Connection => {
      const inUnit = <A>(run: Effect.Effect<A, SqlError>) =>
        Effect.suspend(() => {
          // a fiber the transaction forked, still running after it ended, has no connection any more
          if (!holds()) return Effect.dieMessage("a statement of a transaction that has ended")
          return group !== unit ? Effect.fail(rolledBackBySqlite()) : Effect.uninterruptible(Effect.catchAll(run, afterFailure))
        })
      return {
        execute: (sql, params, transformRows) => inUnit(conn.execute(sql, params, transformRows)),
        executeRaw: (sql, params) => inUnit(conn.executeRaw(sql, params)),
        executeValues: (sql, params) => inUnit(conn.executeValues(sql, params)),
        executeUnprepared: (sql, params, transformRows) => {
          switch (sql) {
            case unitCommit:
              // the savepoint's work joins the group; the unit completes with the group's commit
              return inUnit(exec(unitCommit)).pipe(
                Effect.zipLeft(release),
                Effect.zipLeft(Deferred.await(unit.committed))
              )
            case unitRollback:
              return Effect.suspend(() =>
                group === unit
                  ? Effect.ignore(Effect.zipRight(exec(unitRollback), exec(unitCommit)))
                  : Effect.void
              ).pipe(
                Effect.zipRight(release),
                // what made it fail may have been the group's uncommitted rows: answer once they are
                Effect.zipRight(Effect.exit(Deferred.await(unit.committed))),
                Effect.as([])
              )
            default:
              return isTransactionControl(sql) && sql !== unitBegin && !nestedSavepoint.test(sql)
                ? refusedControl(sql)
                : inUnit(Effect.suspend(() => conn.executeUnprepared(sql, params, transformRows)))
          }
        },
        executeStream: (sql, params, transformRows) => conn.executeStream(sql, params, transformRows)
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
        yield* Effect.addFinalizer(() => release)
        // a transaction starts a group of its own: the writes before it are committed first, so its
        // body may wait on work that completed before it began (that work waits for its commit);
        // one that only writes what it was handed joins the open group (sql/writesTogether.ts)
        const together = yield* FiberRef.get(WritesTogether)
        const unit = yield* restore(together ? joinGroup : Effect.zipRight(commitOpen, joinGroup)).pipe(Effect.onError(() => release))
        return unitConnection(unit, () => held, release)
      })
    )

    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        const open = group
        if (open === undefined) return Effect.void
        // a transaction still holding the connection has not finished: nothing of the group completed
        if (!unitActive) return commitGroup(open)
        return Effect.zipRight(rollbackQuietly, Effect.sync(() => end(open, Exit.fail(failure(undefined, "The database closed")))))
      }).pipe(
        // the last commits' fsyncs end before the log's descriptor closes (and the connection after it)
        Effect.zipRight(walSync === undefined ? Effect.void : Effect.async<void>((resume) => {
          walSync.drained(() => {
            walSync.close()
            resume(Effect.void)
          })
        }))
      )
    )

    const sql = yield* SqlClient.make({
      acquirer: Effect.succeed(autocommitConnection),
      transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]],
      beginTransaction: unitBegin,
      commit: unitCommit,
      rollback: unitRollback
    })
    // a reserved connection would run statements inside the group without waiting for its commit
    return Object.assign(sql, { reserve: Effect.dieMessage("sql.reserve is not supported by the SQLite client (group commit)") })
  })

/** `SqlClient` on SQLite with group commit (see the module comment). */
export const layer = (options: SqliteOptions): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.scoped(SqlClient.SqlClient, make(options)).pipe(Layer.provide(Reactivity.layer))
