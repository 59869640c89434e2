/**
 * Page numbers past anything a list can hold, on every v4 list (enumerated from `PlatformApi`): a
 * page whose offset passes 2^53 − 1 (`page=2^53−1&limit=10000`, an OFFSET that overflows 64 bits if
 * computed exactly) answers an empty page with the real count; a page number past 2^53 − 1 is a 422
 * on `["query","page"]`. Never a 5xx, on either database.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { jsonRequest, queryString, serverWire, TestServerLive } from "../src/testing.js"
import { endpoints, pathWith, queryKeys } from "./support/endpoints.js"
import { makeWorld, queryValues } from "./support/world.js"

const pagedLists = endpoints.filter((e) => e.method === "GET" && queryKeys(e).includes("page"))

layer(TestServerLive, { timeout: 120_000 })("v4 page numbers past the end of any list", (it) => {
  it.effect(`every v4 list (${pagedLists.length}) answers an empty page far past the end, and 422 past 2^53 − 1`, () =>
    Effect.gen(function*() {
      assert.isAtLeast(pagedLists.length, 10)
      const wire = yield* serverWire
      const made = yield* Effect.flatMap(Accounts, (accounts) => accounts.provisionUser())
      const world = yield* Effect.promise(() =>
        makeWorld(wire, { accountId: made.accountId, identityId: made.identityId, key: Redacted.value(made.key) })
      )
      const values = queryValues(world)
      for (const endpoint of pagedLists) {
        const filters = Object.fromEntries(queryKeys(endpoint).flatMap((key) => (values[key] !== undefined ? [[key, values[key]!]] : [])))
        const send = (page: string, limit: string) => {
          const target = pathWith(endpoint.path, world.values) + queryString({ ...filters, page, limit })
          return Effect.map(Effect.promise(() => wire.send(jsonRequest("GET", target, world.key))), (response) => ({ target, response }))
        }

        const far = yield* send(String(Number.MAX_SAFE_INTEGER), "10000")
        assert.strictEqual(far.response.status, 200, `${far.target} → ${far.response.text.slice(0, 300)}`)
        if (Array.isArray(far.response.json)) {
          // a bare array (the SDK's SyncTopLevelArray: a knowledge base's async jobs): empty, no envelope
          assert.deepStrictEqual(far.response.json, [], far.target)
        } else {
          assert.deepStrictEqual(far.response.json.items, [], far.target)
          assert.strictEqual(far.response.json.current_page, Number.MAX_SAFE_INTEGER, far.target)
          assert.strictEqual(far.response.json.items_per_page, 10000, far.target)
          // the count is the list's own: the first page of the same list counts the same
          const first = yield* send("1", "10000")
          assert.strictEqual(far.response.json.total_item_count, first.response.json.total_item_count, far.target)
        }

        for (const page of ["9007199254740992", "99999999999999999999", "1e999"]) {
          const beyond = yield* send(page, "10")
          assert.strictEqual(beyond.response.status, 422, `${beyond.target} → ${beyond.response.text.slice(0, 300)}`)
          assert.isTrue(
            beyond.response.json.detail.some((issue: { loc: Array<unknown> }) => issue.loc[0] === "query" && issue.loc[1] === "page"),
            `${beyond.target} → ${beyond.response.text.slice(0, 300)}`
          )
        }
      }
    }))
})
