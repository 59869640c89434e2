/**
 * The write-ahead log's checkpoints on a thread of their own (fast/walCheckpointer.ts): commits
 * reach the database file without the writer checkpointing (its own threshold is 4,000 pages, the
 * writes here about 520), the writer goes on meanwhile, and a close still checkpoints everything
 * and removes the log.
 */
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Exit, Layer, Option, Scope } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { layer as sqliteClient } from "../src/fast/sqliteClient.js"
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
      // the pages are copied into the file by the checkpoint thread (the writer only appends to the
      // log); a commit made while the thread's answer was on its way waits for the next commit, so
      // the writer goes on with a small commit every 250 ms as an application would
      let polls = 0
      let nudges = 0
      const nudge = Effect.suspend(() =>
        ++polls % 25 === 0
          ? sql`INSERT INTO t ${sql.insert({ id: 20_000 + nudges++, body: "" })}`.pipe(Effect.asVoid)
          : Effect.void
      )
      const grown = yield* eventually(
        Effect.zipRight(nudge, Effect.sync(() => Option.liftPredicate(sizeOf(file) - before, (grown) => grown >= 2 * 1024 * 1024))),
        10_000
      )
      assert.isTrue(Option.isSome(grown), "not within 10 s")
      // the writer is not held up meanwhile, nor afterwards
      yield* sql`INSERT INTO t ${sql.insert({ id: 10_000, body: "after" })}`
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(Fs.existsSync(`${file}-wal`), "the log is removed at the close")
      const other = new Database(file, { readonly: true })
      try {
        const [{ n }] = other.prepare<{ n: number }>("SELECT COUNT(*) AS n FROM t").all()
        assert.strictEqual(n, 8 * 64 + 1 + nudges)
      } finally {
        other.close()
      }
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
