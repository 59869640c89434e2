/**
 * Studio projects (docs/questions.md "Studio projects"): the write-only `studio_api_key` is sealed
 * at rest in a column of its own and never answered; update replaces it; delete is for good.
 */
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { issues, isoPattern as iso, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

const KEY = "studio-live-4b1d-plaintext-must-not-leak"

/** Every stored column of a project's row, as the database holds it. */
const rawRows = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<Record<string, unknown>>`SELECT * FROM studio_projects WHERE id = ${id}`)

layer(TestServerLive)("studio projects", (it) => {
  it.effect("create answers the project without its key, which is sealed at rest; get and list read it back", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const created = yield* request("POST", "/v4/studio-projects", {
        key: caller.key,
        body: { account_id: caller.accountId, name: "Labeling", description: "Our Studio project", studio_api_key: KEY }
      })
      assert.strictEqual(created.status, 200)
      const project = created.body
      assert.match(project.id, uuid)
      assert.match(project.created_at, iso)
      assert.deepStrictEqual(project, {
        id: project.id,
        name: "Labeling",
        description: "Our Studio project",
        account_id: caller.accountId,
        created_by_user_id: caller.identityId,
        created_by_identity_type: "user",
        created_at: project.created_at
      })
      assert.notInclude(JSON.stringify(created.body), KEY)

      const [row] = yield* rawRows(project.id)
      assert.notInclude(JSON.stringify(row), KEY)
      assert.match(String(row!.studio_api_key_sealed), /^v1\.[A-Za-z0-9+/]+=*$/)
      assert.strictEqual(Buffer.from(String(row!.studio_api_key_sealed).slice(3), "base64").length, 12 + 16 + KEY.length)

      const read = yield* request("GET", `/v4/studio-projects/${project.id}`, { key: caller.key })
      assert.deepStrictEqual([read.status, read.body], [200, project])
      const page = yield* request("GET", "/v4/studio-projects", { key: caller.key })
      assert.deepStrictEqual(page.body, { items: [project], total_item_count: 1, current_page: 1, items_per_page: 100 })

      const missing = yield* request("POST", "/v4/studio-projects", {
        key: caller.key,
        body: { account_id: caller.accountId, name: "", description: "d", studio_api_key: "" }
      })
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "name"], type: "string_too_short" },
        { loc: ["body", "studio_api_key"], type: "string_too_short" }
      ])
      assert.notInclude(JSON.stringify(missing.body), KEY)
    }))

  it.effect("update changes the fields given and reseals a new key; delete is for good; another account's is a 404", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const project = yield* alice.client.studioProjects.create({
        payload: { account_id: alice.accountId, name: "P", description: "D", studio_api_key: Redacted.make(KEY) }
      })
      const path = `/v4/studio-projects/${project.id}`
      const sealedAt = Effect.map(rawRows(project.id), (rows) => rows[0]?.studio_api_key_sealed)
      const first = yield* sealedAt

      const renamed = yield* request("PATCH", path, { key: alice.key, body: { name: "Renamed", description: null } })
      assert.deepStrictEqual(renamed.body, JSON.parse(JSON.stringify({ ...project, name: "Renamed" })))
      assert.strictEqual(yield* sealedAt, first)
      const rekeyed = yield* request("PATCH", path, { key: alice.key, body: { studio_api_key: "studio-new-key" } })
      assert.deepStrictEqual(rekeyed.body, renamed.body)
      assert.notStrictEqual(yield* sealedAt, first)

      for (const [method, body] of [["GET", undefined], ["PATCH", { name: "Mine" }], ["DELETE", undefined]] as const) {
        const foreign = yield* request(method, path, { key: bob.key, ...(body === undefined ? {} : { body }) })
        assert.deepStrictEqual([foreign.status, foreign.body], [404, { detail: `Studio project ${project.id} not found` }])
      }
      const forbidden = yield* request("GET", `/v4/studio-projects?account_id=${alice.accountId}`, { key: bob.key })
      assert.strictEqual(forbidden.status, 403)

      const deleted = yield* request("DELETE", path, { key: alice.key })
      assert.deepStrictEqual([deleted.status, deleted.body], [200, { count: 1, success: true }])
      assert.deepStrictEqual(yield* rawRows(project.id), [])
      assert.strictEqual((yield* request("GET", path, { key: alice.key })).status, 404)
      assert.strictEqual((yield* request("DELETE", path, { key: alice.key })).status, 404)
      assert.strictEqual((yield* alice.client.studioProjects.list({ urlParams: {} })).total_item_count, 0)
    }))
})
