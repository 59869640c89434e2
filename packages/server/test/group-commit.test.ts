/**
 * Group commit of the SQLite client (fast/sqliteClient.ts): writes that arrive together share one
 * commit; none completes before that commit (another connection sees it at once); a unit that
 * fails undoes only itself; when SQLite rolls the whole transaction back, every write of the group
 * fails and nothing of it stays; a group the engine's fibers opened commits on the engine's
 * scheduler, until a request's write joins it.
 */
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Cause, Context, Deferred, Effect, Either, Exit, Fiber, Layer, Metric, Option, type Scheduler } from "effect"
import type { Task } from "effect/Scheduler"
import { setImmediate as nextTurn } from "node:timers/promises"
import * as Path from "node:path"
import { groupCommits, layer as sqliteClient } from "../src/fast/sqliteClient.js"
import { writesTogether } from "../src/sql/writesTogether.js"
import { temporaryDirectory } from "../src/testDatabase.js"

const temporaryDir = temporaryDirectory("group-commit")

const clientOf = (file: string) =>
  Effect.flatMap(Layer.build(sqliteClient({ filename: file, synchronous: "FULL" })), (context) =>
    Effect.provide(SqlClient.SqlClient, context))

/** A SQLite file with table `t`, its client, and what another connection sees in `t`. */
const database = Effect.gen(function*() {
  const file = Path.join(yield* temporaryDir, "db.sqlite")
  const sql = yield* clientOf(file)
  yield* sql`CREATE TABLE t (id TEXT PRIMARY KEY, note TEXT)`
  const committed = Effect.acquireUseRelease(
    Effect.sync(() => new Database(file, { readonly: true })),
    (other) => Effect.sync(() => other.prepare<{ id: string }>("SELECT id FROM t ORDER BY id").all().map((row) => row.id)),
    (other) => Effect.sync(() => other.close())
  )
  return { committed, file, sql }
})

const commitsSoFar = Effect.map(Metric.value(groupCommits), (state) => state.count)

