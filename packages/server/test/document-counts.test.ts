/**
 * The row counters behind list totals (sql/documentCounts.ts): after creates, archives, restores,
 * deletes, moves between accounts, rolled-back writes and concurrent creates, every counter, and
 * every `total` a v4 page or v5 cursor page answers, equals a real COUNT(*) of the rows. On
 * PostgreSQL (`--mode pg`) the concurrent writes run on separate pooled connections.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect, Layer, Schema } from "effect"
import { columnTypes } from "../src/sql/dialect.js"
import { countRows } from "../src/sql/documentCounts.js"
import { makeDocuments } from "../src/sql/documents.js"
import { migrateAll, migrateUpTo } from "./support/migrations.js"
import { provision, request, TestServerLive } from "../src/testing.js"

const Item = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  created_at: Schema.String,
  archived_at: Schema.NullOr(Schema.String)
})
type Item = typeof Item.Type

const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString()

/** Per account: [rows, archived rows], from COUNT(*) over the table itself. */
const realCounts = (table: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ account_id: string; total: number; archived: number }>`SELECT account_id, COUNT(*) AS total, SUM(${
      sql.literal(
        (yield* hasArchivedColumn(table)) ? "CASE WHEN archived_at IS NULL THEN 0 ELSE 1 END" : "0"
      )
    }) AS archived FROM ${sql(table)} GROUP BY account_id`
    return Object.fromEntries(rows.map((r) => [r.account_id, [Number(r.total), Number(r.archived)]]))
  })

