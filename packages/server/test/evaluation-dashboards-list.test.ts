/**
 * `GET /v5/evaluation-dashboards` (docs/decisions.md "Pagination and lists"): the v5 envelope,
 * each filter, archive visibility, sorting and a cursor walk over a filtered list.
 */
import { assert, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive } from "../src/testing.js"
import { tableColumns } from "../src/sql/dialect.js"

const base = "/v5/evaluation-dashboards"

/** An evaluation of `accountId`, written straight into the evaluations family's table. */
const insertEvaluation = (accountId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id = crypto.randomUUID()
    const columns = yield* tableColumns("evaluations")
    const row: Record<string, unknown> = { id, account_id: accountId, created_at: "2026-01-01T00:00:00.000Z", doc: "{}" }
    for (const column of columns) {
      if (!(column.name in row) && column.notNull) row[column.name] = "x"
    }
    yield* sql`INSERT INTO evaluations ${sql.insert(row)}`
    return id
  }).pipe(Effect.orDie)

type Client = Effect.Effect.Success<ReturnType<typeof provision>>["client"]

/** Creates dashboards one millisecond apart (so newest-first order is their reverse). */
const createAll = (
  client: Client,
  bodies: ReadonlyArray<{
    name: string
    tags?: Array<string>
    evaluation_id?: string
    evaluation_group_id?: string
  }>
) =>
  Effect.forEach(bodies, (payload) =>
    Effect.zipLeft(client.evaluationDashboards.create({ payload }), TestClock.adjust("1 millis")))

const names = (page: { readonly items: ReadonlyArray<{ readonly name: string }> }) => page.items.map((d) => d.name)

