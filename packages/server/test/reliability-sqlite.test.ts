/**
 * The durability settings of a SQLite file database, as the server opens it: write-ahead log,
 * `synchronous = FULL` unless PLATFORM_SQLITE_SYNCHRONOUS says otherwise, a busy timeout (another
 * process holding the write lock is waited for, not an error), foreign keys on.
 */
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { serverDatabaseLayer } from "../src/fast/database.js"
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
    return yield* Effect.all({
      journal_mode: pragma("journal_mode"),
      synchronous: pragma("synchronous"),
      busy_timeout: pragma("busy_timeout"),
      foreign_keys: pragma("foreign_keys")
    }).pipe(Effect.provide(database))
  }).pipe(Effect.scoped)

// PRAGMA synchronous answers a number: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA
describe("SQLite durability settings", () => {
  it.live("by default: WAL, synchronous FULL, a busy timeout, foreign keys", () =>
    Effect.gen(function*() {
      const pragmas = yield* pragmasWith({})
      assert.strictEqual(pragmas.journal_mode, "wal")
      assert.strictEqual(pragmas.synchronous, 2)
      assert.isAtLeast(Number(pragmas.busy_timeout), 5000)
      assert.strictEqual(pragmas.foreign_keys, 1)
    }))

  it.live("PLATFORM_SQLITE_SYNCHRONOUS=NORMAL opts out of FULL (still WAL)", () =>
    Effect.gen(function*() {
      const pragmas = yield* pragmasWith({ PLATFORM_SQLITE_SYNCHRONOUS: "NORMAL" })
      assert.strictEqual(pragmas.journal_mode, "wal")
      assert.strictEqual(pragmas.synchronous, 1)
    }))
})
