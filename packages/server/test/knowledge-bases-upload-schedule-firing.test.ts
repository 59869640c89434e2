import { assert, layer } from "@effect/vitest"
import { ObjectStoreDataSourceConfig, UploadSchedule } from "@platform-kit/schema"
import { Effect, Layer, Schema, TestClock, TestServices } from "effect"
import { UploadIngestion } from "../src/knowledge-bases/schedules/ingestion.js"
import { UploadSchedulesRepo } from "../src/knowledge-bases/schedules/UploadSchedulesRepo.js"
import { Ids } from "../src/platform/Ids.js"
import { issues, provision, request, TestServerLive } from "../src/testing.js"

const live = (millis: number) => TestServices.provideLive(Effect.sleep(`${millis} millis`))

/** A caller with a knowledge base and a data source in its account. */
const setup = Effect.gen(function*() {
  const caller = yield* provision()
  const kb = yield* caller.client.knowledgeBases.create({ payload: { knowledge_base_name: "kb", embedding_config: { type: "base" } } })
  const source = yield* caller.client.knowledgeBases.createDataSource({
    payload: {
      name: "docs",
      data_source_config: new ObjectStoreDataSourceConfig({
        source: "OBJECT_STORE",
        object_store_bucket: "b",
        cloud_region: "eu-west-1",
        cloud_account_id: "123456789012"
      })
    }
  })
  return { ...caller, source, schedules: `/v4/knowledge-bases/${kb.knowledge_base_id}/upload-schedules` }
})

const runsOf = (schedules: string, id: string, key: string) =>
  Effect.map(request("GET", `${schedules}/${id}/runs`, { key }), (response) => {
    assert.strictEqual(response.status, 200, JSON.stringify(response.body))
    return response.body as { items: Array<any>; total_item_count: number }
  })

/** A schedule of `interval` seconds whose first run is `inMs` from now (wall time). */
const createSchedule = (context: { key: string; schedules: string; source: { id: string } }, interval: number, inMs: number) =>
  Effect.map(
    request("POST", context.schedules, {
      key: context.key,
      body: {
        knowledge_base_data_source_id: context.source.id,
        chunking_strategy_config: { strategy: "character" },
        interval,
        next_run_at: new Date(Date.now() + inMs).toISOString()
      }
    }),
    (response) => {
      assert.strictEqual(response.status, 200, JSON.stringify(response.body))
      return response.body
    }
  )

