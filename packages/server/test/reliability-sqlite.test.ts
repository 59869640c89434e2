/**
 * The durability settings of a SQLite file database, as the server opens it: write-ahead log,
 * `synchronous = FULL` unless PLATFORM_SQLITE_SYNCHRONOUS says otherwise (the connection at NORMAL,
 * every commit's log fsynced by the client off the request thread: fast/walSync.ts), a busy timeout
 * (another process holding the write lock is waited for, not an error), foreign keys on.
 */
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Metric } from "effect"
import { serverDatabaseLayer } from "../src/fast/database.js"
import { walFsyncs } from "../src/fast/walSync.js"
import { cleanup, tempDir } from "./support/processes.js"

const pragma = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql.unsafe<Record<string, unknown>>(`PRAGMA ${name}`), (rows) => Object.values(rows[0]!)[0]))

/** The pragmas of a fresh database file opened with `env` as the configuration. */
const pragmasWith = (env: Record<string, string>) =>
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("pragmas")), (dir) => Effect.sync(() => cleanup(dir)))
    const database = serverDatabaseLayer(`sqlite:${dir}/platform.db`).pipe(
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
    )
    const fsyncs = Effect.map(Metric.value(walFsyncs), (state) => state.count)
    return yield* Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // the log fsyncs one write causes
      const before = yield* fsyncs
      yield* sql`CREATE TABLE probe (id INTEGER)`
      const logFsyncs = (yield* fsyncs) - before
      return yield* Effect.all({
        journal_mode: pragma("journal_mode"),
        synchronous: pragma("synchronous"),
        busy_timeout: pragma("busy_timeout"),
        foreign_keys: pragma("foreign_keys"),
        logFsyncs: Effect.succeed(logFsyncs)
      })
    }).pipe(Effect.provide(database))
  }).pipe(Effect.scoped)

// PRAGMA synchronous answers a number: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA
describe("SQLite durability settings", () => {
  it.live("by default: WAL, FULL durability (every commit's log fsynced before it completes), a busy timeout, foreign keys", () =>
    Effect.gen(function*() {
      const pragmas = yield* pragmasWith({})
      assert.strictEqual(pragmas.journal_mode, "wal")
      // SQLite itself at NORMAL: the fsync of a commit is the client's, off the request thread
      assert.strictEqual(pragmas.synchronous, 1)
      assert.isAtLeast(pragmas.logFsyncs, 1)
      assert.isAtLeast(Number(pragmas.busy_timeout), 5000)
      assert.strictEqual(pragmas.foreign_keys, 1)
    }))

  it.live("PLATFORM_SQLITE_SYNCHRONOUS=NORMAL opts out of FULL (still WAL)", () =>
    Effect.gen(function*() {
      const pragmas = yield* pragmasWith({ PLATFORM_SQLITE_SYNCHRONOUS: "NORMAL" })
      assert.strictEqual(pragmas.journal_mode, "wal")
      assert.strictEqual(pragmas.synchronous, 1)
      assert.strictEqual(pragmas.logFsyncs, 0)
    }))
})