const hasArchivedColumn = (table: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT archived_at FROM ${sql(table)} WHERE 1 = 0`.pipe(Effect.as(true), Effect.orElseSucceed(() => false)))

/** Per account: [rows, archived rows], from the counters (accounts whose rows are all gone left out). */
const counters = (table: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ account_id: string; total: number; archived: number }>`SELECT account_id, total, archived FROM document_counts WHERE table_name = ${table}`
    return Object.fromEntries(
      rows.filter((r) => Number(r.total) !== 0 || Number(r.archived) !== 0).map((
        r
      ) => [r.account_id, [Number(r.total), Number(r.archived)]])
    )
  })

const assertCountersExact = (table: string) =>
  Effect.gen(function*() {
    assert.deepStrictEqual(yield* counters(table), yield* realCounts(table), `counters of ${table}`)
  })

/** A document table with `archived_at`, counted from the start (rows already there included). */
const countedTable = (before: ReadonlyArray<Item>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const t = yield* columnTypes
    const name = `counted_${Math.random().toString(36).slice(2, 8)}`
    yield* sql.unsafe(
      `CREATE TABLE ${name} (id ${t.text} PRIMARY KEY, account_id ${t.text} NOT NULL, created_at ${t.timestamp} NOT NULL, archived_at ${t.timestamp}, doc ${t.json} NOT NULL, form ${t.text})`
    )
    const make = makeDocuments({
      table: name,
      label: "Item",
      schema: Item,
      columns: (item) => ({ id: item.id, account_id: item.account_id, created_at: item.created_at, archived_at: item.archived_at })
    })
    // rows written before counting starts, as on a database a migration upgrades
    const uncounted = yield* make
    for (const item of before) yield* uncounted.insert(item)
    yield* sql.withTransaction(countRows(name, { archived: true }))
    return { name, docs: yield* make }
  }).pipe(Effect.orDie)

layer(TestServerLive)("document counts", (it) => {
  it.effect("stay exact through creates, archives, restores, deletes, moves, rollbacks and concurrent creates", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      let n = 0
      const item = (account_id: string, archived = false): Item => {
        n++
        return { id: `item-${String(n).padStart(5, "0")}`, account_id, created_at: at(n), archived_at: archived ? at(n) : null }
      }
      const { docs, name } = yield* countedTable([item("a"), item("a"), item("a", true), item("b")])

      /** The counters and every list total equal COUNT(*) of what they count. */
      const check = Effect.gen(function*() {
        yield* assertCountersExact(name)
        for (const accountIds of [["a"], ["b"], ["a", "b"], ["a", "b", "nobody"], ["nobody"]]) {
          for (const includeArchived of [true, false]) {
            const where = docs.unlessArchived(includeArchived)
            const [real] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql(name)} WHERE ${
              sql.and([sql.in("account_id", accountIds), ...where])
            }`
            const expected = Number(real!.n)
            const label = `${accountIds.join(",")} includeArchived=${includeArchived}`
            const page = yield* docs.page({ accountIds, page: 1, limit: 2, where })
            assert.strictEqual(page.total_item_count, expected, `v4 page: ${label}`)
            const past = yield* docs.page({ accountIds, page: 1000, limit: 2, where })
            assert.strictEqual(past.total_item_count, expected, `v4 page past the end: ${label}`)
            assert.strictEqual(past.items.length, 0)
            const cursor = yield* docs.cursorPage({ accountIds, limit: 2, sortBy: "created_at", sortOrder: "desc", where })
            assert.strictEqual(cursor.total, expected, `v5 page: ${label}`)
          }
        }
      })

      yield* check
      const created = [item("a"), item("a"), item("b"), item("c")]
      for (const x of created) yield* docs.insert(x)
      yield* check

      // archive, archive again (a new time: still one archived row), restore
      const [first, second] = created
      yield* docs.update({ ...first!, archived_at: at(900) })
      yield* docs.update({ ...second!, archived_at: at(901) })
      yield* check
      yield* docs.update({ ...first!, archived_at: at(902) })
      yield* check
      yield* docs.update({ ...second!, archived_at: null })
      yield* docs.update({ ...second!, archived_at: null })
      yield* check

      // delete (the way families do: their own DELETE), archived and not
      yield* sql`DELETE FROM ${sql(name)} WHERE id = ${first!.id}`
      yield* sql`DELETE FROM ${sql(name)} WHERE id = ${created[2]!.id}`
      yield* check

      // a row moving to another account, archived
      yield* docs.update({ ...created[3]!, account_id: "b", archived_at: at(903) })
      yield* check

      // a write rolled back leaves the counters as they were
      const failed = yield* Effect.flip(sql.withTransaction(Effect.zipRight(docs.insert(item("a")), Effect.fail("rolled back"))))
      assert.strictEqual(failed, "rolled back")
      yield* check

      // concurrent creates, archives and restores, each in its own transaction (own connection on PostgreSQL)
      const burst = Array.from({ length: 60 }, (_, i) => item(i % 3 === 0 ? "a" : i % 3 === 1 ? "b" : "c", i % 5 === 0))
      yield* Effect.forEach(burst, (x) => sql.withTransaction(docs.insert(x)), { concurrency: "unbounded", discard: true })
      yield* check
      yield* Effect.forEach(
        burst,
        (x, i) => sql.withTransaction(docs.update({ ...x, archived_at: i % 2 === 0 ? at(2000 + i) : null })),
        { concurrency: "unbounded", discard: true }
      )
      yield* check
      yield* Effect.forEach(
        burst.filter((_, i) => i % 4 === 0),
        (x) => sql.withTransaction(sql`DELETE FROM ${sql(name)} WHERE id = ${x.id}`),
        { concurrency: "unbounded", discard: true }
      )
      yield* check
    }))

  it.effect("every counted family table counts what its API writes: creates, archives, restores, deletes", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { accountId, key } = yield* provision()
      const other = yield* provision()
      const ok = (response: { status: number; body: any }) => {
        assert.strictEqual(response.status, 200, JSON.stringify(response.body))
        return response.body
      }

      // concurrent creates of one account's model groups
      yield* Effect.forEach(
        Array.from({ length: 12 }, (_, i) => i),
        (i) => request("POST", "/v4/model-groups", { key, body: { name: `g${i}`, account_id: accountId } }).pipe(Effect.map(ok)),
        { concurrency: "unbounded", discard: true }
      )
      yield* request("POST", "/v4/model-groups", { key: other.key, body: { name: "theirs", account_id: other.accountId } })
      assert.strictEqual(ok(yield* request("GET", "/v4/model-groups?limit=5", { key })).total_item_count, 12)

      // evaluations: create, archive (twice), restore
      const evaluations = yield* Effect.forEach([1, 2, 3, 4], (i) =>
        request("POST", "/v5/evaluations", { key, body: { name: `e${i}` } }).pipe(Effect.map(ok)))
      ok(yield* request("DELETE", `/v5/evaluations/${evaluations[0].id}`, { key }))
      ok(yield* request("DELETE", `/v5/evaluations/${evaluations[1].id}`, { key }))
      ok(yield* request("DELETE", `/v5/evaluations/${evaluations[1].id}`, { key }))
      ok(yield* request("PATCH", `/v5/evaluations/${evaluations[0].id}`, { key, body: { restore: true } }))
      assert.strictEqual(ok(yield* request("GET", "/v5/evaluations?limit=1", { key })).total, 3)
      assert.strictEqual(ok(yield* request("GET", "/v5/evaluations?limit=1&include_archived=true", { key })).total, 4)

      // dashboards: create, archive
      const dashboards = yield* Effect.forEach([1, 2, 3], (i) =>
        request("POST", "/v5/evaluation-dashboards", { key, body: { name: `d${i}` } }).pipe(Effect.map(ok)))
      ok(yield* request("DELETE", `/v5/evaluation-dashboards/${dashboards[2].id}`, { key }))
      assert.strictEqual(ok(yield* request("GET", "/v5/evaluation-dashboards?limit=1", { key })).total, 2)
      assert.strictEqual(ok(yield* request("GET", "/v5/evaluation-dashboards?limit=1&include_archived=true", { key })).total, 3)

      // credentials: create, delete
      const credentials = yield* Effect.forEach([1, 2, 3], (i) =>
        request("POST", "/v5/credentials", { key, body: { name: `c${i}`, type: "api_key", secret: "s" } }).pipe(Effect.map(ok)))
      const deleted = yield* request("DELETE", `/v5/credentials/${credentials[1].id}`, { key })
      assert.include([200, 204], deleted.status)
      assert.strictEqual(ok(yield* request("GET", "/v5/credentials?limit=1", { key })).total, 2)

      // every counted table of the migrations agrees with COUNT(*)
      const counted = yield* sql<{ table_name: string }>`SELECT table_name FROM counted_document_tables ORDER BY table_name`
      assert.includeMembers(counted.map((r) => r.table_name), ["model_groups", "evaluations", "evaluation_dashboards", "credentials"])
      for (const { table_name } of counted) yield* assertCountersExact(table_name)
    }))
})