layer(TestServerLive)("evaluation dashboards list", (it) => {
  it.effect("answers the v5 envelope, newest first, with every field; other accounts' dashboards are not listed", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const other = yield* provision()
      yield* other.client.evaluationDashboards.create({ payload: { name: "not mine" } })
      const [a, b] = yield* createAll(client, [{ name: "a", tags: ["t"] }, { name: "b" }])
      const page = yield* client.evaluationDashboards.list({ urlParams: {} })
      assert.deepStrictEqual(page, { items: [b!, a!], total: 2, has_more: false, limit: 100, object: "list" })
      const limited = yield* client.evaluationDashboards.list({ urlParams: { limit: 1 } })
      assert.deepStrictEqual(limited, { items: [b!], total: 2, has_more: true, limit: 1, object: "list" })
    }))

  it.effect("filters by evaluation_id and evaluation_group_id", () =>
    Effect.gen(function*() {
      const { accountId, client } = yield* provision()
      const e1 = yield* insertEvaluation(accountId)
      const e2 = yield* insertEvaluation(accountId)
      yield* createAll(client, [
        { name: "e1-g1", evaluation_id: e1, evaluation_group_id: "g1" },
        { name: "e1", evaluation_id: e1 },
        { name: "e2-g1", evaluation_id: e2, evaluation_group_id: "g1" },
        { name: "g2", evaluation_group_id: "g2" },
        { name: "none" }
      ])
      assert.deepStrictEqual(names(yield* client.evaluationDashboards.list({ urlParams: { evaluation_id: e1 } })), [
        "e1",
        "e1-g1"
      ])
      assert.deepStrictEqual(
        names(yield* client.evaluationDashboards.list({ urlParams: { evaluation_group_id: "g1" } })),
        ["e2-g1", "e1-g1"]
      )
      const both = yield* client.evaluationDashboards.list({ urlParams: { evaluation_id: e2, evaluation_group_id: "g1" } })
      assert.deepStrictEqual(names(both), ["e2-g1"])
      assert.strictEqual(both.total, 1)
      const nothing = yield* client.evaluationDashboards.list({ urlParams: { evaluation_id: "unknown" } })
      assert.deepStrictEqual(nothing, { items: [], total: 0, has_more: false, limit: 100, object: "list" })
    }))

  it.effect("tags: any of the given tags, case-insensitively, comma-joined or repeated", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      yield* createAll(client, [
        { name: "prod", tags: ["Prod", "Weekly"] },
        { name: "staging", tags: ["staging"] },
        { name: "weekly", tags: ["WEEKLY"] },
        { name: "untagged" }
      ])
      assert.deepStrictEqual(names(yield* client.evaluationDashboards.list({ urlParams: { tags: ["PROD"] } })), ["prod"])
      assert.deepStrictEqual(names(yield* client.evaluationDashboards.list({ urlParams: { tags: ["weekly"] } })), [
        "weekly",
        "prod"
      ])
      const joined = yield* request("GET", `${base}?tags=staging,prod`, { key })
      assert.deepStrictEqual(joined.body.items.map((d: any) => d.name), ["staging", "prod"])
      assert.strictEqual(joined.body.total, 2)
      const repeated = yield* request("GET", `${base}?tags=Staging&tags=weekly`, { key })
      assert.deepStrictEqual(repeated.body.items.map((d: any) => d.name), ["weekly", "staging", "prod"])
      // a tag is matched whole, not as a substring
      assert.strictEqual((yield* client.evaluationDashboards.list({ urlParams: { tags: ["week"] } })).total, 0)
      // the original spelling of tags is kept on the dashboard
      const prod = (yield* client.evaluationDashboards.list({ urlParams: { tags: ["prod"] } })).items[0]!
      assert.deepStrictEqual(prod.tags, ["Prod", "Weekly"])
    }))

  it.effect("created_by_ids: dashboards created by any of the given identities", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision({ accountId: alice.accountId })
      const carol = yield* provision({ accountId: alice.accountId })
      yield* createAll(alice.client, [{ name: "alice" }])
      yield* createAll(bob.client, [{ name: "bob" }])
      yield* createAll(carol.client, [{ name: "carol" }])
      const byBob = yield* alice.client.evaluationDashboards.list({ urlParams: { created_by_ids: [bob.identityId] } })
      assert.deepStrictEqual(names(byBob), ["bob"])
      assert.strictEqual(byBob.items[0]!.created_by.id, bob.identityId)
      const joined = yield* request("GET", `${base}?created_by_ids=${alice.identityId},${carol.identityId}`, { key: bob.key })
      assert.deepStrictEqual(joined.body.items.map((d: any) => d.name), ["carol", "alice"])
      const nobody = yield* alice.client.evaluationDashboards.list({ urlParams: { created_by_ids: ["someone"] } })
      assert.strictEqual(nobody.total, 0)
    }))

  it.effect("search: case-insensitive substring of the name or of a tag; % and _ are literal", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      yield* createAll(client, [
        { name: "Latency Overview" },
        { name: "Quality", tags: ["regression-LATENCY"] },
        { name: "100% coverage" },
        { name: "snake_case" },
        { name: "Ünïcode Board" },
        { name: "other", tags: ["misc"] }
      ])
      const latency = yield* client.evaluationDashboards.list({ urlParams: { search: "laTENcy" } })
      assert.deepStrictEqual(names(latency), ["Quality", "Latency Overview"])
      assert.strictEqual(latency.total, 2)
      assert.deepStrictEqual(names(yield* client.evaluationDashboards.list({ urlParams: { search: "0%" } })), [
        "100% coverage"
      ])
      assert.deepStrictEqual(names(yield* client.evaluationDashboards.list({ urlParams: { search: "e_c" } })), [
        "snake_case"
      ])
      const percent = yield* request("GET", `${base}?search=${encodeURIComponent("%")}`, { key })
      assert.deepStrictEqual(percent.body.items.map((d: any) => d.name), ["100% coverage"])
      assert.deepStrictEqual(names(yield* client.evaluationDashboards.list({ urlParams: { search: "ünï" } })), [
        "Ünïcode Board"
      ])
      assert.deepStrictEqual(names(yield* client.evaluationDashboards.list({ urlParams: { search: "MISC" } })), ["other"])
      assert.strictEqual((yield* client.evaluationDashboards.list({ urlParams: { search: "absent" } })).total, 0)
      // combined with another filter: AND
      const combined = yield* client.evaluationDashboards.list({ urlParams: { search: "latency", tags: ["regression-latency"] } })
      assert.deepStrictEqual(names(combined), ["Quality"])
    }))

  it.effect("archived dashboards are hidden unless include_archived=true", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const [kept, gone] = yield* createAll(client, [{ name: "kept", tags: ["x"] }, { name: "gone", tags: ["x"] }])
      const archived = yield* client.evaluationDashboards.archive({ path: { dashboard_id: gone!.id } })
      assert.deepStrictEqual(names(yield* client.evaluationDashboards.list({ urlParams: {} })), ["kept"])
      assert.deepStrictEqual(names(yield* client.evaluationDashboards.list({ urlParams: { tags: ["x"] } })), ["kept"])
      const all = yield* client.evaluationDashboards.list({ urlParams: { include_archived: true } })
      assert.deepStrictEqual(all.items, [archived, kept!])
      assert.strictEqual(all.total, 2)
      const explicitFalse = yield* request("GET", `${base}?include_archived=false`, { key })
      assert.strictEqual(explicitFalse.body.total, 1)
    }))

  it.effect("sort_by name / updated_at and sort_order asc", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const [, b] = yield* createAll(client, [{ name: "charlie" }, { name: "alpha" }, { name: "bravo" }])
      assert.deepStrictEqual(names(yield* client.evaluationDashboards.list({ urlParams: { sort_order: "asc" } })), [
        "charlie",
        "alpha",
        "bravo"
      ])
      assert.deepStrictEqual(
        names(yield* client.evaluationDashboards.list({ urlParams: { sort_by: "name", sort_order: "asc" } })),
        ["alpha", "bravo", "charlie"]
      )
      assert.deepStrictEqual(names(yield* client.evaluationDashboards.list({ urlParams: { sort_by: "name" } })), [
        "charlie",
        "bravo",
        "alpha"
      ])
      yield* client.evaluationDashboards.update({ path: { dashboard_id: b!.id }, payload: { description: "touched" } })
      assert.deepStrictEqual(names(yield* client.evaluationDashboards.list({ urlParams: { sort_by: "updated_at" } })), [
        "alpha",
        "bravo",
        "charlie"
      ])
    }))

  it.effect("a cursor walk over a filtered list visits every match once, forwards and back", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const made = yield* createAll(
        client,
        Array.from({ length: 12 }, (_, i) => ({ name: `d${String(i).padStart(2, "0")}`, tags: i % 3 === 0 ? [] : ["walk"] }))
      )
      const expected = made.filter((d) => d.tags.length > 0).map((d) => d.name).reverse()
      assert.strictEqual(expected.length, 8)

      const seen: Array<string> = []
      let after: string | undefined
      let pages = 0
      while (true) {
        const page = yield* client.evaluationDashboards.list({
          urlParams: { tags: ["WALK"], limit: 3, ...(after !== undefined ? { starting_after: after } : {}) }
        })
        assert.strictEqual(page.total, 8)
        assert.strictEqual(page.limit, 3)
        seen.push(...names(page))
        pages++
        if (!page.has_more) break
        after = page.items[page.items.length - 1]!.id
      }
      assert.deepStrictEqual(seen, expected)
      assert.strictEqual(pages, 3)

      // back from the last item: the page just before it, in list order
      const last = made.find((d) => d.name === expected[expected.length - 1])!
      const back = yield* client.evaluationDashboards.list({
        urlParams: { tags: ["walk"], limit: 3, ending_before: last.id }
      })
      assert.deepStrictEqual(names(back), expected.slice(4, 7))
      assert.isTrue(back.has_more)

      // a cursor that is not in the filtered list is a 422 on its field
      const untagged = made.find((d) => d.tags.length === 0)!
      const outside = yield* Effect.flip(
        client.evaluationDashboards.list({ urlParams: { tags: ["walk"], starting_after: untagged.id } })
      )
      assert.strictEqual(outside._tag, "ValidationError")
    }))

  it.effect("query validation: exact 422 locs and types", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const bad = yield* request("GET", `${base}?limit=0&sort_by=title&sort_order=up&include_archived=yes`, { key })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad), [
        { loc: ["query", "limit"], type: "range_error" },
        { loc: ["query", "sort_order"], type: "literal_error" },
        { loc: ["query", "sort_by"], type: "literal_error" },
        { loc: ["query", "include_archived"], type: "literal_error" }
      ])
      const notANumber = yield* request("GET", `${base}?limit=ten`, { key })
      assert.strictEqual(notANumber.status, 422)
      assert.deepStrictEqual(issues(notANumber), [{ loc: ["query", "limit"], type: "number_parsing" }])
      const unknownCursor = yield* request("GET", `${base}?starting_after=nope`, { key })
      assert.strictEqual(unknownCursor.status, 422)
      assert.deepStrictEqual(issues(unknownCursor), [{ loc: ["query", "starting_after"], type: "value_error" }])
    }))

  it.effect("401 without a key; 403 for another account's account_id", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const none = yield* request("GET", base)
      assert.strictEqual(none.status, 401)
      assert.isString(none.body.detail)
      const forbidden = yield* request("GET", `${base}?account_id=${alice.accountId}`, { key: bob.key })
      assert.strictEqual(forbidden.status, 403)
      const own = yield* request("GET", `${base}?account_id=${bob.accountId}`, { key: bob.key })
      assert.strictEqual(own.status, 200)
      assert.strictEqual(own.body.total, 0)
    }))

  it.effect("the OpenAPI document describes the dashboard endpoints", () =>
    Effect.gen(function*() {
      const openapi = yield* request("GET", "/openapi.json")
      assert.strictEqual(openapi.status, 200)
      assert.hasAllKeys(openapi.body.paths[base], ["get", "post"])
      assert.hasAllKeys(openapi.body.paths[`${base}/{dashboard_id}`], ["get", "patch", "delete"])
      assert.hasAllKeys(openapi.body.paths[`${base}/{dashboard_id}/widgets`], ["post"])
    }))
})