describe("SQLite group commit", () => {
  it.scoped("concurrent writes share commits, and each is committed when it completes", () =>
    Effect.gen(function*() {
      const { committed, sql } = yield* database
      const writes = 50
      const before = yield* commitsSoFar
      const ids = Array.from({ length: writes }, (_, i) => `w${String(i).padStart(2, "0")}`)
      // each write, once complete, is seen by another connection: it was committed before it completed
      const seenAtCompletion = yield* Effect.forEach(
        ids,
        (id) => Effect.zipRight(sql`INSERT INTO t ${sql.insert({ id, note: "x" })}`, Effect.map(committed, (seen) => seen.includes(id))),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(seenAtCompletion, ids.map(() => true))
      assert.deepStrictEqual(yield* committed, ids)
      const commits = (yield* commitsSoFar) - before
      assert.isAtLeast(commits, 1)
      assert.isBelow(commits, writes / 2, `${writes} concurrent writes took ${commits} commits`)
    }))

  it.scoped("transactions that only write (writesTogether) share commits with the writes around them; a failing one undoes itself alone", () =>
    Effect.gen(function*() {
      const { committed, sql } = yield* database
      const together = <A, E>(effect: Effect.Effect<A, E>) => Effect.provideService(writesTogether(effect), SqlClient.SqlClient, sql)
      const before = yield* commitsSoFar
      const ids = Array.from({ length: 40 }, (_, i) => `x${String(i).padStart(2, "0")}`)
      const seenAtCompletion = yield* Effect.forEach(
        ids,
        (id) =>
          Effect.zipRight(
            together(Effect.zipRight(sql`INSERT INTO t ${sql.insert({ id, note: "a" })}`, sql`UPDATE t SET note = 'b' WHERE id = ${id}`)),
            Effect.map(committed, (seen) => seen.includes(id))
          ),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(seenAtCompletion, ids.map(() => true))
      const commits = (yield* commitsSoFar) - before
      assert.isBelow(commits, ids.length / 2, `${ids.length} concurrent transactions took ${commits} commits`)
      // one failing amid others: it alone is undone
      const outcomes = yield* Effect.forEach(
        ["y1", "x00", "y2"],
        (id) => Effect.either(together(Effect.zipRight(sql`INSERT INTO t ${sql.insert({ id: `${id}-first`, note: "a" })}`, sql`INSERT INTO t ${sql.insert({ id, note: "a" })}`))),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(outcomes.map(Either.isRight), [true, false, true])
      const rows = yield* committed
      assert.includeMembers(rows, ["y1", "y1-first", "y2", "y2-first"])
      assert.notInclude(rows, "x00-first")
    }))

  it.scoped("a failing transaction or statement undoes only itself; the rest of its group commits", () =>
    Effect.gen(function*() {
      const { committed, sql } = yield* database
      yield* sql`INSERT INTO t ${sql.insert({ id: "kept", note: "original" })}`
      const [failedTransaction, written, duplicate, nested] = yield* Effect.all([
        sql.withTransaction(
          Effect.zipRight(sql`INSERT INTO t ${sql.insert({ id: "undone", note: "x" })}`, Effect.fail("handler failed" as const))
        ).pipe(Effect.either),
        sql`INSERT INTO t ${sql.insert({ id: "written", note: "x" })}`.pipe(Effect.either),
        sql`INSERT INTO t ${sql.insert({ id: "kept", note: "overwritten?" })}`.pipe(Effect.either),
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO t ${sql.insert({ id: "outer", note: "x" })}`
          // an inner transaction that fails rolls back to its own savepoint
          yield* Effect.either(sql.withTransaction(
            Effect.zipRight(sql`INSERT INTO t ${sql.insert({ id: "inner", note: "x" })}`, Effect.fail("inner failed" as const))
          ))
        })).pipe(Effect.either)
      ], { concurrency: "unbounded" })
      assert.deepStrictEqual(failedTransaction, Either.left("handler failed"))
      assert.isTrue(Either.isRight(written))
      assert.isTrue(Either.isLeft(duplicate))
      assert.isTrue(Either.isRight(nested))
      assert.deepStrictEqual(yield* committed, ["kept", "outer", "written"])
      const notes = yield* sql<{ note: string }>`SELECT note FROM t WHERE id = 'kept'`
      assert.deepStrictEqual(notes, [{ note: "original" }])
    }))

  it.scoped("when SQLite rolls the whole transaction back, every write of the group fails and none stays", () =>
    Effect.gen(function*() {
      const { committed, sql } = yield* database
      yield* sql`INSERT INTO t ${sql.insert({ id: "kept", note: "original" })}`
      const [first, rollingBack] = yield* Effect.all([
        sql`INSERT INTO t ${sql.insert({ id: "first", note: "x" })}`.pipe(Effect.either),
        // OR ROLLBACK: on the conflict SQLite ends the whole transaction, the group with it
        sql`INSERT OR ROLLBACK INTO t (id, note) VALUES ('kept', 'x')`.pipe(Effect.either)
      ], { concurrency: "unbounded" })
      assert.isTrue(Either.isLeft(first), "a write whose group was rolled back must not succeed")
      assert.isTrue(Either.isLeft(rollingBack))
      assert.deepStrictEqual(yield* committed, ["kept"])
      // the client goes on: the next write opens a new group
      yield* sql`INSERT INTO t ${sql.insert({ id: "after", note: "x" })}`
      assert.deepStrictEqual(yield* committed, ["after", "kept"])
    }))

  it.scoped("a read outside a transaction waits for the open group, and sees it committed", () =>
    Effect.gen(function*() {
      const { committed, sql } = yield* database
      const [, [rows, committedThen]] = yield* Effect.all([
        sql`INSERT INTO t ${sql.insert({ id: "a", note: "x" })}`,
        Effect.zip(sql<{ id: string }>`SELECT id FROM t`, committed)
      ], { concurrency: "unbounded" })
      // the read saw the group's row, so it completed only once that row was committed
      assert.deepStrictEqual(rows.map((row) => row.id), ["a"])
      assert.deepStrictEqual(committedThen, ["a"])
    }))

  it.scoped("a writer waits for another client's write lock without blocking the event loop", () =>
    Effect.gen(function*() {
      const { committed, file, sql } = yield* database
      const other = yield* clientOf(file)
      // the other client holds the write lock across an asynchronous step of its transaction
      const holding = yield* Effect.fork(other.withTransaction(Effect.gen(function*() {
        yield* other`INSERT INTO t ${other.insert({ id: "held", note: "x" })}`
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
      })))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      // SQLite's own busy wait would block the event loop, so the holder could never finish
      yield* sql`INSERT INTO t ${sql.insert({ id: "waited", note: "x" })}`
      yield* Fiber.join(holding)
      assert.deepStrictEqual(yield* committed, ["held", "waited"])
    }))

  it.scoped("a transaction may wait on a write that completed before it began", () =>
    Effect.gen(function*() {
      const { committed, sql } = yield* database
      const written = yield* Deferred.make<void>()
      // the write completes (and so answers) only with its group's commit; the transaction that
      // waits on it starts a group of its own, after committing the one holding the write
      const write = yield* Effect.fork(
        Effect.zipRight(sql`INSERT INTO t ${sql.insert({ id: "first", note: "x" })}`, Deferred.succeed(written, undefined))
      )
      yield* Effect.yieldNow()
      const waiting = sql.withTransaction(Effect.zipRight(Deferred.await(written), sql`INSERT INTO t ${sql.insert({ id: "second", note: "x" })}`))
      yield* waiting.pipe(Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => "deadlocked" }))
      yield* Fiber.join(write)
      assert.deepStrictEqual(yield* committed, ["first", "second"])
    }))

  it.scoped("transaction control in a statement is refused; settings run outside the group", () =>
    Effect.gen(function*() {
      const { sql } = yield* database
      const begun = yield* Effect.exit(sql.unsafe("BEGIN"))
      assert.isTrue(Exit.isFailure(begun) && Cause.isDie(begun.cause))
      const [, foreignKeys] = yield* Effect.all([
        sql`INSERT INTO t ${sql.insert({ id: "a", note: "x" })}`,
        sql.unsafe<{ foreign_keys: number }>("PRAGMA foreign_keys")
      ], { concurrency: "unbounded" })
      assert.deepStrictEqual(foreignKeys, [{ foreign_keys: 1 }])
    }))

  it.live("a writer that cannot get the lock within the busy timeout fails, and the client goes on", () =>
    Effect.gen(function*() {
      const { committed, file, sql } = yield* database
      const other = new Database(file)
      other.exec("BEGIN IMMEDIATE")
      const refused = yield* Effect.exit(sql.withTransaction(sql`INSERT INTO t ${sql.insert({ id: "refused", note: "x" })}`))
      assert.isTrue(Exit.isFailure(refused))
      other.exec("COMMIT")
      other.close()
      // nothing was left holding the connection
      yield* sql`INSERT INTO t ${sql.insert({ id: "after", note: "x" })}`.pipe(Effect.timeout("5 seconds"))
      assert.deepStrictEqual(yield* committed, ["after"])
    }).pipe(Effect.scoped), { timeout: 20_000 })

  it.scoped("transaction control hidden behind a comment is refused too; a commented setting runs outside the group", () =>
    Effect.gen(function*() {
      const { sql } = yield* database
      for (const statement of ["/* note */ COMMIT", "-- note\nBEGIN"]) {
        const refused = yield* Effect.exit(sql.unsafe(statement))
        assert.isTrue(Exit.isFailure(refused) && Cause.isDie(refused.cause), statement)
      }
      // inside a transaction SQLite ignores foreign_keys: run outside the group, it applies
      const [, , foreignKeys] = yield* Effect.all([
        sql`INSERT INTO t ${sql.insert({ id: "a", note: "x" })}`,
        sql.unsafe("-- turned off\nPRAGMA foreign_keys = OFF"),
        Effect.zipRight(Effect.yieldNow(), sql.unsafe<{ foreign_keys: number }>("PRAGMA foreign_keys"))
      ], { concurrency: "unbounded" })
      assert.deepStrictEqual(foreignKeys, [{ foreign_keys: 0 }])
    }))

  it.scoped("writes interrupted at any step never leave the client in a transaction nothing commits", () =>
    Effect.gen(function*() {
      const { sql } = yield* database
      // fibers yield every few steps, so the interruption lands between any two of them
      const padded = <A, E, R>(steps: number, effect: Effect.Effect<A, E, R>) =>
        Effect.withMaxOpsBeforeYield(
          Array.from({ length: steps }).reduce<Effect.Effect<A, E, R>>((inner) => Effect.zipRight(Effect.void, inner), effect),
          10
        )
      let id = 0
      for (let steps = 0; steps < 3; steps++) {
        for (let yields = 0; yields < 100; yields++) {
          const interruptedId = `i${++id}`
          const write = yield* Effect.fork(padded(steps, sql`INSERT INTO t ${sql.insert({ id: interruptedId, note: "x" })}`))
          for (let i = 0; i < yields; i++) yield* Effect.yieldNow()
          const interrupted = yield* Fiber.interrupt(write)
          const next = yield* Effect.exit(
            sql`INSERT INTO t ${sql.insert({ id: `n${id}`, note: "x" })}`.pipe(Effect.timeout("2 seconds"))
          )
          assert.isTrue(Exit.isSuccess(next), `the write after interrupting attempt ${id} failed`)
          const stored = yield* sql<{ id: string }>`SELECT id FROM t WHERE id = ${interruptedId}`
          // interrupted, the write may or may not have committed; answered, it has
          if (Exit.isSuccess(interrupted)) assert.strictEqual(stored.length, 1)
        }
      }
    }), { timeout: 60_000 })

  it.scoped("a group a fiber of another scheduler (the engine's) opened commits as that scheduler's task; a write of another fiber joining it commits it on the next turn", () =>
    Effect.gen(function*() {
      const { committed, sql } = yield* database
      // the engine's scheduler, its tasks held until the test runs them
      const held: Array<Task> = []
      const engine: Scheduler.Scheduler = { scheduleTask: (task) => void held.push(task), shouldYield: () => false }
      const turns = (n: number) => Effect.promise(async () => {
        for (let i = 0; i < n; i++) await nextTurn()
      })
      /** Runs the engine's tasks until `fiber` is done. */
      const runEngine = <A, E>(fiber: Fiber.RuntimeFiber<A, E>) =>
        Effect.gen(function*() {
          while (Option.isNone(yield* Fiber.poll(fiber))) {
            while (held.length > 0) held.shift()!()
            yield* turns(1)
          }
          return yield* Fiber.join(fiber)
        })
      const engineWrite = (id: string) => Effect.fork(Effect.withScheduler(sql`INSERT INTO t ${sql.insert({ id, note: "engine" })}`, engine))

      const first = yield* engineWrite("engine-1")
      yield* turns(5)
      // its group waits for the engine's scheduler: nothing committed, however many turns pass
      assert.deepStrictEqual(yield* committed, [])
      assert.isAbove(held.length, 0)
      yield* runEngine(first)
      assert.deepStrictEqual(yield* committed, ["engine-1"])

      const second = yield* engineWrite("engine-2")
      yield* turns(2)
      assert.deepStrictEqual(yield* committed, ["engine-1"])
      // a request's write joins the group: it commits on the next turn, the engine's tasks still held
      yield* sql`INSERT INTO t ${sql.insert({ id: "request", note: "x" })}`
      assert.deepStrictEqual(yield* committed, ["engine-1", "engine-2", "request"])
      yield* runEngine(second)
    }))

  it.scoped("a commit's fsync runs off the thread: its writes complete only once the fsync has; commits meanwhile share the next one", () =>
    Effect.gen(function*() {
      const file = Path.join(yield* temporaryDir, "db.sqlite")
      // the log's fsyncs: while `holding`, held until the test lets them end
      let holding = false
      const held: Array<() => void> = []
      const context = yield* Layer.build(sqliteClient({
        filename: file,
        synchronous: "FULL",
        fileSync: (_fd, done) => holding ? held.push(() => done(null)) : setImmediate(() => done(null))
      }))
      const sql = Context.get(context, SqlClient.SqlClient)
      yield* sql`CREATE TABLE t (id TEXT PRIMARY KEY, note TEXT)`
      const [{ synchronous }] = yield* sql<{ synchronous: number }>`PRAGMA synchronous`
      assert.strictEqual(synchronous, 1, "the connection runs at NORMAL; the fsync is the client's")
      holding = true
      const other = new Database(file, { readonly: true })
      yield* Effect.addFinalizer(() => Effect.sync(() => other.close()))
      const seen = () => other.prepare<{ id: string }>("SELECT id FROM t ORDER BY id").all().map((row) => row.id)

      const first = yield* Effect.fork(sql`INSERT INTO t ${sql.insert({ id: "a", note: "x" })}`)
      yield* Effect.promise(() => nextTurn()).pipe(Effect.repeatN(3))
      // committed (another connection sees it), but not answered while its fsync runs
      assert.deepStrictEqual(seen(), ["a"])
      assert.isTrue(Option.isNone(yield* Fiber.poll(first)))
      assert.strictEqual(held.length, 1)
      // two more commits while it runs: both wait for one fsync that starts after it
      const second = yield* Effect.fork(sql`INSERT INTO t ${sql.insert({ id: "b", note: "x" })}`)
      yield* Effect.promise(() => nextTurn()).pipe(Effect.repeatN(3))
      const third = yield* Effect.fork(sql`INSERT INTO t ${sql.insert({ id: "c", note: "x" })}`)
      yield* Effect.promise(() => nextTurn()).pipe(Effect.repeatN(3))
      assert.deepStrictEqual(seen(), ["a", "b", "c"])
      assert.strictEqual(held.length, 1)
      held.shift()!()
      yield* Fiber.join(first)
      assert.isTrue(Option.isNone(yield* Fiber.poll(second)))
      assert.strictEqual(held.length, 1, "one fsync for the two commits that ended during the first")
      holding = false
      held.shift()!()
      yield* Fiber.join(second)
      yield* Fiber.join(third)
    }))

  it.scoped("a failed fsync fails the writes of the commits it was to make durable", () =>
    Effect.gen(function*() {
      const file = Path.join(yield* temporaryDir, "db.sqlite")
      let failing = false
      const context = yield* Layer.build(sqliteClient({
        filename: file,
        synchronous: "FULL",
        fileSync: (_fd, done) => setImmediate(() => done(failing ? Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" }) : null))
      }))
      const sql = Context.get(context, SqlClient.SqlClient)
      yield* sql`CREATE TABLE t (id TEXT PRIMARY KEY, note TEXT)`
      failing = true
      const failed = yield* Effect.exit(sql`INSERT INTO t ${sql.insert({ id: "a", note: "x" })}`)
      assert.isTrue(Exit.isFailure(failed))
      assert.match(String(Cause.squash((failed as Exit.Failure<unknown, unknown>).cause)), /could not be made durable/)
      failing = false
      yield* sql`INSERT INTO t ${sql.insert({ id: "b", note: "x" })}`
    }))
})