layer(TestServerLive)("upload schedules fire", (it) => {
  it.effect("at next_run_at, then every interval: each run recorded (newest first), next_run_at moving on", () =>
    Effect.gen(function*() {
      const context = yield* setup
      const created = yield* createSchedule(context, 1, 1_500)
      let page = yield* runsOf(context.schedules, created.id, context.key)
      // nothing before it is due (a read that a loaded machine made late proves nothing)
      if (Date.now() < Date.parse(created.next_run_at)) assert.strictEqual(page.total_item_count, 0)
      for (let i = 0; i < 100 && page.total_item_count < 2; i++) {
        yield* live(100)
        page = yield* runsOf(context.schedules, created.id, context.key)
      }
      // the two oldest (newest first): a slow poll may see a third run already
      const [second, first] = page.items.slice(-2)
      assert.strictEqual(first.scheduled_at, created.next_run_at)
      // one period on; on a machine so loaded that the first run ended after the second was due,
      // the next boundary after it (missed runs are not replayed): a whole number of periods
      const apart = Date.parse(second.scheduled_at) - Date.parse(first.scheduled_at)
      assert.isTrue(apart > 0 && apart % 1000 === 0, `runs ${apart} ms apart`)
      const uploads = new Set<string>()
      for (const run of [first, second]) {
        // each firing started an upload of the data source, its own
        assert.strictEqual(run.status, "COMPLETED")
        const started = /^Upload ([0-9a-f-]{36}) started$/.exec(run.status_reason)
        assert.isNotNull(started, run.status_reason)
        uploads.add(started![1]!)
        const upload = yield* request("GET", `${context.schedules.replace("upload-schedules", "uploads")}/${started![1]}`, { key: context.key })
        assert.strictEqual(upload.status, 200, JSON.stringify(upload.body))
        assert.strictEqual(upload.body.created_by_schedule_id, created.id)
        assert.strictEqual(upload.body.data_source_id, context.source.id)
        assert.strictEqual(run.upload_schedule_id, created.id)
        assert.strictEqual(run.knowledge_base_data_source_id, context.source.id)
        assert.isAtLeast(Date.parse(run.created_at), Date.parse(run.scheduled_at))
      }
      assert.strictEqual(uploads.size, 2)
      const read = (yield* request("GET", `${context.schedules}/${created.id}`, { key: context.key })).body
      assert.strictEqual(read.status, "HEALTHY")
      assert.isAtLeast(Date.parse(read.next_run_at), Date.parse(second.scheduled_at) + 1000)
    }))

  it.effect("PATCH status PAUSED stops the firing, HEALTHY resumes it; interval 0 stops it for good", () =>
    Effect.gen(function*() {
      const context = yield* setup
      const created = yield* createSchedule(context, 1, 200)
      const path = `${context.schedules}/${created.id}`
      let page = yield* runsOf(context.schedules, created.id, context.key)
      for (let i = 0; i < 100 && page.total_item_count < 1; i++) {
        yield* live(50)
        page = yield* runsOf(context.schedules, created.id, context.key)
      }
      const paused = yield* request("PATCH", path, { key: context.key, body: { status: "PAUSED" } })
      assert.strictEqual(paused.status, 200)
      assert.strictEqual(paused.body.status, "PAUSED")
      const atPause = (yield* runsOf(context.schedules, created.id, context.key)).total_item_count
      yield* live(2500)
      assert.strictEqual((yield* runsOf(context.schedules, created.id, context.key)).total_item_count, atPause)

      const resumed = yield* request("PATCH", path, {
        key: context.key,
        body: { status: "HEALTHY", next_run_at: new Date(Date.now() + 200).toISOString() }
      })
      assert.strictEqual(resumed.body.status, "HEALTHY")
      let after = atPause
      for (let i = 0; i < 100 && after === atPause; i++) {
        yield* live(50)
        after = (yield* runsOf(context.schedules, created.id, context.key)).total_item_count
      }
      assert.isAbove(after, atPause)

      const stopped = yield* request("PATCH", path, { key: context.key, body: { interval: 0 } })
      assert.strictEqual(stopped.body.interval, 0)
      assert.strictEqual(stopped.body.next_run_at, null)
      const atStop = (yield* runsOf(context.schedules, created.id, context.key)).total_item_count
      yield* live(2000)
      assert.strictEqual((yield* runsOf(context.schedules, created.id, context.key)).total_item_count, atStop)
    }))

  it.effect("DELETE removes the schedule and its runs ({count, success}); another account's is a 404; bad PATCH bodies 422", () =>
    Effect.gen(function*() {
      const context = yield* setup
      const other = yield* provision()
      const created = yield* createSchedule(context, 3600, 3_600_000)
      const path = `${context.schedules}/${created.id}`

      const bad = yield* request("PATCH", path, { key: context.key, body: { interval: -1, status: "ERROR" } })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad), [
        { loc: ["body", "interval"], type: "greater_than_equal" },
        { loc: ["body", "status"], type: "literal_error" }
      ])
      assert.strictEqual((yield* request("PATCH", path, { key: other.key, body: { status: "PAUSED" } })).status, 404)
      assert.strictEqual((yield* request("DELETE", path, { key: other.key })).status, 404)
      assert.strictEqual((yield* request("GET", `${path}/runs`, { key: other.key })).status, 404)
      assert.deepStrictEqual((yield* request("GET", path, { key: context.key })).body, created)

      const deleted = yield* request("DELETE", path, { key: context.key })
      assert.strictEqual(deleted.status, 200)
      assert.deepStrictEqual(deleted.body, { count: 1, success: true })
      assert.strictEqual((yield* request("GET", path, { key: context.key })).status, 404)
      assert.strictEqual((yield* request("GET", `${path}/runs`, { key: context.key })).status, 404)
      assert.strictEqual((yield* request("DELETE", path, { key: context.key })).status, 404)
    }))

  it.effect("runs whose ingestion fails: UNHEALTHY with the reason, ERROR after three in a row (it stops firing); a success makes it HEALTHY", () =>
    Effect.gen(function*() {
      const context = yield* setup
      const created = yield* createSchedule(context, 3600, 3_600_000)
      let outcome: "fail" | "succeed" = "fail"
      const ingestion = Layer.succeed(UploadIngestion, {
        run: () => (outcome === "fail" ? Effect.fail("the bucket is not readable") : Effect.succeed(null))
      })
      const repo = yield* Effect.provide(UploadSchedulesRepo, UploadSchedulesRepo.Default)
      // each firing a second after the one before (the suite's clock is a TestClock)
      const fire = (run: number) =>
        Effect.zipRight(
          TestClock.adjust("1 second"),
          repo.fire({ id: created.id, account_id: context.accountId, run }).pipe(Effect.provide(ingestion))
        )
      const statusOf = Effect.map(
        request("GET", `${context.schedules}/${created.id}`, { key: context.key }),
        (response) => Schema.decodeUnknownSync(UploadSchedule)(response.body)
      )

      assert.isTrue(yield* fire(0))
      assert.deepStrictEqual([(yield* statusOf).status, (yield* statusOf).status_reason], ["UNHEALTHY", "the bucket is not readable"])
      outcome = "succeed"
      assert.isTrue(yield* fire(1))
      assert.deepStrictEqual([(yield* statusOf).status, (yield* statusOf).status_reason], ["HEALTHY", null])
      outcome = "fail"
      assert.isTrue(yield* fire(2))
      assert.isTrue(yield* fire(3))
      assert.strictEqual((yield* statusOf).status, "UNHEALTHY")
      // the third failure in a row: ERROR, and no firing after it
      assert.isFalse(yield* fire(4))
      assert.strictEqual((yield* statusOf).status, "ERROR")
      assert.isFalse(yield* fire(5))
      const runs = yield* runsOf(context.schedules, created.id, context.key)
      assert.deepStrictEqual(runs.items.map((run) => run.status), ["FAILED", "FAILED", "FAILED", "COMPLETED", "FAILED"])
      // resumed by PATCH: HEALTHY again, the reason cleared
      const resumed = yield* request("PATCH", `${context.schedules}/${created.id}`, { key: context.key, body: { status: "HEALTHY" } })
      assert.deepStrictEqual([resumed.body.status, resumed.body.status_reason], ["HEALTHY", null])
      // the PATCH moved the firing number on (to 6): a firing planned before it records nothing
      // (it answers that the next, 6, is to be started: the handler started it already, and a
      // start of one started does nothing)
      assert.isTrue(yield* fire(5))
      assert.strictEqual((yield* runsOf(context.schedules, created.id, context.key)).total_item_count, 5)
      // the failures before the resume do not count: one more makes it UNHEALTHY, not ERROR
      assert.isTrue(yield* fire(6))
      assert.strictEqual((yield* statusOf).status, "UNHEALTHY")
      outcome = "succeed"
      assert.isTrue(yield* fire(7))
      assert.strictEqual((yield* runsOf(context.schedules, created.id, context.key)).total_item_count, 7)
      // the step of firing 7 repeated (its process died after the commit, before the engine
      // stored the result): no second run, and the chain goes on with firing 8
      assert.isTrue(yield* fire(7))
      assert.strictEqual((yield* runsOf(context.schedules, created.id, context.key)).total_item_count, 7)
      // paused: a repeated step does not start the next
      yield* request("PATCH", `${context.schedules}/${created.id}`, { key: context.key, body: { status: "PAUSED" } })
      assert.isFalse(yield* fire(8))
      assert.isFalse(yield* fire(7))
    }).pipe(Effect.provide(Ids.Live)))
})
