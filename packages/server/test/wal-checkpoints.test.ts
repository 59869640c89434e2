/**
 * The write-ahead log's checkpoints on a thread of their own (fast/walCheckpointer.ts): commits
 * reach the database file without the writer checkpointing (its own threshold is 4,000 pages, the
 * writes here about 520), the writer goes on meanwhile, a commit made while the thread's answer
 * to an earlier one is on its way is not left in the log, and a close still checkpoints everything
 * and removes the log.
 */
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Exit, Layer, Option, Scope } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { layer as sqliteClient } from "../src/fast/sqliteClient.js"
import * as WalCheckpointer from "../src/fast/walCheckpointer.js"
import { temporaryDirectory } from "../src/testDatabase.js"
import { eventually } from "../src/testing.js"

const temporaryDir = temporaryDirectory("wal-checkpoints")

/** The size of `file` in bytes, 0 when it does not exist. */
const sizeOf = (file: string) => (Fs.existsSync(file) ? Fs.statSync(file).size : 0)

/** 2 MiB of rows in 8 commits: about 520 pages, under any threshold of the writer's own. */
const writeRows = (sql: SqlClient.SqlClient) =>
  Effect.forEach(Array.from({ length: 8 }, (_, commit) => commit), (commit) =>
    sql.withTransaction(Effect.forEach(
      Array.from({ length: 64 }, (_, i) => commit * 64 + i),
      (i) => sql`INSERT INTO t ${sql.insert({ id: i, body: "x".repeat(4_000) })}`
    )), { discard: true })

describe("SQLite checkpoints on their own thread", () => {
  it.scopedLive("commits reach the database file without the writer checkpointing; a close checkpoints the rest and removes the log", () =>
    Effect.gen(function*() {
      const file = Path.join(yield* temporaryDir, "db.sqlite")
      const scope = yield* Scope.make()
      const sql = yield* Effect.flatMap(
        // the thread at the process's priority: what is tested here is the checkpointing (a nice-19
        // thread waited more than 10 s for its core while the whole suite ran on both)
        Layer.buildWithScope(sqliteClient({ filename: file, synchronous: "FULL", checkpointThreadNice: 0 }), scope),
        (context) => Effect.provide(SqlClient.SqlClient, context)
      )
      yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`
      const [{ wal_autocheckpoint }] = yield* sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`
      assert.strictEqual(wal_autocheckpoint, 4_000)
      const before = sizeOf(file)
      yield* writeRows(sql)
      // the pages are copied into the file by the checkpoint thread (the writer only appends to the log)
      const grown = yield* eventually(Effect.sync(() => Option.liftPredicate(sizeOf(file) - before, (grown) => grown >= 2 * 1024 * 1024)), 10_000)
      assert.isTrue(Option.isSome(grown), "not within 10 s")
      // the writer is not held up meanwhile, nor afterwards
      yield* sql`INSERT INTO t ${sql.insert({ id: 10_000, body: "after" })}`
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(Fs.existsSync(`${file}-wal`), "the log is removed at the close")
      const other = new Database(file, { readonly: true })
      try {
        const [{ n }] = other.prepare<{ n: number }>("SELECT COUNT(*) AS n FROM t").all()
        assert.strictEqual(n, 8 * 64 + 1)
      } finally {
        other.close()
      }
    }))

  it.scopedLive("a commit made while a checkpoint's answer is on its way is checkpointed too, with no commit after it", () =>
    Effect.gen(function*() {
      const file = Path.join(yield* temporaryDir, "db.sqlite")
      const db = new Database(file)
      yield* Effect.addFinalizer(() => Effect.sync(() => db.close()))
      db.pragma("journal_mode = WAL")
      db.pragma("wal_autocheckpoint = 0")
      db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
      const insert = db.prepare("INSERT INTO t (id, body) VALUES (?, ?)")
      const checkpointer = yield* WalCheckpointer.make({
        filename: file,
        synchronous: "NORMAL",
        intervalMs: 0,
        nice: 0,
        onFailure: (error) => assert.fail(`the checkpoint thread failed: ${String(error)}`)
      })
      const before = sizeOf(file)
      insert.run(1, "x".repeat(256 * 1024))
      checkpointer.committed()
      // this thread busy while the checkpoint thread copies that commit and answers (its answer
      // waits for this thread), then a second commit: told of none yet, as the first is not answered
      const deadline = Date.now() + 20_000
      while (sizeOf(file) - before < 256 * 1024 && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5)
      assert.isAtLeast(sizeOf(file) - before, 256 * 1024, "the first commit was not checkpointed within 20 s")
      const afterFirst = sizeOf(file)
      insert.run(2, "y".repeat(1024 * 1024))
      checkpointer.committed()
      // no commit after it: the answer to the first tells the thread of the second
      const grown = yield* eventually(Effect.sync(() => Option.liftPredicate(sizeOf(file) - afterFirst, (grown) => grown >= 1024 * 1024)), 5_000)
      assert.isTrue(Option.isSome(grown), "the second commit stayed in the log")
    }))

  it.scoped("an in-memory database has no log and no thread: writes commit as before", () =>
    Effect.gen(function*() {
      const sql = yield* Effect.flatMap(Layer.build(sqliteClient({ filename: ":memory:", synchronous: "FULL" })), (context) =>
        Effect.provide(SqlClient.SqlClient, context))
      yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`
      yield* writeRows(sql)
      const [{ n }] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM t`
      assert.strictEqual(n, 8 * 64)
      const [{ wal_autocheckpoint }] = yield* sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`
      assert.strictEqual(wal_autocheckpoint, 1_000)
    }))
})
