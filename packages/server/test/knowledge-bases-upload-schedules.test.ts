import { assert, layer } from "@effect/vitest"
import { CharacterChunkingStrategyConfig, ObjectStoreDataSourceConfig } from "@platform-kit/schema"
import { Effect, TestClock } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

const objectStore = new ObjectStoreDataSourceConfig({
  source: "OBJECT_STORE",
  object_store_bucket: "docs-bucket",
  cloud_region: "eu-west-1",
  cloud_account_id: "123456789012"
})

/** A caller with a knowledge base and a data source in its account. */
const setup = (options: Parameters<typeof provision>[0] = {}) =>
  Effect.gen(function*() {
    const caller = yield* provision(options)
    const kb = yield* caller.client.knowledgeBases.create({
      payload: { knowledge_base_name: "kb", embedding_config: { type: "base" } }
    })
    const source = yield* caller.client.knowledgeBases.createDataSource({
      payload: { name: "docs", data_source_config: objectStore }
    })
    return { ...caller, kb, source, kbId: kb.knowledge_base_id, schedules: `/v4/knowledge-bases/${kb.knowledge_base_id}/upload-schedules` }
  })

const character = new CharacterChunkingStrategyConfig({ strategy: "character" })

layer(TestServerLive)("knowledge base upload schedules", (it) => {
  it.effect("create answers HEALTHY with every field and the character defaults; get/list read it back", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key, client, kbId, source, schedules } = yield* setup()
      // the server's clock at wall time: the schedule's first run (an hour on) is not due while
      // the test reads it back (the engine fires schedules by wall time)
      const now = Date.now()
      yield* TestClock.setTime(now)
      const response = yield* request("POST", schedules, {
        key,
        body: {
          knowledge_base_data_source_id: source.id,
          chunking_strategy_config: { strategy: "character" },
          interval: 3600
        }
      })
      assert.strictEqual(response.status, 200)
      const created = response.body
      assert.match(created.id, uuid)
      assert.deepStrictEqual(created, {
        id: created.id,
        knowledge_base_id: kbId,
        knowledge_base_data_source_id: source.id,
        chunking_strategy_config: { strategy: "character", separator: "\n\n", chunk_size: 1000, chunk_overlap: 200 },
        status: "HEALTHY",
        status_reason: null,
        interval: 3600,
        // the first run is one interval after creation
        next_run_at: new Date(now + 3_600_000).toISOString(),
        updated_at: created.created_at,
        account_id: accountId,
        created_by_user_id: identityId,
        created_by_identity_type: "user",
        created_at: new Date(now).toISOString()
      })

      const read = yield* request("GET", `${schedules}/${created.id}`, { key })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.body, created)
      const page = yield* request("GET", schedules, { key })
      assert.deepStrictEqual(page.body, { items: [created], total_item_count: 1, current_page: 1, items_per_page: 100 })

      const typed = yield* client.knowledgeBases.getUploadSchedule({
        path: { knowledge_base_id: kbId, upload_schedule_id: created.id }
      })
      assert.strictEqual(typed.status, "HEALTHY")
    }))

  it.effect("the other chunking configs are open objects kept as given; next_run_at is kept in UTC; interval 0 has no next run", () =>
    Effect.gen(function*() {
      const { client, kbId, source } = yield* setup()
      const configs = [
        { strategy: "token", target_chunk_size: 512, max_chunk_size: 1024 },
        { strategy: "custom", endpoint: "https://chunker.example" },
        { strategy: "pre_chunked" },
        { strategy: "enhanced", chunk_mode: "page", options: { ocr: true } }
      ] as const
      for (const chunking_strategy_config of configs) {
        const made = yield* client.knowledgeBases.createUploadSchedule({
          path: { knowledge_base_id: kbId },
          payload: { knowledge_base_data_source_id: source.id, chunking_strategy_config, interval: 0 }
        })
        assert.deepStrictEqual(made.chunking_strategy_config, chunking_strategy_config)
        assert.strictEqual(made.next_run_at, null)
      }
      const explicit = yield* client.knowledgeBases.createUploadSchedule({
        path: { knowledge_base_id: kbId },
        payload: {
          knowledge_base_data_source_id: source.id,
          chunking_strategy_config: new CharacterChunkingStrategyConfig({
            strategy: "character",
            separator: "\n",
            chunk_size: 10,
            chunk_overlap: 0
          }),
          interval: 86400.5,
          next_run_at: "2026-11-22T12:00:00+02:00"
        }
      })
      assert.strictEqual(explicit.next_run_at, "2026-11-22T10:00:00.000Z")
      assert.strictEqual(explicit.interval, 86400.5)
      assert.deepStrictEqual(
        { ...explicit.chunking_strategy_config },
        { strategy: "character", separator: "\n", chunk_size: 10, chunk_overlap: 0 }
      )
      // an interval whose first run lies past the year 9999 has no next run
      const never = yield* client.knowledgeBases.createUploadSchedule({
        path: { knowledge_base_id: kbId },
        payload: { knowledge_base_data_source_id: source.id, chunking_strategy_config: character, interval: 1e300 }
      })
      assert.strictEqual(never.next_run_at, null)
      assert.strictEqual(never.interval, 1e300)
      const page = yield* client.knowledgeBases.listUploadSchedules({ path: { knowledge_base_id: kbId }, urlParams: {} })
      assert.strictEqual(page.total_item_count, 6)
    }))

  it.effect("validation: chunking rules and shape give 422 at the field, and nothing is written", () =>
    Effect.gen(function*() {
      const { key, client, kbId, source, schedules } = yield* setup()
      const overlap = yield* request("POST", schedules, {
        key,
        body: {
          knowledge_base_data_source_id: source.id,
          chunking_strategy_config: { strategy: "character", chunk_size: 100, chunk_overlap: 100 },
          interval: 60
        }
      })
      assert.strictEqual(overlap.status, 422)
      assert.deepStrictEqual(issues(overlap), [
        { loc: ["body", "chunking_strategy_config", "chunk_overlap"], type: "less_than" }
      ])
      assert.deepStrictEqual(overlap.body.detail[0].input, 100)

      // the default overlap (200) is not below a chunk size of 100 either
      const defaultOverlap = yield* request("POST", schedules, {
        key,
        body: {
          knowledge_base_data_source_id: source.id,
          chunking_strategy_config: { strategy: "character", chunk_size: 100 },
          interval: 60
        }
      })
      assert.deepStrictEqual(issues(defaultOverlap), [
        { loc: ["body", "chunking_strategy_config", "chunk_overlap"], type: "less_than" }
      ])

      const ranges = yield* request("POST", schedules, {
        key,
        body: {
          knowledge_base_data_source_id: source.id,
          chunking_strategy_config: { strategy: "character", chunk_size: 0, chunk_overlap: -1, separator: 5 },
          interval: -1,
          next_run_at: "tomorrow"
        }
      })
      assert.strictEqual(ranges.status, 422)
      assert.deepStrictEqual(issues(ranges), [
        { loc: ["body", "chunking_strategy_config", "separator"], type: "string_type" },
        { loc: ["body", "chunking_strategy_config", "chunk_size"], type: "greater_than_equal" },
        { loc: ["body", "chunking_strategy_config", "chunk_overlap"], type: "greater_than_equal" },
        { loc: ["body", "interval"], type: "greater_than_equal" },
        { loc: ["body", "next_run_at"], type: "value_error" }
      ])

      const shape = yield* request("POST", schedules, {
        key,
        body: { chunking_strategy_config: { strategy: "semantic" }, interval: "60", account_id: 1 }
      })
      assert.strictEqual(shape.status, 422)
      assert.deepStrictEqual(issues(shape), [
        { loc: ["body", "knowledge_base_data_source_id"], type: "missing" },
        { loc: ["body", "chunking_strategy_config", "strategy"], type: "literal_error" },
        { loc: ["body", "interval"], type: "number_type" },
        { loc: ["body", "account_id"], type: "string_type" }
      ])

      const fractional = yield* request("POST", schedules, {
        key,
        body: {
          knowledge_base_data_source_id: source.id,
          chunking_strategy_config: { strategy: "character", chunk_size: 10.5 }
        }
      })
      assert.deepStrictEqual(issues(fractional), [
        { loc: ["body", "chunking_strategy_config", "chunk_size"], type: "int_type" },
        { loc: ["body", "interval"], type: "missing" }
      ])

      // a request shape problem is answered before a missing knowledge base
      const shapeFirst = yield* request("POST", "/v4/knowledge-bases/nope/upload-schedules", { key, body: {} })
      assert.strictEqual(shapeFirst.status, 422)

      const page = yield* client.knowledgeBases.listUploadSchedules({ path: { knowledge_base_id: kbId }, urlParams: {} })
      assert.strictEqual(page.total_item_count, 0)
    }))

  it.effect("404: missing or foreign knowledge base, missing or foreign data source, schedule of another base", () =>
    Effect.gen(function*() {
      const alice = yield* setup()
      const bob = yield* setup()
      const payload = { knowledge_base_data_source_id: alice.source.id, chunking_strategy_config: character, interval: 0 }

      const noKb = yield* request("POST", "/v4/knowledge-bases/nope/upload-schedules", {
        key: alice.key,
        body: { ...payload, chunking_strategy_config: { strategy: "character" } }
      })
      assert.strictEqual(noKb.status, 404)
      assert.deepStrictEqual(noKb.body, { detail: "Knowledge base nope not found" })

      const foreignKb = yield* Effect.flip(alice.client.knowledgeBases.createUploadSchedule({
        path: { knowledge_base_id: bob.kbId },
        payload
      }))
      assert.strictEqual(foreignKb._tag, "NotFound")

      const noSource = yield* request("POST", alice.schedules, {
        key: alice.key,
        body: { knowledge_base_data_source_id: "ghost", chunking_strategy_config: { strategy: "pre_chunked" }, interval: 0 }
      })
      assert.strictEqual(noSource.status, 404)
      assert.deepStrictEqual(noSource.body, { detail: "Knowledge base data source ghost not found" })

      const foreignSource = yield* Effect.flip(alice.client.knowledgeBases.createUploadSchedule({
        path: { knowledge_base_id: alice.kbId },
        payload: { ...payload, knowledge_base_data_source_id: bob.source.id }
      }))
      assert.strictEqual(foreignSource._tag, "NotFound")

      const mine = yield* alice.client.knowledgeBases.createUploadSchedule({ path: { knowledge_base_id: alice.kbId }, payload })
      const otherKb = yield* alice.client.knowledgeBases.create({
        payload: { knowledge_base_name: "other", embedding_config: { type: "base" } }
      })
      const wrongParent = yield* request("GET", `/v4/knowledge-bases/${otherKb.knowledge_base_id}/upload-schedules/${mine.id}`, {
        key: alice.key
      })
      assert.strictEqual(wrongParent.status, 404)
      assert.deepStrictEqual(wrongParent.body, { detail: `Upload schedule ${mine.id} not found` })
      const missing = yield* request("GET", `${alice.schedules}/nope`, { key: alice.key })
      assert.strictEqual(missing.status, 404)
      const foreignRead = yield* request("GET", `${alice.schedules}/${mine.id}`, { key: bob.key })
      assert.strictEqual(foreignRead.status, 404)
      assert.deepStrictEqual(foreignRead.body, { detail: `Knowledge base ${alice.kbId} not found` })
      const foreignList = yield* request("GET", alice.schedules, { key: bob.key })
      assert.strictEqual(foreignList.status, 404)

      // only the one good schedule was written
      const page = yield* alice.client.knowledgeBases.listUploadSchedules({
        path: { knowledge_base_id: alice.kbId },
        urlParams: {}
      })
      assert.deepStrictEqual(page.items.map((s) => s.id), [mine.id])
      const bobs = yield* bob.client.knowledgeBases.listUploadSchedules({ path: { knowledge_base_id: bob.kbId }, urlParams: {} })
      assert.strictEqual(bobs.total_item_count, 0)
    }))

  it.effect("401 without a key; 403 for another account_id in the body or the list filter", () =>
    Effect.gen(function*() {
      const alice = yield* setup()
      const bob = yield* setup()
      const body = { knowledge_base_data_source_id: alice.source.id, chunking_strategy_config: { strategy: "pre_chunked" }, interval: 0 }
      assert.strictEqual((yield* request("POST", alice.schedules, { body })).status, 401)
      assert.strictEqual((yield* request("GET", alice.schedules)).status, 401)
      assert.strictEqual((yield* request("GET", `${alice.schedules}/x`, { key: "pk_nope" })).status, 401)

      const forbidden = yield* request("POST", alice.schedules, {
        key: alice.key,
        body: { ...body, account_id: bob.accountId }
      })
      assert.strictEqual(forbidden.status, 403)
      const forbiddenList = yield* request("GET", `${alice.schedules}?account_id=${bob.accountId}`, { key: alice.key })
      assert.strictEqual(forbiddenList.status, 403)
      const page = yield* alice.client.knowledgeBases.listUploadSchedules({
        path: { knowledge_base_id: alice.kbId },
        urlParams: {}
      })
      assert.strictEqual(page.total_item_count, 0)
    }))

  it.effect("a caller in several accounts: the schedule goes to the knowledge base's account; account_id must match it", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const owner = yield* setup()
      const member = yield* provision()
      yield* accounts.addMember(member.identityId, owner.accountId)
      const schedule = yield* member.client.knowledgeBases.createUploadSchedule({
        path: { knowledge_base_id: owner.kbId },
        payload: { knowledge_base_data_source_id: owner.source.id, chunking_strategy_config: character, interval: 0 }
      })
      assert.strictEqual(schedule.account_id, owner.accountId)
      assert.strictEqual(schedule.created_by_user_id, member.identityId)

      // naming the member's own account: the knowledge base is not in it
      const elsewhere = yield* request("POST", owner.schedules, {
        key: member.key,
        body: {
          knowledge_base_data_source_id: owner.source.id,
          chunking_strategy_config: { strategy: "pre_chunked" },
          interval: 0,
          account_id: member.accountId
        }
      })
      assert.strictEqual(elsewhere.status, 404)
      const page = yield* owner.client.knowledgeBases.listUploadSchedules({
        path: { knowledge_base_id: owner.kbId },
        urlParams: {}
      })
      assert.deepStrictEqual(page.items.map((s) => s.id), [schedule.id])
    }))

  it.effect("connections: each data source with a schedule on the base, once; last_uploaded_at from its artifacts", () =>
    Effect.gen(function*() {
      const { key, client, kbId, source, schedules } = yield* setup()
      const connections = () =>
        Effect.map(
          request("GET", `/v4/knowledge-bases/${kbId}?view=Connections`, { key }),
          (response) => response.body.connections
        )
      assert.deepStrictEqual(yield* connections(), [])

      const second = yield* client.knowledgeBases.createDataSource({ payload: { name: "wiki", data_source_config: objectStore } })
      const body = { knowledge_base_data_source_id: source.id, chunking_strategy_config: { strategy: "pre_chunked" }, interval: 0 }
      yield* request("POST", schedules, { key, body })
      yield* TestClock.adjust("1 millis")
      yield* request("POST", schedules, { key, body: { ...body, knowledge_base_data_source_id: second.id } })
      yield* request("POST", schedules, { key, body })
      const sourceJson = (yield* request("GET", `/v4/knowledge-base-data-sources/${source.id}`, { key })).body
      const secondJson = (yield* request("GET", `/v4/knowledge-base-data-sources/${second.id}`, { key })).body

      assert.deepStrictEqual(yield* connections(), [
        { last_uploaded_at: null, deletion_status: null, knowledge_base_data_source: sourceJson },
        { last_uploaded_at: null, deletion_status: null, knowledge_base_data_source: secondJson }
      ])

      yield* TestClock.adjust("1 seconds")
      const earlier = yield* client.knowledgeBases.createArtifact({
        path: { knowledge_base_id: kbId },
        payload: { artifact_name: "a.pdf", knowledge_base_data_source_id: second.id }
      })
      yield* TestClock.adjust("1 seconds")
      const latest = yield* client.knowledgeBases.createArtifact({
        path: { knowledge_base_id: kbId },
        payload: { artifact_name: "b.pdf", knowledge_base_data_source_id: second.id, status: "Completed" }
      })
      const after = yield* connections()
      assert.strictEqual(after[0].last_uploaded_at, null)
      assert.strictEqual(after[1].last_uploaded_at, latest.created_at)
      assert.strictEqual(Date.parse(latest.created_at) - Date.parse(earlier.created_at), 1000)

      // a data source without a schedule on this base is not one of its connections
      const other = yield* client.knowledgeBases.create({ payload: { knowledge_base_name: "other", embedding_config: { type: "base" } } })
      const otherView = yield* client.knowledgeBases.get({
        path: { knowledge_base_id: other.knowledge_base_id },
        urlParams: { view: ["Connections"] }
      })
      assert.deepStrictEqual(otherView.connections, [])
    }))

  it.effect("list pages newest first; query validation", () =>
    Effect.gen(function*() {
      const { key, client, kbId, source, schedules } = yield* setup()
      const made = []
      for (let i = 0; i < 3; i++) {
        made.push(yield* client.knowledgeBases.createUploadSchedule({
          path: { knowledge_base_id: kbId },
          payload: { knowledge_base_data_source_id: source.id, chunking_strategy_config: character, interval: i }
        }))
        yield* TestClock.adjust("1 millis")
      }
      const first = yield* client.knowledgeBases.listUploadSchedules({
        path: { knowledge_base_id: kbId },
        urlParams: { page: 1, limit: 2 }
      })
      assert.deepStrictEqual(first.items.map((s) => s.interval), [2, 1])
      assert.strictEqual(first.total_item_count, 3)
      const bad = yield* request("GET", `${schedules}?limit=abc`, { key })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad), [{ loc: ["query", "limit"], type: "number_parsing" }])
    }))
})
