import { assert, layer } from "@effect/vitest"
import { ObjectStoreDataSourceConfig } from "@platform-kit/schema"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

const objectStore = {
  source: "OBJECT_STORE",
  object_store_bucket: "docs-bucket",
  cloud_region: "eu-west-1",
  cloud_account_id: "123456789012"
} as const

/** The typed client sends the Type side: the constructor fills `object_store_prefix`. */
const config = new ObjectStoreDataSourceConfig(objectStore)

layer(TestServerLive)("knowledge base data sources", (it) => {
  it.effect("create answers every field, and get/list read it back", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key, client } = yield* provision()
      const response = yield* request("POST", "/v4/knowledge-base-data-sources", {
        key,
        body: {
          name: "docs",
          description: "product docs",
          data_source_config: { ...objectStore, object_store_prefix: "manuals/", extra: 1 },
          tagging_information: { type: "all", tags_to_apply: { team: "support" } },
          account_id: accountId,
          created_by_user_id: "someone-else"
        }
      })
      assert.strictEqual(response.status, 200)
      const created = response.body
      assert.match(created.id, uuid)
      assert.deepStrictEqual(created, {
        id: created.id,
        name: "docs",
        description: "product docs",
        data_source_config: { ...objectStore, object_store_prefix: "manuals/" },
        tagging_information: { type: "all", tags_to_apply: { team: "support" } },
        updated_at: created.created_at,
        account_id: accountId,
        created_by_user_id: identityId,
        created_by_identity_type: "user",
        created_at: created.created_at
      })
      assert.match(created.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

      const read = yield* request("GET", `/v4/knowledge-base-data-sources/${created.id}`, { key })
      assert.deepStrictEqual(read.body, created)
      const page = yield* request("GET", "/v4/knowledge-base-data-sources", { key })
      assert.deepStrictEqual(page.body, { items: [created], total_item_count: 1, current_page: 1, items_per_page: 100 })

      const typed = yield* client.knowledgeBases.getDataSource({ path: { knowledge_base_data_source_id: created.id } })
      assert.strictEqual(typed.data_source_config.object_store_prefix, "manuals/")
    }))

  it.effect("defaults: object_store_prefix is the empty string, description and tagging_information null", () =>
    Effect.gen(function*() {
      const { identityId, client } = yield* provision({ type: "service_account" })
      const created = yield* client.knowledgeBases.createDataSource({
        payload: { name: "bare", data_source_config: config }
      })
      assert.strictEqual(created.data_source_config.object_store_prefix, "")
      assert.strictEqual(created.description, null)
      assert.strictEqual(created.tagging_information, null)
      assert.strictEqual(created.created_by_user_id, identityId)
      assert.strictEqual(created.created_by_identity_type, "service_account")
      const read = yield* client.knowledgeBases.getDataSource({ path: { knowledge_base_data_source_id: created.id } })
      assert.deepStrictEqual(read, created)
    }))

  it.effect("validation: 422 with exact loc/type, and nothing is written", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const missing = yield* request("POST", "/v4/knowledge-base-data-sources", {
        key,
        body: { data_source_config: { source: "OBJECT_STORE", cloud_region: "x", cloud_account_id: "y" } }
      })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "name"], type: "missing" },
        { loc: ["body", "data_source_config", "object_store_bucket"], type: "missing" }
      ])

      const wrong = yield* request("POST", "/v4/knowledge-base-data-sources", {
        key,
        body: {
          name: 7,
          data_source_config: { ...objectStore, source: "SHARE_POINT", object_store_prefix: 3 },
          tagging_information: { type: "some", tags_to_apply: {} }
        }
      })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "name"], type: "string_type" },
        { loc: ["body", "data_source_config", "source"], type: "literal_error" },
        { loc: ["body", "data_source_config", "object_store_prefix"], type: "string_type" },
        { loc: ["body", "tagging_information", "type"], type: "literal_error" }
      ])

      const noConfig = yield* request("POST", "/v4/knowledge-base-data-sources", { key, body: { name: "x" } })
      assert.deepStrictEqual(issues(noConfig), [{ loc: ["body", "data_source_config"], type: "missing" }])

      assert.strictEqual((yield* client.knowledgeBases.listDataSources({ urlParams: {} })).total_item_count, 0)
    }))

  it.effect("401 without a key on create, get and list", () =>
    Effect.gen(function*() {
      const none = yield* request("POST", "/v4/knowledge-base-data-sources", {
        body: { name: "x", data_source_config: objectStore }
      })
      assert.strictEqual(none.status, 401)
      assert.strictEqual((yield* request("GET", "/v4/knowledge-base-data-sources/x")).status, 401)
      assert.strictEqual((yield* request("GET", "/v4/knowledge-base-data-sources", { key: "pk_nope" })).status, 401)
    }))

  it.effect("404 for a missing id and another account's data source; 403 for another account_id", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const source = yield* alice.client.knowledgeBases.createDataSource({
        payload: { name: "a", data_source_config: config }
      })
      const missing = yield* Effect.flip(
        bob.client.knowledgeBases.getDataSource({ path: { knowledge_base_data_source_id: "nope" } })
      )
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("GET", `/v4/knowledge-base-data-sources/${source.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Knowledge base data source ${source.id} not found` })

      const forbidden = yield* Effect.flip(bob.client.knowledgeBases.createDataSource({
        payload: { name: "b", data_source_config: config, account_id: alice.accountId }
      }))
      assert.strictEqual(forbidden._tag, "Forbidden")
      const foreignList = yield* request("GET", `/v4/knowledge-base-data-sources?account_id=${alice.accountId}`, {
        key: bob.key
      })
      assert.strictEqual(foreignList.status, 403)
      assert.strictEqual((yield* bob.client.knowledgeBases.listDataSources({ urlParams: {} })).total_item_count, 0)
    }))

  it.effect("list pages newest first; query validation", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      for (let i = 0; i < 3; i++) {
        yield* client.knowledgeBases.createDataSource({ payload: { name: `s${i}`, data_source_config: config } })
        yield* TestClock.adjust("1 millis")
      }
      const first = yield* client.knowledgeBases.listDataSources({ urlParams: { page: 1, limit: 2 } })
      assert.deepStrictEqual(first.items.map((s) => s.name), ["s2", "s1"])
      assert.strictEqual(first.total_item_count, 3)
      const second = yield* client.knowledgeBases.listDataSources({ urlParams: { page: 2, limit: 2 } })
      assert.deepStrictEqual(second.items.map((s) => s.name), ["s0"])

      const bad = yield* request("GET", "/v4/knowledge-base-data-sources?page=x&limit=0", { key })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad), [
        { loc: ["query", "page"], type: "number_parsing" },
        { loc: ["query", "limit"], type: "range_error" }
      ])
    }))
})
