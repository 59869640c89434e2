import { assert, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { ObjectStoreDataSourceConfig } from "@platform-kit/schema"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

const objectStore = new ObjectStoreDataSourceConfig({
  source: "OBJECT_STORE",
  object_store_bucket: "docs-bucket",
  cloud_region: "eu-west-1",
  cloud_account_id: "123456789012"
})

/** A caller with a knowledge base and a data source in its account. */
const setup = () =>
  Effect.gen(function*() {
    const caller = yield* provision()
    const kb = yield* caller.client.knowledgeBases.create({
      payload: { knowledge_base_name: "kb", embedding_config: { type: "base" } }
    })
    const source = yield* caller.client.knowledgeBases.createDataSource({
      payload: { name: "docs", data_source_config: objectStore }
    })
    const kbId = kb.knowledge_base_id
    return { ...caller, kbId, source, artifacts: `/v4/knowledge-bases/${kbId}/artifacts` }
  })

layer(TestServerLive)("knowledge base artifacts", (it) => {
  it.effect("create answers every field; get/list read it back; the row is where other families look", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key, client, kbId, source, artifacts } = yield* setup()
      const response = yield* request("POST", artifacts, {
        key,
        body: {
          artifact_name: "manual.pdf",
          artifact_uri: "s3://docs-bucket/manual.pdf",
          knowledge_base_data_source_id: source.id,
          content_modification_identifier: "etag-1",
          status: "completed"
        }
      })
      assert.strictEqual(response.status, 200)
      const created = response.body
      assert.match(created.artifact_id, uuid)
      assert.deepStrictEqual(created, {
        artifact_id: created.artifact_id,
        knowledge_base_id: kbId,
        artifact_name: "manual.pdf",
        artifact_uri: "s3://docs-bucket/manual.pdf",
        knowledge_base_data_source_id: source.id,
        content_modification_identifier: "etag-1",
        artifact_uri_public: null,
        source: "LocalFile",
        status: "Completed",
        status_reason: null,
        tags: {},
        chunks_status: { chunks_completed: 0, chunks_failed: 0, chunks_pending: 0 },
        upload_id: null,
        chunking_strategy_config: null,
        updated_at: created.created_at,
        account_id: accountId,
        created_by_user_id: identityId,
        created_by_identity_type: "user",
        created_at: created.created_at
      })

      // read by id with its chunks (none: nothing was ingested)
      const read = yield* request("GET", `${artifacts}/${created.artifact_id}`, { key })
      assert.deepStrictEqual(read.body, { ...created, chunks: [] })
      const page = yield* request("GET", artifacts, { key })
      assert.deepStrictEqual(page.body, { items: [created], total_item_count: 1, current_page: 1, items_per_page: 100 })

      // draft test case approval reads exactly this
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ id: string }>`SELECT id FROM kb_artifacts WHERE knowledge_base_id = ${kbId} AND id = ${created.artifact_id}`
      assert.deepStrictEqual(rows.map((r) => r.id), [created.artifact_id])

      const kb = yield* client.knowledgeBases.get({ path: { knowledge_base_id: kbId }, urlParams: { view: ["ArtifactCount"] } })
      assert.strictEqual(kb.artifact_count, 1)
      assert.strictEqual(kb.artifacts_status.artifacts_completed, 1)
    }))

  it.effect("defaults: status Pending (the lower-case statuses of before read as the SDK's), the optional fields null", () =>
    Effect.gen(function*() {
      const { key, client, kbId, artifacts } = yield* setup()
      const created = yield* client.knowledgeBases.createArtifact({
        path: { knowledge_base_id: kbId },
        payload: { artifact_name: "notes.txt" }
      })
      assert.strictEqual(created.status, "Pending")
      assert.strictEqual(created.artifact_uri, null)
      assert.strictEqual(created.knowledge_base_data_source_id, null)
      assert.strictEqual(created.content_modification_identifier, null)
      const read = yield* client.knowledgeBases.getArtifact({
        path: { knowledge_base_id: kbId, artifact_id: created.artifact_id },
        urlParams: {}
      })
      assert.deepStrictEqual({ ...read }, { ...created, chunks: [] })
      // null on the wire means "not given" too
      const nulls = yield* request("POST", artifacts, {
        key,
        body: { artifact_name: "x", artifact_uri: null, status: null, knowledge_base_data_source_id: null }
      })
      assert.strictEqual(nulls.status, 200)
      assert.strictEqual(nulls.body.artifact_uri, null)
      assert.strictEqual(nulls.body.status, "Pending")
      const kb = yield* client.knowledgeBases.get({ path: { knowledge_base_id: kbId }, urlParams: {} })
      assert.strictEqual(kb.artifacts_status.artifacts_pending, 2)
    }))

  it.effect("validation: 422 with exact loc/type, and nothing is written", () =>
    Effect.gen(function*() {
      const { key, client, kbId, artifacts } = yield* setup()
      const missing = yield* request("POST", artifacts, { key, body: { status: "done" } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "artifact_name"], type: "missing" },
        { loc: ["body", "status"], type: "literal_error" }
      ])
      const wrong = yield* request("POST", artifacts, {
        key,
        body: { artifact_name: ["x"], artifact_uri: 1, content_modification_identifier: {} }
      })
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "artifact_name"], type: "string_type" },
        { loc: ["body", "artifact_uri"], type: "string_type" },
        { loc: ["body", "content_modification_identifier"], type: "string_type" }
      ])
      const malformed = yield* request("POST", artifacts, { key, body: "not json" })
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      const page = yield* client.knowledgeBases.listArtifacts({ path: { knowledge_base_id: kbId }, urlParams: {} })
      assert.strictEqual(page.total_item_count, 0)
    }))

  it.effect("404: missing or foreign knowledge base, missing or foreign data source, artifact of another base", () =>
    Effect.gen(function*() {
      const alice = yield* setup()
      const bob = yield* setup()
      const noKb = yield* request("POST", "/v4/knowledge-bases/nope/artifacts", {
        key: alice.key,
        body: { artifact_name: "a" }
      })
      assert.strictEqual(noKb.status, 404)
      assert.deepStrictEqual(noKb.body, { detail: "Knowledge base nope not found" })
      const foreignKb = yield* request("POST", bob.artifacts, { key: alice.key, body: { artifact_name: "a" } })
      assert.strictEqual(foreignKb.status, 404)

      const noSource = yield* request("POST", alice.artifacts, {
        key: alice.key,
        body: { artifact_name: "a", knowledge_base_data_source_id: "ghost" }
      })
      assert.strictEqual(noSource.status, 404)
      assert.deepStrictEqual(noSource.body, { detail: "Knowledge base data source ghost not found" })
      const foreignSource = yield* Effect.flip(alice.client.knowledgeBases.createArtifact({
        path: { knowledge_base_id: alice.kbId },
        payload: { artifact_name: "a", knowledge_base_data_source_id: bob.source.id }
      }))
      assert.strictEqual(foreignSource._tag, "NotFound")

      const mine = yield* alice.client.knowledgeBases.createArtifact({
        path: { knowledge_base_id: alice.kbId },
        payload: { artifact_name: "a" }
      })
      const otherKb = yield* alice.client.knowledgeBases.create({
        payload: { knowledge_base_name: "other", embedding_config: { type: "base" } }
      })
      const wrongParent = yield* Effect.flip(alice.client.knowledgeBases.getArtifact({
        path: { knowledge_base_id: otherKb.knowledge_base_id, artifact_id: mine.artifact_id },
        urlParams: {}
      }))
      assert.strictEqual(wrongParent._tag, "NotFound")
      const missing = yield* request("GET", `${alice.artifacts}/nope`, { key: alice.key })
      assert.deepStrictEqual(missing.body, { detail: "Artifact nope not found" })
      const foreignRead = yield* request("GET", `${alice.artifacts}/${mine.artifact_id}`, { key: bob.key })
      assert.strictEqual(foreignRead.status, 404)
      assert.strictEqual((yield* request("GET", alice.artifacts, { key: bob.key })).status, 404)

      const page = yield* alice.client.knowledgeBases.listArtifacts({ path: { knowledge_base_id: alice.kbId }, urlParams: {} })
      assert.deepStrictEqual(page.items.map((a) => a.artifact_id), [mine.artifact_id])
      const bobs = yield* bob.client.knowledgeBases.listArtifacts({ path: { knowledge_base_id: bob.kbId }, urlParams: {} })
      assert.strictEqual(bobs.total_item_count, 0)
    }))

  it.effect("401 without a key; 403 for another account_id", () =>
    Effect.gen(function*() {
      const alice = yield* setup()
      const bob = yield* setup()
      assert.strictEqual((yield* request("POST", alice.artifacts, { body: { artifact_name: "a" } })).status, 401)
      assert.strictEqual((yield* request("GET", alice.artifacts)).status, 401)
      assert.strictEqual((yield* request("GET", `${alice.artifacts}/x`, { key: "pk_nope" })).status, 401)
      const forbidden = yield* request("POST", alice.artifacts, {
        key: alice.key,
        body: { artifact_name: "a", account_id: bob.accountId }
      })
      assert.strictEqual(forbidden.status, 403)
      const forbiddenList = yield* request("GET", `${alice.artifacts}?account_id=${bob.accountId}`, { key: alice.key })
      assert.strictEqual(forbiddenList.status, 403)
      const page = yield* alice.client.knowledgeBases.listArtifacts({ path: { knowledge_base_id: alice.kbId }, urlParams: {} })
      assert.strictEqual(page.total_item_count, 0)
    }))

  it.effect("list pages newest first, only the base's artifacts; counts per status", () =>
    Effect.gen(function*() {
      const { key, client, kbId, artifacts } = yield* setup()
      const other = yield* client.knowledgeBases.create({ payload: { knowledge_base_name: "o", embedding_config: { type: "base" } } })
      yield* client.knowledgeBases.createArtifact({
        path: { knowledge_base_id: other.knowledge_base_id },
        payload: { artifact_name: "elsewhere", status: "Failed" }
      })
      const statuses = ["Pending", "Uploading", "Chunking", "Embedding", "Completed", "Failed", "Completed"] as const
      for (const [i, status] of statuses.entries()) {
        yield* client.knowledgeBases.createArtifact({
          path: { knowledge_base_id: kbId },
          payload: { artifact_name: `a${i}`, status }
        })
        yield* TestClock.adjust("1 millis")
      }
      const first = yield* client.knowledgeBases.listArtifacts({
        path: { knowledge_base_id: kbId },
        urlParams: { page: 1, limit: 3 }
      })
      assert.deepStrictEqual(first.items.map((a) => a.artifact_name), ["a6", "a5", "a4"])
      assert.strictEqual(first.total_item_count, 7)

      const kb = yield* request("GET", `/v4/knowledge-bases/${kbId}?view=ArtifactCount`, { key })
      assert.deepStrictEqual(kb.body.artifacts_status, {
        artifacts_chunking: 1,
        artifacts_embedding: 1,
        artifacts_completed: 2,
        artifacts_pending: 1,
        artifacts_uploading: 1,
        artifacts_failed: 1
      })
      assert.strictEqual(kb.body.artifact_count, 7)

      const bad = yield* request("GET", `${artifacts}?page=-1`, { key })
      assert.deepStrictEqual(issues(bad), [{ loc: ["query", "page"], type: "greater_than_equal" }])
    }))
})