describe("document counts on an upgraded SQLite file", () => {
  it.effect("migration 0018 counts the rows written before it", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // the migrations before 0018, as a database written by an earlier release has them
      yield* migrateUpTo(17)
      const docRow = (id: string, account_id: string) => ({ id, account_id, created_at: at(1), doc: "{}" })
      yield* sql`INSERT INTO model_groups ${sql.insert([docRow("m1", "a"), docRow("m2", "a"), docRow("m3", "b")])}`
      yield* sql`INSERT INTO evaluations ${
        sql.insert([
          { ...docRow("e1", "a"), name_lower: "x", archived_at: null },
          { ...docRow("e2", "a"), name_lower: "y", archived_at: at(2) }
        ])
      }`
      yield* migrateAll
      assert.deepStrictEqual(yield* counters("model_groups"), { a: [2, 0], b: [1, 0] })
      assert.deepStrictEqual(yield* counters("evaluations"), { a: [2, 1] })
      yield* sql`INSERT INTO model_groups ${sql.insert(docRow("m4", "b"))}`
      assert.deepStrictEqual(yield* counters("model_groups"), { a: [2, 0], b: [2, 0] })
    }).pipe(Effect.provide(Layer.fresh(SqliteClient.layer({ filename: ":memory:" })))))
})
