import { assert, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, TestClock } from "effect"
import * as Crypto from "node:crypto"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

/**
 * A knowledge base row of `accountId`, written straight to the knowledge-bases family's table so
 * these tests do not depend on that family's endpoints.
 */
const seedKnowledgeBase = (accountId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id = Crypto.randomUUID()
    yield* sql`INSERT INTO knowledge_bases ${
      sql.insert({ id, account_id: accountId, created_at: new Date(0).toISOString(), doc: "{}" })
    }`
    return id
  }).pipe(Effect.orDie)

layer(TestServerLive)("evaluation datasets", (it) => {
  it.effect("create answers every field, and get/list read it back", () =>
    Effect.gen(function*() {
      const { accountId, identityId, client } = yield* provision()
      const knowledgeBaseId = yield* seedKnowledgeBase(accountId)
      const created = yield* client.evaluationDatasets.create({
        payload: {
          name: "support questions",
          description: "from the handbook",
          schema_type: "GENERATION",
          knowledge_base_id: knowledgeBaseId,
          account_id: accountId
        }
      })
      assert.match(created.id, uuid)
      assert.match(created.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      assert.deepStrictEqual(
        { ...created },
        {
          id: created.id,
          name: "support questions",
          description: "from the handbook",
          schema_type: "GENERATION",
          knowledge_base_id: knowledgeBaseId,
          account_id: accountId,
          created_by_user_id: identityId,
          created_by_identity_type: "user",
          created_at: created.created_at,
          updated_at: created.created_at,
          archived_at: null
        }
      )

      const read = yield* client.evaluationDatasets.get({ path: { evaluation_dataset_id: created.id } })
      assert.deepStrictEqual(read, created)
      const page = yield* client.evaluationDatasets.list({ urlParams: {} })
      assert.deepStrictEqual(page, { items: [created], total_item_count: 1, current_page: 1, items_per_page: 100 })
    }))

  it.effect("a minimal create: defaults on the wire, the caller's only account, nulls for what is empty", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key } = yield* provision({ type: "service_account" })
      const response = yield* request("POST", "/v4/evaluation-datasets", {
        key,
        body: { name: "d", description: null, knowledge_base_id: null, unknown: 1 }
      })
      assert.strictEqual(response.status, 200)
      assert.deepStrictEqual(response.body, {
        id: response.body.id,
        name: "d",
        description: null,
        schema_type: "GENERATION",
        knowledge_base_id: null,
        account_id: accountId,
        created_by_user_id: identityId,
        created_by_identity_type: "service_account",
        created_at: response.body.created_at,
        updated_at: response.body.created_at,
        archived_at: null
      })
      const read = yield* request("GET", `/v4/evaluation-datasets/${response.body.id}`, { key })
      assert.deepStrictEqual(read.body, response.body)
    }))

  it.effect("validation: exact loc and type for each problem, and nothing is written", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const missing = yield* request("POST", "/v4/evaluation-datasets", { key, body: {} })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [{ loc: ["body", "name"], type: "missing" }])

      const wrong = yield* request("POST", "/v4/evaluation-datasets", {
        key,
        body: { name: "", description: 3, schema_type: "FLEXIBLE", knowledge_base_id: 7, account_id: false }
      })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "name"], type: "string_too_short" },
        { loc: ["body", "description"], type: "string_type" },
        { loc: ["body", "schema_type"], type: "literal_error" },
        { loc: ["body", "knowledge_base_id"], type: "string_type" },
        { loc: ["body", "account_id"], type: "string_type" }
      ])

      const malformed = yield* request("POST", "/v4/evaluation-datasets", { key, body: "{\"name\":" })
      assert.strictEqual(malformed.status, 422)
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      const page = yield* client.evaluationDatasets.list({ urlParams: {} })
      assert.strictEqual(page.total_item_count, 0)
    }))

  it.effect("a knowledge base that is missing or another account's is a 404 naming it; nothing is written", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const alicesKnowledgeBase = yield* seedKnowledgeBase(alice.accountId)

      const missing = yield* request("POST", "/v4/evaluation-datasets", {
        key: bob.key,
        body: { name: "d", knowledge_base_id: "no-such-kb" }
      })
      assert.strictEqual(missing.status, 404)
      assert.deepStrictEqual(missing.body, { detail: "Knowledge base no-such-kb not found" })

      const foreign = yield* Effect.flip(
        bob.client.evaluationDatasets.create({ payload: { name: "d", knowledge_base_id: alicesKnowledgeBase } })
      )
      assert.strictEqual(foreign._tag, "NotFound")
      assert.strictEqual("detail" in foreign && foreign.detail, `Knowledge base ${alicesKnowledgeBase} not found`)

      const page = yield* bob.client.evaluationDatasets.list({ urlParams: {} })
      assert.strictEqual(page.total_item_count, 0)
    }))

  it.effect("403 for another account's account_id (before the knowledge base is looked up); nothing is written", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const forbidden = yield* request("POST", "/v4/evaluation-datasets", {
        key: bob.key,
        body: { name: "d", account_id: alice.accountId, knowledge_base_id: "no-such-kb" }
      })
      assert.strictEqual(forbidden.status, 403)
      assert.isString(forbidden.body.detail)
      const alices = yield* alice.client.evaluationDatasets.list({ urlParams: {} })
      assert.strictEqual(alices.total_item_count, 0)
    }))

  it.effect("401 without a key or with an unknown one, on every endpoint", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const dataset = yield* client.evaluationDatasets.create({ payload: { name: "d" } })
      const calls = [
        request("POST", "/v4/evaluation-datasets", { body: { name: "d" } }),
        request("GET", `/v4/evaluation-datasets/${dataset.id}`),
        request("GET", "/v4/evaluation-datasets"),
        request("GET", "/v4/evaluation-datasets", { key: "pk_nope" })
      ]
      for (const call of calls) {
        const response = yield* call
        assert.strictEqual(response.status, 401)
        assert.isString(response.body.detail)
      }
      const page = yield* client.evaluationDatasets.list({ urlParams: {} })
      assert.strictEqual(page.total_item_count, 1)
    }))

  it.effect("get: 404 for a missing id and for another account's dataset", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const dataset = yield* alice.client.evaluationDatasets.create({ payload: { name: "a" } })

      const missing = yield* Effect.flip(bob.client.evaluationDatasets.get({ path: { evaluation_dataset_id: "nope" } }))
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("GET", `/v4/evaluation-datasets/${dataset.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Evaluation dataset ${dataset.id} not found` })
    }))

  it.effect("list: newest first, paged, only the caller's accounts; account_id of another account is a 403", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      for (let i = 0; i < 3; i++) {
        yield* alice.client.evaluationDatasets.create({ payload: { name: `d${i}` } })
        yield* TestClock.adjust("1 millis")
      }
      yield* bob.client.evaluationDatasets.create({ payload: { name: "bobs" } })

      const first = yield* alice.client.evaluationDatasets.list({ urlParams: { page: 1, limit: 2 } })
      assert.deepStrictEqual(first.items.map((d) => d.name), ["d2", "d1"])
      assert.strictEqual(first.total_item_count, 3)
      assert.strictEqual(first.items_per_page, 2)
      const second = yield* alice.client.evaluationDatasets.list({
        urlParams: { page: 2, limit: 2, account_id: alice.accountId }
      })
      assert.deepStrictEqual(second.items.map((d) => d.name), ["d0"])
      assert.strictEqual(second.current_page, 2)

      const forbidden = yield* request("GET", `/v4/evaluation-datasets?account_id=${bob.accountId}`, { key: alice.key })
      assert.strictEqual(forbidden.status, 403)
    }))

  it.effect("list query validation: page and limit", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const range = yield* request("GET", "/v4/evaluation-datasets?page=0&limit=10001", { key })
      assert.strictEqual(range.status, 422)
      assert.deepStrictEqual(issues(range), [
        { loc: ["query", "page"], type: "greater_than_equal" },
        { loc: ["query", "limit"], type: "range_error" }
      ])
      const parsing = yield* request("GET", "/v4/evaluation-datasets?page=one&limit=1.5", { key })
      assert.strictEqual(parsing.status, 422)
      assert.deepStrictEqual(issues(parsing), [
        { loc: ["query", "page"], type: "number_parsing" },
        { loc: ["query", "limit"], type: "int_type" }
      ])
    }))
})
