/**
 * A knowledge base's async jobs (docs/knowledge-bases.md "Async jobs"): its uploads and the
 * upload schedule runs that failed before making one, as `knowledge_base_upload` jobs in a bare
 * array, newest first; the `status` filter (`Active`, `All`, one status) and paging.
 */
import { assert, layer } from "@effect/vitest"
import { AsyncJob, ObjectStoreDataSourceConfig } from "@platform-kit/schema"
import { Effect, Layer, Option, TestClock } from "effect"
import { UploadIngestion } from "../src/knowledge-bases/schedules/ingestion.js"
import { UploadSchedulesRepo } from "../src/knowledge-bases/schedules/UploadSchedulesRepo.js"
import { newUpload, UploadsRepo } from "../src/knowledge-bases/uploads/UploadsRepo.js"
import { eventually, issues, provision, request, TestServerLive } from "../src/testing.js"

const zeroCounts = {
  artifacts_chunking: 0,
  artifacts_embedding: 0,
  artifacts_completed: 0,
  artifacts_pending: 0,
  artifacts_uploading: 0,
  artifacts_failed: 0
}

layer(TestServerLive, { timeout: 60_000 })("knowledge bases: async jobs", (it) => {
  it.effect("uploads and failed schedule runs as jobs, newest first; status filters; pages", () =>
    Effect.gen(function*() {
      const { accountId, client, identityId, key } = yield* provision()
      const kb = yield* client.knowledgeBases.create({ payload: { knowledge_base_name: "kb", embedding_config: { type: "base" } } })
      const knowledge_base_id = kb.knowledge_base_id
      const base = `/v4/knowledge-bases/${knowledge_base_id}`
      const list = (urlParams: Parameters<typeof client.knowledgeBases.listAsyncJobs>[0]["urlParams"] = {}) =>
        client.knowledgeBases.listAsyncJobs({ path: { knowledge_base_id }, urlParams })
      assert.deepStrictEqual(yield* list(), [])

      // a failed run of a schedule (its ingestion refused), before any upload: the oldest job
      const source = yield* client.knowledgeBases.createDataSource({
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
      const scheduled = yield* request("POST", `${base}/upload-schedules`, {
        key,
        body: {
          knowledge_base_data_source_id: source.id,
          chunking_strategy_config: { strategy: "character" },
          interval: 3600,
          next_run_at: new Date(Date.now() + 3_600_000).toISOString()
        }
      })
      assert.strictEqual(scheduled.status, 200, JSON.stringify(scheduled.body))
      const schedule: { id: string; next_run_at: string } = scheduled.body
      const schedules = yield* Effect.provide(UploadSchedulesRepo, UploadSchedulesRepo.Default)
      yield* TestClock.setTime(Date.now() - 60_000)
      yield* schedules.fire({ id: schedule.id, account_id: accountId, run: 0 }).pipe(
        Effect.provide(Layer.succeed(UploadIngestion, { run: () => Effect.fail("the bucket is not readable") }))
      )

      // an upload that completes, then one that fails (its URI is taken: deduplication Fail)
      // (the server's clock is this test's: a second on for each job, so their order is their creation's)
      const uploadOf = (body: unknown) =>
        Effect.gen(function*() {
          yield* TestClock.adjust("1 second")
          const posted = yield* request("POST", `${base}/uploads`, { key, body })
          assert.strictEqual(posted.status, 200, JSON.stringify(posted.body))
          const upload_id: string = posted.body.upload_id
          const done = yield* eventually(Effect.map(
            client.knowledgeBaseUploads.get({ path: { knowledge_base_id, upload_id }, urlParams: {} }),
            (upload) => (upload.status === "Running" ? Option.none() : Option.some(upload))
          ))
          return Option.getOrThrow(done)
        })
      const completed = yield* uploadOf({
        data_source_config: { source: "LocalChunks", artifact_name: "faq.txt", artifact_uri: "local://faq" },
        chunks: [{ chunk_position: 0, text: "Opening hours" }]
      })
      const failed = yield* uploadOf({
        data_source_config: { source: "LocalChunks", artifact_name: "faq.txt", artifact_uri: "local://faq", deduplication_strategy: "Fail" },
        chunks: [{ chunk_position: 0, text: "Again" }]
      })
      assert.deepStrictEqual([completed.status, failed.status], ["Completed", "Failed"])

      // one still running (its run not started here: it stays Running), then canceled below
      const uploads = yield* Effect.provide(UploadsRepo, UploadsRepo.Default)
      const running = yield* uploads.insert(newUpload({
        id: crypto.randomUUID(),
        knowledge_base_id,
        data_source_config: { source: "LocalChunks", artifact_name: "later.txt", artifact_uri: "local://later", deduplication_strategy: "Overwrite" } as any,
        data_source_id: null,
        chunking_strategy_config: null,
        force_reupload: false,
        tagging_information: null,
        chunks: [],
        created_by_schedule_id: null,
        schedule_firing: null,
        account_id: accountId,
        created_by_user_id: identityId,
        created_by_identity_type: "user",
        created_at: new Date(Date.now() + 1000).toISOString()
      }))

      const jobs = yield* list()
      assert.deepStrictEqual(jobs.map((job) => job.id).slice(0, 3), [running.id, failed.upload_id, completed.upload_id])
      assert.strictEqual(jobs.length, 4)
      const [, failedJob, completedJob, runJob] = jobs
      assert.deepStrictEqual(completedJob, new AsyncJob({
        id: completed.upload_id,
        account_id: accountId,
        job_type: "knowledge_base_upload",
        status: "Completed",
        created_by_user_id: identityId,
        job_metadata: {
          knowledge_base_id,
          upload_id: completed.upload_id,
          data_source_id: null,
          created_by_schedule_id: null,
          source: "LocalChunks",
          status_reason: "1 of 1 artifacts completed"
        },
        parent_job_id: null,
        progress: { ...zeroCounts, artifacts_completed: 1, artifacts_total: 1 },
        created_at: completed.created_at,
        updated_at: completed.updated_at
      }))
      assert.deepStrictEqual([failedJob!.status, failedJob!.progress], ["Failed", { ...zeroCounts, artifacts_total: 0 }])
      assert.match(String(failedJob!.job_metadata!.status_reason), /exists already/)
      assert.deepStrictEqual(runJob, new AsyncJob({
        id: runJob!.id,
        account_id: accountId,
        job_type: "knowledge_base_upload",
        status: "Failed",
        created_by_user_id: null,
        job_metadata: {
          knowledge_base_id,
          upload_schedule_id: schedule.id,
          upload_schedule_run_id: runJob!.id,
          knowledge_base_data_source_id: source.id,
          scheduled_at: schedule.next_run_at,
          status_reason: "the bucket is not readable"
        },
        parent_job_id: null,
        progress: null,
        created_at: runJob!.created_at,
        updated_at: runJob!.created_at
      }))

      // the filters: one status, Active (Pending and Running), All (every one)
      const ids = (found: ReadonlyArray<AsyncJob>) => found.map((job) => job.id)
      assert.deepStrictEqual(ids(yield* list({ status: "Completed" })), [completed.upload_id])
      assert.deepStrictEqual(ids(yield* list({ status: "Failed" })), [failed.upload_id, runJob!.id])
      assert.deepStrictEqual(ids(yield* list({ status: "Running" })), [running.id])
      assert.deepStrictEqual(ids(yield* list({ status: "Active" })), [running.id])
      assert.deepStrictEqual(ids(yield* list({ status: "Pending" })), [])
      assert.deepStrictEqual(ids(yield* list({ status: "All" })), ids(jobs))
      yield* client.knowledgeBaseUploads.cancel({ path: { knowledge_base_id, upload_id: running.id } })
      assert.deepStrictEqual(ids(yield* list({ status: "Canceled" })), [running.id])
      assert.deepStrictEqual(ids(yield* list({ status: "Active" })), [])

      // pages of a bare array
      assert.deepStrictEqual(ids(yield* list({ limit: 3, page: 1 })), ids(jobs).slice(0, 3))
      assert.deepStrictEqual(ids(yield* list({ limit: 3, page: 2 })), ids(jobs).slice(3))
      assert.deepStrictEqual(yield* list({ limit: 3, page: 3 }), [])
      const raw = yield* request("GET", `${base}/async-jobs?status=Failed`, { key })
      assert.strictEqual(raw.status, 200)
      assert.isTrue(Array.isArray(raw.body))
    }))

  it.effect("bad queries are 422 at their fields; another account's knowledge base is a 404", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const kb = yield* client.knowledgeBases.create({ payload: { knowledge_base_name: "kb", embedding_config: { type: "base" } } })
      const path = `/v4/knowledge-bases/${kb.knowledge_base_id}/async-jobs`
      const bad = yield* request("GET", `${path}?status=Done&limit=0`, { key })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad).map((issue: any) => issue.loc).sort(), [["query", "limit"], ["query", "status"]])
      const other = yield* provision()
      const foreign = yield* request("GET", path, { key: other.key })
      assert.deepStrictEqual([foreign.status, foreign.body], [404, { detail: `Knowledge base ${kb.knowledge_base_id} not found` }])
      const missing = yield* Effect.flip(other.client.knowledgeBases.listAsyncJobs({
        path: { knowledge_base_id: kb.knowledge_base_id },
        urlParams: {}
      }))
      assert.strictEqual(missing._tag, "NotFound")
    }))
})
