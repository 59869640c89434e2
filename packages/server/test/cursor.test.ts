/**
 * The v5 keyset pagination every v5 list shares (`makeDocuments(...).cursorPage`), exercised on a
 * plain document table: walks in both directions and both orders, with inserts between pages.
 */
import { assert, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { type CursorPage, makeDocuments } from "../src/sql/documents.js"
import { TestServerLive } from "../src/testing.js"

const Item = Schema.Struct({ id: Schema.String, account_id: Schema.String, created_at: Schema.String, n: Schema.Number })

const table = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const name = `cursor_items_${Math.random().toString(36).slice(2, 8)}`
  yield* sql.unsafe(`CREATE TABLE ${name} (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, created_at TEXT NOT NULL, n INTEGER NOT NULL, doc TEXT NOT NULL, form TEXT)`)
  return yield* makeDocuments({
    table: name,
    label: "Item",
    schema: Item,
    columns: (item) => ({ id: item.id, account_id: item.account_id, created_at: item.created_at, n: item.n })
  })
})

// timestamps that collide in groups of three, so ties are broken by id
const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(n / 3))).toISOString()
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`

layer(TestServerLive)("v5 cursor pagination", (it) => {
  it.effect("walks 250 items forwards and backwards in both orders without repeats or gaps, with inserts between pages", () =>
    Effect.gen(function*() {
      const fill = Effect.gen(function*() {
        const docs = yield* table
        for (let n = 0; n < 250; n++) yield* docs.insert({ id: id(n), account_id: "a", created_at: at(n), n })
        yield* docs.insert({ id: id(9000), account_id: "other", created_at: at(10), n: 9000 })
        return docs
      })
      for (const sortOrder of ["asc", "desc"] as const) {
        const docs = yield* fill
        const expected = Array.from({ length: 250 }, (_, n) => n)
        if (sortOrder === "desc") expected.reverse()
        // forwards
        const seen: Array<number> = []
        let after: string | undefined
        let pages = 0
        const before = (yield* docs.cursorPage({ accountIds: ["a"], limit: 1, sortBy: "created_at", sortOrder })).total
        while (true) {
          const page = yield* docs.cursorPage({ accountIds: ["a"], limit: 40, sortBy: "created_at", sortOrder, startingAfter: after })
          assert.strictEqual(page.total, before + pages) // inserts between pages are counted
          seen.push(...page.items.map((i) => i.n))
          pages++
          // an insert that sorts before the walk's position must not appear later in this walk
          yield* docs.insert({
            id: id(100000 * (sortOrder === "asc" ? 1 : 2) + pages),
            account_id: "a",
            created_at: sortOrder === "asc" ? "2025-01-01T00:00:00.000Z" : "2027-01-01T00:00:00.000Z",
            n: -pages
          })
          if (!page.has_more) break
          after = page.items[page.items.length - 1]!.id
        }
        assert.deepStrictEqual(seen, expected)
        assert.strictEqual(pages, 7)
      }

      // backwards from the end, desc: pages come in list order, has_more until the start
      const docs = yield* fill
      const all = yield* docs.cursorPage({ accountIds: ["a"], limit: 10000, sortBy: "n", sortOrder: "desc" })
      const order = all.items.map((i) => i.n)
      const back: Array<Array<number>> = []
      let before: string | undefined = all.items[all.items.length - 1]!.id
      while (true) {
        const page: CursorPage<typeof Item.Type> = yield* docs.cursorPage({
          accountIds: ["a"],
          limit: 33,
          sortBy: "n",
          sortOrder: "desc",
          endingBefore: before
        })
        back.unshift(page.items.map((i) => i.n))
        if (!page.has_more) break
        before = page.items[0]!.id
      }
      assert.deepStrictEqual(back.flat(), order.slice(0, -1))
      assert.isTrue(back.every((p, i) => i === 0 || p.length === 33))
    }))

  it.effect("an unknown or foreign cursor is a 422 on its query field; both cursors at once is a 422", () =>
    Effect.gen(function*() {
      const docs = yield* table
      yield* docs.insert({ id: id(1), account_id: "a", created_at: at(1), n: 1 })
      yield* docs.insert({ id: id(2), account_id: "b", created_at: at(2), n: 2 })
      const unknown = yield* Effect.flip(docs.cursorPage({ accountIds: ["a"], limit: 10, sortBy: "created_at", sortOrder: "desc", startingAfter: "nope" }))
      assert.deepStrictEqual(unknown.detail.map((d) => d.loc), [["query", "starting_after"]])
      const foreign = yield* Effect.flip(docs.cursorPage({ accountIds: ["a"], limit: 10, sortBy: "created_at", sortOrder: "desc", endingBefore: id(2) }))
      assert.deepStrictEqual(foreign.detail.map((d) => d.loc), [["query", "ending_before"]])
      const both = yield* Effect.flip(docs.cursorPage({ accountIds: ["a"], limit: 10, sortBy: "created_at", sortOrder: "desc", startingAfter: id(1), endingBefore: id(1) }))
      assert.deepStrictEqual(both.detail.map((d) => d.loc), [["query", "ending_before"]])
    }))

  it.effect("has_more is exact at the page boundary", () =>
    Effect.gen(function*() {
      const docs = yield* table
      for (let n = 0; n < 4; n++) yield* docs.insert({ id: id(n), account_id: "a", created_at: at(n * 3), n })
      const first = yield* docs.cursorPage({ accountIds: ["a"], limit: 2, sortBy: "created_at", sortOrder: "asc" })
      assert.isTrue(first.has_more)
      const second = yield* docs.cursorPage({ accountIds: ["a"], limit: 2, sortBy: "created_at", sortOrder: "asc", startingAfter: first.items[1]!.id })
      assert.deepStrictEqual(second.items.map((i) => i.n), [2, 3])
      assert.isFalse(second.has_more)
      assert.strictEqual(second.total, 4)
    }))

  it.effect("findNarrowed and findFirst answer findAll's rows in findAll's order (created_at, then id), whatever the order of the inserts", () =>
    Effect.gen(function*() {
      const docs = yield* table
      const sql = yield* SqlClient.SqlClient
      // inserted out of order, timestamps colliding in threes
      for (const n of [7, 2, 11, 0, 5, 9, 1, 10, 3, 8, 6, 4]) yield* docs.insert({ id: id(n), account_id: "a", created_at: at(n), n })
      yield* docs.insert({ id: id(99), account_id: "other", created_at: at(0), n: 99 })
      for (const where of [[], [sql`n >= 5`], [sql`n IN (10, 3, 4)`], [sql`n > 100`]]) {
        const all = yield* docs.findAll(["a"], where)
        assert.deepStrictEqual(yield* docs.findNarrowed(["a"], where), all)
        assert.deepStrictEqual(yield* docs.findFirst(["a"], where), Option.fromNullable(all[0]))
      }
      assert.deepStrictEqual((yield* docs.findNarrowed(["a"], [])).map((item) => item.n), Array.from({ length: 12 }, (_, n) => n))
      assert.deepStrictEqual(yield* docs.findNarrowed([], []), [])
    }))
})
