import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"
import { type Caller, registerModel } from "./support/models.js"

/** A model deployment of the caller's account (of a model registered there), made the way clients make one. */
const deployment = ({ key, accountId, client }: Caller) =>
  Effect.gen(function*() {
    const model = yield* registerModel({ key, accountId, client })
    const response = yield* request("POST", `/v4/models/${model}/deployments`, {
      key,
      body: { name: "embedder", account_id: accountId }
    })
    assert.strictEqual(response.status, 200)
    return response.body.id as string
  })

const zeroCounts = {
  artifacts_chunking: 0,
  artifacts_embedding: 0,
  artifacts_completed: 0,
  artifacts_pending: 0,
  artifacts_uploading: 0,
  artifacts_failed: 0
}

const systemIndexConfiguration = {
  fields: {
    page: { type: "int32", filterable: true, searchable: false, fields: null },
    artifact_uri_public: { type: "string", filterable: true, searchable: false, fields: null },
    artifact_name: { type: "string", filterable: true, searchable: true, fields: null }
  },
  max_index_size: 1_000_000
}

const baseConfig = { type: "base", embedding_model: "sentence-transformers/all-MiniLM-L12-v2" } as const

layer(TestServerLive)("knowledge bases", (it) => {
  it.effect("create answers every field of a knowledge base without the view fields, and get/list read it back", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key, client } = yield* provision()
      const model_deployment_id = yield* deployment({ key, accountId, client })
      const response = yield* request("POST", "/v4/knowledge-bases", {
        key,
        body: {
          knowledge_base_name: "handbook",
          embedding_config: { type: "models_api", model_deployment_id, ignored: true },
          metadata: { team: "support", level: 2 },
          index_backend: "BACKEND_C",
          account_id: accountId
        }
      })
      assert.strictEqual(response.status, 200)
      const created = response.body
      assert.match(created.knowledge_base_id, uuid)
      assert.match(created.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      assert.deepStrictEqual(created, {
        knowledge_base_id: created.knowledge_base_id,
        vector_store_id: null,
        knowledge_base_name: "handbook",
        embedding_config: { type: "models_api", model_deployment_id },
        metadata: { team: "support", level: 2 },
        index_backend: "BACKEND_C",
        cluster_status: "NOT_CLUSTERED",
        artifacts_status: zeroCounts,
        account_id: accountId,
        created_by_user_id: identityId,
        created_by_identity_type: "user",
        created_at: created.created_at,
        updated_at: created.created_at
      })

      const read = yield* request("GET", `/v4/knowledge-bases/${created.knowledge_base_id}`, { key })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.body, created)

      const typed = yield* client.knowledgeBases.get({ path: { knowledge_base_id: created.knowledge_base_id }, urlParams: {} })
      assert.strictEqual(typed.knowledge_base_name, "handbook")
      assert.isUndefined(typed.connections)

      const page = yield* request("GET", "/v4/knowledge-bases", { key })
      assert.strictEqual(page.status, 200)
      assert.deepStrictEqual(page.body, { items: [created], total_item_count: 1, current_page: 1, items_per_page: 100 })
    }))

  it.effect("the base embedding config is an open object kept as given; defaults: BACKEND_A, metadata null", () =>
    Effect.gen(function*() {
      const { accountId, client } = yield* provision()
      const created = yield* client.knowledgeBases.create({
        payload: { knowledge_base_name: "open", embedding_config: { ...baseConfig, dimensions: 384 } }
      })
      assert.deepStrictEqual(created.embedding_config, { ...baseConfig, dimensions: 384 })
      assert.strictEqual(created.index_backend, "BACKEND_A")
      assert.strictEqual(created.metadata, null)
      assert.strictEqual(created.account_id, accountId)
      const read = yield* client.knowledgeBases.get({ path: { knowledge_base_id: created.knowledge_base_id }, urlParams: {} })
      assert.deepStrictEqual(read, created)
    }))

  it.effect("the SDK's base config: embedding_model without type is the base variant; type and embedding_model are answered", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const sdk = yield* request("POST", "/v4/knowledge-bases", {
        key,
        body: { knowledge_base_name: "sdk", embedding_config: { embedding_model: "openai/text-embedding-ada-002" } }
      })
      assert.strictEqual(sdk.status, 200)
      assert.deepStrictEqual(sdk.body.embedding_config, { type: "base", embedding_model: "openai/text-embedding-ada-002" })
      const read = yield* request("GET", `/v4/knowledge-bases/${sdk.body.knowledge_base_id}`, { key })
      assert.deepStrictEqual(read.body.embedding_config, { type: "base", embedding_model: "openai/text-embedding-ada-002" })

      // `{"type":"base"}` (README) still works: embedding_model is answered as null
      const bare = yield* request("POST", "/v4/knowledge-bases", {
        key,
        body: { knowledge_base_name: "bare", embedding_config: { type: "base" } }
      })
      assert.strictEqual(bare.status, 200)
      assert.deepStrictEqual(bare.body.embedding_config, { type: "base", embedding_model: null })
      const listed = yield* request("GET", "/v4/knowledge-bases", { key })
      // (both may share a created_at: compared by name, not by list position)
      const configs = Object.fromEntries(
        listed.body.items.map((kb: { knowledge_base_name: string; embedding_config: unknown }) => [
          kb.knowledge_base_name,
          kb.embedding_config
        ])
      )
      assert.deepStrictEqual(configs, {
        bare: { type: "base", embedding_model: null },
        sdk: { type: "base", embedding_model: "openai/text-embedding-ada-002" }
      })

      // each variant is checked as itself: problems at their own field
      for (
        const [config, loc, type] of [
          [{ embedding_model: 5 }, ["body", "embedding_config", "embedding_model"], "string_type"],
          [{ type: "base", embedding_model: "" }, ["body", "embedding_config", "embedding_model"], "string_too_short"],
          [{ type: "models_api", embedding_model: "m" }, ["body", "embedding_config", "model_deployment_id"], "missing"]
        ] as const
      ) {
        const response = yield* request("POST", "/v4/knowledge-bases", {
          key,
          body: { knowledge_base_name: "bad", embedding_config: config }
        })
        assert.strictEqual(response.status, 422)
        assert.deepStrictEqual(issues(response), [{ loc, type }])
      }
      assert.strictEqual((yield* request("GET", "/v4/knowledge-bases", { key })).body.total_item_count, 2)
    }))

  it.effect("create validation: 422 with exact loc/type, and nothing is written", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const missing = yield* request("POST", "/v4/knowledge-bases", {
        key,
        body: { embedding_config: { type: "models_api" } }
      })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "knowledge_base_name"], type: "missing" },
        { loc: ["body", "embedding_config", "model_deployment_id"], type: "missing" }
      ])

      const wrong = yield* request("POST", "/v4/knowledge-bases", {
        key,
        body: {
          knowledge_base_name: "",
          embedding_config: { type: "openai" },
          metadata: ["not", "an", "object"],
          index_backend: "BACKEND_E"
        }
      })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "knowledge_base_name"], type: "string_too_short" },
        { loc: ["body", "embedding_config", "type"], type: "literal_error" },
        { loc: ["body", "metadata"], type: "dict_type" },
        { loc: ["body", "index_backend"], type: "literal_error" }
      ])

      const noConfig = yield* request("POST", "/v4/knowledge-bases", { key, body: { knowledge_base_name: "x" } })
      assert.deepStrictEqual(issues(noConfig), [{ loc: ["body", "embedding_config"], type: "missing" }])

      const malformed = yield* request("POST", "/v4/knowledge-bases", { key, body: "{\"knowledge_base_name\":" })
      assert.strictEqual(malformed.status, 422)
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      const page = yield* client.knowledgeBases.list({ urlParams: {} })
      assert.strictEqual(page.total_item_count, 0)
    }))

  it.effect("a model deployment that is missing or another account's is a 404 naming it; nothing is written", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const bobsDeployment = yield* deployment(bob)

      const missing = yield* request("POST", "/v4/knowledge-bases", {
        key: alice.key,
        body: { knowledge_base_name: "kb", embedding_config: { type: "models_api", model_deployment_id: "nope" } }
      })
      assert.strictEqual(missing.status, 404)
      assert.deepStrictEqual(missing.body, { detail: "Model deployment nope not found" })

      const foreign = yield* Effect.flip(alice.client.knowledgeBases.create({
        payload: {
          knowledge_base_name: "kb",
          embedding_config: { type: "models_api", model_deployment_id: bobsDeployment }
        }
      }))
      assert.strictEqual(foreign._tag, "NotFound")
      assert.deepStrictEqual((yield* alice.client.knowledgeBases.list({ urlParams: {} })).total_item_count, 0)
    }))

  it.effect("401 without a key or with an unknown one on create, get and list", () =>
    Effect.gen(function*() {
      const none = yield* request("POST", "/v4/knowledge-bases", {
        body: { knowledge_base_name: "kb", embedding_config: baseConfig }
      })
      assert.strictEqual(none.status, 401)
      assert.isString(none.body.detail)
      assert.strictEqual((yield* request("GET", "/v4/knowledge-bases/some-id")).status, 401)
      assert.strictEqual((yield* request("GET", "/v4/knowledge-bases", { key: "pk_nope" })).status, 401)
    }))

  it.effect("404 for a missing id and another account's base; 403 for another account_id", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const kb = yield* alice.client.knowledgeBases.create({
        payload: { knowledge_base_name: "a", embedding_config: baseConfig }
      })

      const missing = yield* Effect.flip(
        bob.client.knowledgeBases.get({ path: { knowledge_base_id: "no-such-id" }, urlParams: {} })
      )
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("GET", `/v4/knowledge-bases/${kb.knowledge_base_id}?view=Connections`, {
        key: bob.key
      })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Knowledge base ${kb.knowledge_base_id} not found` })

      const forbidden = yield* request("POST", "/v4/knowledge-bases", {
        key: bob.key,
        body: { knowledge_base_name: "b", embedding_config: baseConfig, account_id: alice.accountId }
      })
      assert.strictEqual(forbidden.status, 403)
      const foreignList = yield* request("GET", `/v4/knowledge-bases?account_id=${alice.accountId}`, { key: bob.key })
      assert.strictEqual(foreignList.status, 403)
      assert.strictEqual((yield* bob.client.knowledgeBases.list({ urlParams: {} })).total_item_count, 0)
    }))

  it.effect("views: each view field only when asked, comma-joined or repeated; artifacts_status always", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const kb = yield* client.knowledgeBases.create({
        payload: { knowledge_base_name: "kb", embedding_config: baseConfig }
      })
      const id = kb.knowledge_base_id
      for (const status of ["Completed", "Completed", "Failed", "Pending", "Embedding"] as const) {
        yield* client.knowledgeBases.createArtifact({
          path: { knowledge_base_id: id },
          payload: { artifact_name: `doc-${status}`, status }
        })
      }
      const counts = {
        ...zeroCounts,
        artifacts_completed: 2,
        artifacts_failed: 1,
        artifacts_pending: 1,
        artifacts_embedding: 1
      }

      const plain = yield* request("GET", `/v4/knowledge-bases/${id}`, { key })
      assert.deepStrictEqual(plain.body.artifacts_status, counts)
      assert.notProperty(plain.body, "connections")
      assert.notProperty(plain.body, "artifact_count")
      assert.notProperty(plain.body, "kb_index_configuration")

      const joined = yield* request("GET", `/v4/knowledge-bases/${id}?view=Connections,ArtifactCount`, { key })
      assert.deepStrictEqual(joined.body.connections, [])
      assert.strictEqual(joined.body.artifact_count, 5)
      assert.notProperty(joined.body, "kb_index_configuration")
      assert.deepStrictEqual(joined.body.artifacts_status, counts)

      const repeated = yield* request(
        "GET",
        `/v4/knowledge-bases/${id}?view=IndexConfiguration&view=ArtifactCount`,
        { key }
      )
      assert.deepStrictEqual(repeated.body.kb_index_configuration, systemIndexConfiguration)
      assert.strictEqual(repeated.body.artifact_count, 5)
      assert.notProperty(repeated.body, "connections")

      const typed = yield* client.knowledgeBases.get({
        path: { knowledge_base_id: id },
        urlParams: { view: ["Connections", "ArtifactCount", "IndexConfiguration"] }
      })
      assert.deepStrictEqual(typed.connections, [])
      assert.strictEqual(typed.artifact_count, 5)
      assert.deepStrictEqual(typed.kb_index_configuration?.max_index_size, 1_000_000)
    }))

  it.effect("kb_index_configuration is filled for BACKEND_A and BACKEND_C, null for BACKEND_B and BACKEND_D", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      for (const backend of ["BACKEND_A", "BACKEND_B", "BACKEND_C", "BACKEND_D"] as const) {
        const kb = yield* client.knowledgeBases.create({
          payload: { knowledge_base_name: backend, embedding_config: baseConfig, index_backend: backend }
        })
        const read = yield* request("GET", `/v4/knowledge-bases/${kb.knowledge_base_id}?view=IndexConfiguration`, {
          key
        })
        const expected = backend === "BACKEND_A" || backend === "BACKEND_C" ? systemIndexConfiguration : null
        assert.deepStrictEqual(read.body.kb_index_configuration, expected, backend)
        yield* TestClock.adjust("1 millis")
      }
      const list = yield* request("GET", "/v4/knowledge-bases?view=IndexConfiguration", { key })
      assert.deepStrictEqual(
        list.body.items.map((kb: any) => [kb.index_backend, kb.kb_index_configuration]),
        [
          ["BACKEND_D", null],
          ["BACKEND_C", systemIndexConfiguration],
          ["BACKEND_B", null],
          ["BACKEND_A", systemIndexConfiguration]
        ]
      )
    }))

  it.effect("the list also accepts every view, with per-base counts", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const first = yield* client.knowledgeBases.create({
        payload: { knowledge_base_name: "first", embedding_config: baseConfig }
      })
      yield* TestClock.adjust("1 millis")
      const second = yield* client.knowledgeBases.create({
        payload: { knowledge_base_name: "second", embedding_config: baseConfig, index_backend: "BACKEND_B" }
      })
      yield* client.knowledgeBases.createArtifact({
        path: { knowledge_base_id: first.knowledge_base_id },
        payload: { artifact_name: "a", status: "Uploading" }
      })
      const list = yield* request("GET", "/v4/knowledge-bases?view=ArtifactCount&view=Connections", { key })
      assert.strictEqual(list.status, 200)
      assert.deepStrictEqual(
        list.body.items.map((kb: any) => [kb.knowledge_base_id, kb.artifact_count, kb.connections, kb.artifacts_status]),
        [
          [second.knowledge_base_id, 0, [], zeroCounts],
          [first.knowledge_base_id, 1, [], { ...zeroCounts, artifacts_uploading: 1 }]
        ]
      )
      assert.notProperty(list.body.items[0], "kb_index_configuration")
      const plain = yield* client.knowledgeBases.list({ urlParams: {} })
      assert.isUndefined(plain.items[0]!.artifact_count)
    }))

  it.effect("query validation: unknown view, page and limit out of range", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const kb = yield* client.knowledgeBases.create({
        payload: { knowledge_base_name: "kb", embedding_config: baseConfig }
      })
      const badView = yield* request("GET", `/v4/knowledge-bases/${kb.knowledge_base_id}?view=Connections,Everything`, {
        key
      })
      assert.strictEqual(badView.status, 422)
      assert.deepStrictEqual(issues(badView), [{ loc: ["query", "view", 1], type: "literal_error" }])

      const badList = yield* request("GET", "/v4/knowledge-bases?page=0&limit=10001&view=connections", { key })
      assert.strictEqual(badList.status, 422)
      assert.deepStrictEqual(issues(badList), [
        { loc: ["query", "page"], type: "greater_than_equal" },
        { loc: ["query", "limit"], type: "range_error" },
        { loc: ["query", "view", 0], type: "literal_error" }
      ])
    }))

  it.effect("list pages newest first with page/limit", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      for (let i = 0; i < 5; i++) {
        yield* client.knowledgeBases.create({ payload: { knowledge_base_name: `kb${i}`, embedding_config: baseConfig } })
        yield* TestClock.adjust("1 millis")
      }
      const first = yield* client.knowledgeBases.list({ urlParams: { page: 1, limit: 2 } })
      assert.deepStrictEqual(first.items.map((kb) => kb.knowledge_base_name), ["kb4", "kb3"])
      assert.strictEqual(first.total_item_count, 5)
      assert.strictEqual(first.items_per_page, 2)
      const last = yield* client.knowledgeBases.list({ urlParams: { page: 3, limit: 2 } })
      assert.deepStrictEqual(last.items.map((kb) => kb.knowledge_base_name), ["kb0"])
      const beyond = yield* client.knowledgeBases.list({ urlParams: { page: 9, limit: 2 } })
      assert.deepStrictEqual(beyond.items, [])
      assert.strictEqual(beyond.total_item_count, 5)
    }))

  it.effect("the OpenAPI document describes the knowledge base endpoints", () =>
    Effect.gen(function*() {
      const openapi = yield* request("GET", "/openapi.json")
      assert.strictEqual(openapi.status, 200)
      for (
        const path of [
          "/v4/knowledge-bases",
          "/v4/knowledge-bases/{knowledge_base_id}",
          "/v4/knowledge-base-data-sources",
          "/v4/knowledge-bases/{knowledge_base_id}/upload-schedules",
          "/v4/knowledge-bases/{knowledge_base_id}/artifacts/{artifact_id}"
        ]
      ) assert.property(openapi.body.paths, path)
    }))
})
