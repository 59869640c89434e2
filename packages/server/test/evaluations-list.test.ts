import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { issues, provision, request, TestServerLive } from "../src/testing.js"
import { insertDataset } from "./evaluations-fixtures.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

/** Creates evaluations one millisecond apart, in order; answers their ids. */
const createAll = (caller: Caller, bodies: ReadonlyArray<Record<string, unknown>>) =>
  Effect.gen(function*() {
    const ids: Array<string> = []
    for (const body of bodies) {
      const created = yield* request("POST", "/v5/evaluations", { key: caller.key, body })
      assert.strictEqual(created.status, 200)
      ids.push(created.body.id)
      yield* TestClock.adjust("1 millis")
    }
    return ids
  })

const names = (page: { readonly items: ReadonlyArray<{ readonly name: string }> }) => page.items.map((e) => e.name)

layer(TestServerLive)("evaluations: list", (it) => {
  it.effect("the v5 envelope, newest first by default, in both orders, by name case-insensitively", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      yield* createAll(other, [{ name: "someone else's" }])
      const ids = yield* createAll(caller, [{ name: "beta" }, { name: "Alpha" }, { name: "gamma" }, { name: "alpha" }])

      const page = yield* request("GET", "/v5/evaluations", { key: caller.key })
      assert.strictEqual(page.status, 200)
      assert.deepStrictEqual(Object.keys(page.body).sort(), ["has_more", "items", "limit", "object", "total"])
      assert.strictEqual(page.body.object, "list")
      assert.strictEqual(page.body.total, 4)
      assert.strictEqual(page.body.limit, 100)
      assert.strictEqual(page.body.has_more, false)
      assert.deepStrictEqual(page.body.items.map((e: any) => e.id), [...ids].reverse())
      const single = yield* request("GET", `/v5/evaluations/${ids[0]}`, { key: caller.key })
      assert.deepStrictEqual(page.body.items[3], single.body)
      assert.isTrue(page.body.items.every((e: any) => !("tasks" in e)))

      const asc = yield* caller.client.evaluations.list({ urlParams: { sort_order: "asc" } })
      assert.deepStrictEqual(names(asc), ["beta", "Alpha", "gamma", "alpha"])
      const byName = yield* caller.client.evaluations.list({ urlParams: { sort_by: "name", sort_order: "asc" } })
      assert.deepStrictEqual(names(byName).map((n) => n.toLowerCase()), ["alpha", "alpha", "beta", "gamma"])
      const byNameDesc = yield* caller.client.evaluations.list({ urlParams: { sort_by: "name" } })
      assert.deepStrictEqual(names(byNameDesc).map((n) => n.toLowerCase()), ["gamma", "beta", "alpha", "alpha"])

      const limited = yield* caller.client.evaluations.list({ urlParams: { limit: 3 } })
      assert.strictEqual(limited.items.length, 3)
      assert.strictEqual(limited.total, 4)
      assert.strictEqual(limited.limit, 3)
      assert.isTrue(limited.has_more)
    }))

  it.effect("name: a case-insensitive substring, with % _ and \\ taken literally", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      yield* createAll(caller, [
        { name: "Accuracy 100% run" },
        { name: "recall_at_5" },
        { name: "recallXatX5" },
        { name: "path\\to\\run" },
        { name: "Latency" }
      ])
      const search = (name: string) =>
        Effect.map(caller.client.evaluations.list({ urlParams: { name, sort_order: "asc" } }), names)
      assert.deepStrictEqual(yield* search("ACCURACY"), ["Accuracy 100% run"])
      assert.deepStrictEqual(yield* search("cy"), ["Accuracy 100% run", "Latency"])
      assert.deepStrictEqual(yield* search("%"), ["Accuracy 100% run"])
      assert.deepStrictEqual(yield* search("0% r"), ["Accuracy 100% run"])
      assert.deepStrictEqual(yield* search("_"), ["recall_at_5"])
      assert.deepStrictEqual(yield* search("L_AT"), ["recall_at_5"])
      assert.deepStrictEqual(yield* search("\\"), ["path\\to\\run"])
      assert.deepStrictEqual(yield* search("h\\t"), ["path\\to\\run"])
      assert.deepStrictEqual(yield* search("recall"), ["recall_at_5", "recallXatX5"])
      assert.deepStrictEqual(yield* search("nothing like it"), [])
      // an empty filter filters nothing
      const all = yield* request("GET", "/v5/evaluations?name=", { key: caller.key })
      assert.strictEqual(all.body.total, 5)
      const counted = yield* caller.client.evaluations.list({ urlParams: { name: "RECALL", limit: 1 } })
      assert.strictEqual(counted.total, 2)
      assert.isTrue(counted.has_more)
    }))

  it.effect("tags: any of the given tags, case-insensitively, comma-joined or repeated", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const [redBlue, green, red, none] = yield* createAll(caller, [
        { name: "rb", tags: ["Red", "blue"] },
        { name: "g", tags: ["green"] },
        { name: "r", tags: ["RED", "red"] },
        { name: "n" }
      ])
      const byTags = (query: string) =>
        Effect.map(request("GET", `/v5/evaluations?sort_order=asc&${query}`, { key: caller.key }), (res) => {
          assert.strictEqual(res.status, 200)
          return res.body.items.map((e: any) => e.id)
        })
      assert.deepStrictEqual(yield* byTags("tags=red"), [redBlue, red])
      assert.deepStrictEqual(yield* byTags("tags=BLUE,Green"), [redBlue, green])
      assert.deepStrictEqual(yield* byTags("tags=blue&tags=red"), [redBlue, red])
      assert.deepStrictEqual(yield* byTags("tags=purple"), [])
      assert.deepStrictEqual(yield* byTags("tags="), [redBlue, green, red, none])
      // tags combine with the name filter
      assert.deepStrictEqual(yield* byTags("tags=red&name=R"), [redBlue, red])
      assert.deepStrictEqual(yield* byTags("tags=red,green&name=g"), [green])
      // the stored tags keep their spelling
      const read = yield* caller.client.evaluations.get({ path: { evaluation_id: red! }, urlParams: {} })
      assert.deepStrictEqual(read.tags, ["RED", "red"])
    }))

  it.effect("views=tasks adds the tasks to every item", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      yield* createAll(caller, [
        { name: "with", tasks: [{ task_type: "chat_completion", alias: "a", configuration: { model: "m", n: 2 } }] },
        { name: "without" }
      ])
      const plain = yield* request("GET", "/v5/evaluations?sort_order=asc", { key: caller.key })
      assert.isTrue(plain.body.items.every((e: any) => !("tasks" in e)))
      const viewed = yield* caller.client.evaluations.list({ urlParams: { views: ["tasks"], sort_order: "asc" } })
      assert.deepStrictEqual(viewed.items.map((e) => e.tasks?.map((t) => [t.alias, (t.configuration as any).model, (t.configuration as any).n])), [
        [["a", "m", 2]],
        []
      ])
    }))

  it.effect("a cursor walk over a filtered list, forwards and back, sorted by name", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const bodies = []
      for (let i = 0; i < 9; i++) bodies.push({ name: `walk ${i % 3}`, tags: ["walk"] })
      for (let i = 0; i < 4; i++) bodies.push({ name: `walk stray ${i}`, tags: ["other"] })
      yield* createAll(caller, bodies)
      const full = yield* caller.client.evaluations.list({ urlParams: { tags: ["WALK"], sort_by: "name", sort_order: "asc" } })
      assert.strictEqual(full.total, 9)
      const order = full.items.map((e) => e.id)
      assert.deepStrictEqual(names(full), ["walk 0", "walk 0", "walk 0", "walk 1", "walk 1", "walk 1", "walk 2", "walk 2", "walk 2"])

      const seen: Array<string> = []
      let after: string | undefined
      let pages = 0
      while (true) {
        const page = yield* caller.client.evaluations.list({
          urlParams: {
            tags: ["walk"],
            sort_by: "name",
            sort_order: "asc",
            limit: 2,
            ...(after !== undefined ? { starting_after: after } : {})
          }
        })
        pages++
        assert.strictEqual(page.total, 9)
        seen.push(...page.items.map((e) => e.id))
        if (!page.has_more) break
        after = page.items[page.items.length - 1]!.id
      }
      assert.strictEqual(pages, 5)
      assert.deepStrictEqual(seen, order)

      const back = yield* caller.client.evaluations.list({
        urlParams: { tags: ["walk"], sort_by: "name", sort_order: "asc", limit: 3, ending_before: order[5]! }
      })
      assert.deepStrictEqual(back.items.map((e) => e.id), order.slice(2, 5))
      assert.isTrue(back.has_more)

      // a cursor outside the filtered list is a 422 on its field
      const stray = (yield* caller.client.evaluations.list({ urlParams: { tags: ["other"], limit: 1 } })).items[0]!
      const outside = yield* request("GET", `/v5/evaluations?tags=walk&starting_after=${stray.id}`, { key: caller.key })
      assert.strictEqual(outside.status, 422)
      assert.deepStrictEqual(issues(outside), [{ loc: ["query", "starting_after"], type: "value_error" }])
    }))

  it.effect("list validation: exact loc and type; 401; 403 for another account; a foreign account's evaluations stay hidden", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      yield* createAll(other, [{ name: "theirs", tags: ["shared"] }])

      const bad = yield* request("GET", "/v5/evaluations?limit=0&sort_by=status&sort_order=up", { key: caller.key })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad), [
        { loc: ["query", "limit"], type: "range_error" },
        { loc: ["query", "sort_order"], type: "literal_error" },
        { loc: ["query", "sort_by"], type: "literal_error" }
      ])
      const bad2 = yield* request("GET", "/v5/evaluations?include_archived=sometimes&views=all&limit=ten", {
        key: caller.key
      })
      assert.strictEqual(bad2.status, 422)
      assert.deepStrictEqual(issues(bad2), [
        { loc: ["query", "include_archived"], type: "literal_error" },
        { loc: ["query", "views", 0], type: "literal_error" },
        { loc: ["query", "limit"], type: "number_parsing" }
      ])
      const unknownCursor = yield* request("GET", "/v5/evaluations?ending_before=nope", { key: caller.key })
      assert.strictEqual(unknownCursor.status, 422)
      assert.deepStrictEqual(issues(unknownCursor), [{ loc: ["query", "ending_before"], type: "value_error" }])

      const none = yield* request("GET", "/v5/evaluations")
      assert.strictEqual(none.status, 401)
      const forbidden = yield* request("GET", `/v5/evaluations?account_id=${other.accountId}`, { key: caller.key })
      assert.strictEqual(forbidden.status, 403)
      const own = yield* caller.client.evaluations.list({ urlParams: { account_id: caller.accountId, tags: ["shared"] } })
      assert.strictEqual(own.total, 0)
      const mine = yield* caller.client.evaluations.list({ urlParams: { include_archived: true } })
      assert.strictEqual(mine.total, 0)
    }))

  it.effect("a caller of two accounts: create names one (else 422), datasets must be in that account, lists narrow by account_id", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const second = yield* provision()
      yield* (yield* Accounts).addMember(caller.identityId, second.accountId).pipe(Effect.orDie)

      const unnamed = yield* request("POST", "/v5/evaluations", { key: caller.key, body: { name: "where?" } })
      assert.strictEqual(unnamed.status, 422)
      assert.deepStrictEqual(issues(unnamed), [{ loc: ["body", "account_id"], type: "missing" }])

      // a dataset of the caller's other account is not one of this account's
      const dataset = yield* insertDataset(caller.accountId)
      const crossed = yield* request("POST", "/v5/evaluations", {
        key: caller.key,
        body: { name: "crossed", account_id: second.accountId, datasets: [dataset.id] }
      })
      assert.strictEqual(crossed.status, 404)
      assert.deepStrictEqual(crossed.body, { detail: `Evaluation dataset ${dataset.id} not found` })

      const [inSecond] = yield* createAll(caller, [{ name: "second", account_id: second.accountId }])
      const selected = yield* request("POST", "/v5/evaluations", {
        key: caller.key,
        body: { name: "first" },
        headers: { "x-selected-account-id": caller.accountId }
      })
      assert.strictEqual(selected.status, 200)

      const both = yield* caller.client.evaluations.list({ urlParams: {} })
      assert.strictEqual(both.total, 2)
      const narrowed = yield* caller.client.evaluations.list({ urlParams: { account_id: second.accountId } })
      assert.deepStrictEqual(narrowed.items.map((e) => e.id), [inSecond])
      // the other member of the second account sees it too, the first account's one not
      const theirs = yield* second.client.evaluations.list({ urlParams: {} })
      assert.deepStrictEqual(theirs.items.map((e) => e.id), [inSecond])
      const hidden = yield* request("GET", `/v5/evaluations/${selected.body.id}`, { key: second.key })
      assert.strictEqual(hidden.status, 404)
    }))

  it.effect("the OpenAPI document describes the evaluations endpoints", () =>
    Effect.gen(function*() {
      const openapi = yield* request("GET", "/openapi.json")
      assert.strictEqual(openapi.status, 200)
      assert.deepStrictEqual(Object.keys(openapi.body.paths["/v5/evaluations"]).sort(), ["get", "post"])
      assert.deepStrictEqual(Object.keys(openapi.body.paths["/v5/evaluations/{evaluation_id}"]).sort(), ["delete", "get", "patch"])
      assert.property(openapi.body.components.schemas, "Evaluation")
      const parameters = (op: any) => op.parameters.filter((p: any) => p.in === "query").map((p: any) => p.name).sort()
      assert.deepStrictEqual(parameters(openapi.body.paths["/v5/evaluations"].get), [
        "account_id",
        "ending_before",
        "include_archived",
        "limit",
        "name",
        "sort_by",
        "sort_order",
        "starting_after",
        "tags",
        "views"
      ])
      assert.deepStrictEqual(parameters(openapi.body.paths["/v5/evaluations/{evaluation_id}"].get), ["include_archived", "views"])
    }))
})
