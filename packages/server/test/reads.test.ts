/**
 * The thin read path (sql/reads.ts, with the read connection of fast/readConnection.ts): on a SQLite file, reads outside a transaction run on the
 * read-only connection and see every committed write at once; inside a transaction they run on the
 * transaction's connection (and see its own uncommitted rows); another fiber's open transaction
 * neither shows nor blocks; without WAL, or once closed, the connection declines and the statement
 * runs on `SqlClient`.
 */
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Deferred, Effect, Exit, Fiber, Layer, Scope } from "effect"
import * as Path from "node:path"
import { serverDatabaseLayer } from "../src/fast/database.js"
import { readConnectionLayer } from "../src/fast/readConnection.js"
import { makeCommittedMemo, makeRead, ReadConnection } from "../src/sql/reads.js"
import { temporaryDirectory } from "../src/testDatabase.js"

const temporaryDir = temporaryDirectory("reads")

/** A migrated SQLite file with a scratch table `t`, its client and `read`. */
const fileDatabase = Effect.gen(function*() {
  const file = Path.join(yield* temporaryDir, "db.sqlite")
  const context = yield* Layer.build(serverDatabaseLayer(`sqlite:${file}`))
  const sql = yield* Effect.provide(SqlClient.SqlClient, context)
  yield* sql`CREATE TABLE t (id TEXT PRIMARY KEY)`
  const read = yield* Effect.provide(makeRead, context)
  const ids = Effect.map(read(sql<{ id: string }>`SELECT id FROM t ORDER BY id`), (rows) => rows.map((row) => row.id))
  return { context, file, ids, sql }
})

describe("thin read path", () => {
  it.scoped("a SQLite file has the read connection; committed writes show at once", () =>
    Effect.gen(function*() {
      const { context, ids, sql } = yield* fileDatabase
      assert.isTrue(context.unsafeMap.has(ReadConnection.key))
      assert.deepStrictEqual(yield* ids, [])
      yield* sql`INSERT INTO t (id) VALUES ('a')`
      assert.deepStrictEqual(yield* ids, ["a"])
    }))

  it.scoped("inside a transaction a read sees the transaction's own rows; a rollback leaves nothing", () =>
    Effect.gen(function*() {
      const { ids, sql } = yield* fileDatabase
      const inside = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO t (id) VALUES ('b')`
        return yield* ids
      }))
      assert.deepStrictEqual(inside, ["b"])
      const rolledBack = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO t (id) VALUES ('c')`
        assert.deepStrictEqual(yield* ids, ["b", "c"])
        return yield* Effect.fail("undo")
      })).pipe(Effect.exit)
      assert.isTrue(Exit.isFailure(rolledBack))
      assert.deepStrictEqual(yield* ids, ["b"])
    }))

  it.scoped("another fiber's open transaction is neither seen nor waited for", () =>
    Effect.gen(function*() {
      const { ids, sql } = yield* fileDatabase
      const inserted = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const writer = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO t (id) VALUES ('d')`
        yield* Deferred.succeed(inserted, undefined)
        yield* Deferred.await(release)
      })).pipe(Effect.fork)
      yield* Deferred.await(inserted)
      // the writer holds the shared connection: this read does not wait for it, and sees nothing
      assert.deepStrictEqual(yield* ids.pipe(Effect.timeout("2 seconds")), [])
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(writer)
      assert.deepStrictEqual(yield* ids, ["d"])
    }))

  it.scoped("a file not in WAL mode, or a closed layer: the connection declines", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDir
      const file = Path.join(dir, "rollback.sqlite")
      const db = new Database(file)
      db.exec("CREATE TABLE t (id TEXT)")
      db.close()
      const scope = yield* Scope.make()
      const reads = yield* Effect.provide(ReadConnection, yield* Layer.buildWithScope(readConnectionLayer(file), scope))
      assert.isUndefined(reads.all("SELECT id FROM t", []))

      const walFile = Path.join(dir, "wal.sqlite")
      const wal = new Database(walFile)
      wal.pragma("journal_mode = WAL")
      wal.exec("CREATE TABLE t (id TEXT)")
      const walScope = yield* Scope.make()
      const walReads = yield* Effect.provide(ReadConnection, yield* Layer.buildWithScope(readConnectionLayer(walFile), walScope))
      assert.deepStrictEqual(walReads.all("SELECT id FROM t", []), [])
      yield* Scope.close(walScope, Exit.void)
      assert.isUndefined(walReads.all("SELECT id FROM t", []))
      wal.close()
      yield* Scope.close(scope, Exit.void)
    }))

  it.scoped("a committed memo answers until the next commit, this client's or another connection's", () =>
    Effect.gen(function*() {
      const { context, file, sql } = yield* fileDatabase
      const memo = yield* Effect.provide(makeCommittedMemo<number>(10), context)
      let computed = 0
      const count = memo("rows", () =>
        Effect.map(sql<{ n: number }>`SELECT COUNT(*) AS n FROM t`, (rows) => {
          computed++
          return Number(rows[0]!.n)
        }))
      assert.deepStrictEqual([yield* count, yield* count, computed], [0, 0, 1])
      yield* sql`INSERT INTO t (id) VALUES ('a')`
      assert.deepStrictEqual([yield* count, yield* count, computed], [1, 1, 2])
      // another process writing the file
      const other = new Database(file)
      other.prepare("INSERT INTO t (id) VALUES ('b')").run()
      other.close()
      assert.deepStrictEqual([yield* count, computed], [2, 3])
      // inside a transaction it computes: the transaction's own writes are not committed
      const inside = yield* sql.withTransaction(Effect.zipRight(sql`INSERT INTO t (id) VALUES ('c')`, count))
      assert.deepStrictEqual([inside, computed], [3, 4])
      assert.deepStrictEqual([yield* count, yield* count, computed], [3, 3, 5])
    }))
})
