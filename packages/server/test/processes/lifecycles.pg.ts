/**
 * Lifecycles shared by two server processes on one PostgreSQL database (docs/engine.md "Several
 * processes on one database"): 200 fine-tuning jobs are started through both instances at once
 * (timed progression, one-second steps), one instance is killed (SIGKILL) while they run, and the
 * other completes every one of them: each job ends COMPLETED, and its log holds each of its
 * entries once (no step ran twice, none was lost with the killed process). An evaluation of 300
 * items against an upstream of the test's own runs meanwhile: it completes with every item's
 * result, each item sent at most twice (the repeats within one batch: what was in flight). So does
 * an upload of 200 files embedded by another upstream: every file's chunk once, each file embedded
 * at most twice.
 *
 * Runs under `npm run test:pg` only (the `processes-pg` project of vitest.config.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { Array as Arr, Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Pg from "pg"
import { withSearchPath } from "../../src/testDatabase.js"
import { cleanup, type ServerProcess, serverAccount, serverKey, startServer, tempDir } from "../support/processes.js"
import { uploadDatasetOverHttp } from "../support/trainingDatasets.js"
import { assertSentAtMostTwice, chatAnswer, upstream } from "../support/upstream.js"

const baseUrl = process.env.DATABASE_URL ?? ""
const onPostgres = /^postgres(ql)?:\/\//.test(baseUrl)

const jobs = 200
const epochs = 2
const items = 300
const batchSize = 64
const files = 200
const filesPerStep = 16
/** The ingestion steps an upload runs at once (knowledge-bases/uploads/workflow.ts): each may be in flight at the kill. */
const stepsAtOnce = 2

/** A pool on the database of DATABASE_URL and a new, empty schema in it, dropped with the scope. */
const emptySchema = Effect.acquireRelease(
  Effect.promise(async () => {
    const pool = new Pg.Pool({ connectionString: baseUrl, max: 2 })
    const schema = `lifecycles_${randomBytes(6).toString("hex")}`
    await pool.query(`CREATE SCHEMA ${schema}`)
    return { pool, schema, url: withSearchPath(baseUrl, schema) }
  }),
  ({ pool, schema }) => Effect.promise(() => pool.query(`DROP SCHEMA ${schema} CASCADE`).then(() => pool.end()))
)

const call = (server: ServerProcess, method: string, path: string, body?: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
      method,
      headers: { "x-api-key": serverKey, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: response.status, body: (await response.json()) as any }
  })

describe.skipIf(!onPostgres)("lifecycles on two instances of one PostgreSQL database", () => {
  it.live("200 fine-tuning jobs started through both, one instance killed half-way: the other completes each, every step once", () =>
    Effect.gen(function*() {
      const { pool, schema, url } = yield* emptySchema
      // the object store both instances read: 200 files to upload
      const store = yield* Effect.acquireRelease(Effect.sync(() => tempDir("pg-store")), (dir) => Effect.sync(() => cleanup(dir)))
      Fs.mkdirSync(Path.join(store, "docs"))
      for (let i = 0; i < files; i++) Fs.writeFileSync(Path.join(store, "docs", `doc-${i}.txt`), `document number ${i}`)
      // every instance on one database seals credential secrets with the same key
      const env = { PLATFORM_STEP_SECONDS: "1", PLATFORM_SECRET_KEY: "22".repeat(32), PLATFORM_OBJECT_STORE_ROOT: store }
      const [a, b] = yield* Effect.all(
        [0, 1].map(() =>
          Effect.acquireRelease(
            Effect.promise(() => startServer({ databaseUrl: url, env })),
            (server: ServerProcess) => Effect.promise(() => server.stop("SIGKILL"))
          )
        ),
        { concurrency: "unbounded" }
      )
      const servers = [a!, b!]

      // an evaluation running on an upstream of the test's own (4 items at once, 50 ms each: ~4 s)
      const model = yield* upstream((received) => ({ status: 200, body: chatAnswer(`echo ${received.body.messages.at(-1).content}`), delayMs: 50 }))
      const registered = yield* call(b!, "POST", "/v4/models", { name: "m", model_type: "CHAT_COMPLETION", account_id: serverAccount })
      const deployment = yield* call(b!, "POST", `/v4/models/${registered.body.id}/deployments`, {
        name: "upstream",
        model_creation_parameters: { provider: "openai_compatible", base_url: model.url, model: "upstream-model", max_concurrency: 4 }
      })
      assert.strictEqual(deployment.status, 200, JSON.stringify(deployment.body))
      for (let read = deployment.body; read.status !== "READY"; read = (yield* call(b!, "GET", `/v4/model-deployments/${deployment.body.id}`)).body) {
        yield* Effect.sleep("100 millis")
      }
      const evaluation = yield* call(b!, "POST", "/v5/evaluations", {
        name: "across processes",
        account_id: serverAccount,
        data: Array.from({ length: items }, (_, i) => ({ n: `item-${i}` })),
        tasks: [{ task_type: "chat_completion", alias: "out", configuration: { model: deployment.body.id, messages: [{ role: "user", content: "{{item.n}}" }] } }]
      })
      assert.strictEqual(evaluation.status, 200, JSON.stringify(evaluation.body))

      // an upload whose embeddings come from an upstream of the test's own (20 ms each: ~4 s)
      const embedder = yield* upstream((received) => ({
        status: 200,
        delayMs: 20,
        body: {
          object: "list",
          data: received.body.input.map((_: string, index: number) => ({ object: "embedding", index, embedding: [1, index, 0] })),
          usage: { prompt_tokens: 1, total_tokens: 1 }
        }
      }))
      const embeddingModel = yield* call(b!, "POST", "/v4/models", { name: "e", model_type: "EMBEDDING", account_id: serverAccount })
      const embeddingDeployment = yield* call(b!, "POST", `/v4/models/${embeddingModel.body.id}/deployments`, {
        name: "embeddings",
        model_creation_parameters: { provider: "openai_compatible", base_url: embedder.url, model: "emb" }
      })
      for (
        let read = embeddingDeployment.body;
        read.status !== "READY";
        read = (yield* call(b!, "GET", `/v4/model-deployments/${embeddingDeployment.body.id}`)).body
      ) {
        yield* Effect.sleep("100 millis")
      }
      const kb = yield* call(b!, "POST", "/v4/knowledge-bases", {
        knowledge_base_name: "docs",
        embedding_config: { type: "models_api", model_deployment_id: embeddingDeployment.body.id },
        account_id: serverAccount
      })
      const kbPath = `/v4/knowledge-bases/${kb.body.knowledge_base_id}`
      const upload = yield* call(b!, "POST", `${kbPath}/uploads`, {
        data_source_config: { source: "S3", s3_bucket: "docs" },
        chunking_strategy_config: { strategy: "character" }
      })
      assert.strictEqual(upload.status, 200, JSON.stringify(upload.body))

      const dataset = yield* Effect.promise(() => uploadDatasetOverHttp(b!.port, serverKey, serverAccount))
      const ids = yield* Effect.forEach(
        Arr.makeBy(jobs, (i) => i),
        (i) =>
          Effect.map(
            call(servers[i % 2]!, "POST", "/v4/fine-tuning-jobs", {
              training_dataset_id: dataset,
              account_id: serverAccount,
              vendor_configuration: { vendor: "LAUNCH", hyperparameters: { n_epochs: epochs } }
            }),
            (response) => {
              // on failure, what both instances logged (a 500 here was seen once, not reproduced since)
              if (response.status !== 200) {
                assert.fail(`${response.status} ${JSON.stringify(response.body)}\n--- a:\n${a!.output().slice(-3000)}\n--- b:\n${b!.output().slice(-3000)}`)
              }
              return response.body.id as string
            }
          ),
        { concurrency: 20 }
      )

      // one instance dies while the jobs run (each takes three one-second steps at least)
      b!.child.kill("SIGKILL")
      yield* Effect.promise(() => b!.exited)
      const unfinished = yield* Effect.promise(() =>
        pool.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${schema}.fine_tuning_jobs WHERE status IN ('PENDING', 'RUNNING')`)
      )
      assert.isAbove(Number(unfinished.rows[0]!.n), 0)

      // the survivor takes the dead one's shards over and completes every job
      // (about 20 s on a quiet machine; the PostgreSQL pass runs it beside two other test files)
      const deadline = Date.now() + 150_000
      for (;;) {
        const left = yield* Effect.promise(() =>
          pool.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${schema}.fine_tuning_jobs WHERE status <> 'COMPLETED'`)
        )
        if (Number(left.rows[0]!.n) === 0) break
        if (Date.now() >= deadline) {
          // what is left, and what the survivor said: a job left behind once (2 of 200), not reproduced
          const stuck = yield* Effect.promise(() =>
            pool.query<{ id: string; status: string }>(`SELECT id, status FROM ${schema}.fine_tuning_jobs WHERE status <> 'COMPLETED' LIMIT 5`)
          )
          const events = yield* Effect.forEach(stuck.rows, (job) => Effect.map(call(a!, "GET", `/v4/fine-tuning-jobs/${job.id}/events`), (log) => log.body))
          assert.fail(
            `${left.rows[0]!.n} jobs not completed: ${JSON.stringify(stuck.rows)}\nlogs: ${JSON.stringify(events)}\n--- a:\n${a!.output().slice(-4000)}`
          )
        }
        yield* Effect.sleep("500 millis")
      }
      const expected = [
        "Fine-tuning job created, waiting for a trainer",
        "Training started (simulated)",
        ...Arr.makeBy(epochs, (i) => `Epoch ${i + 1}/${epochs}`),
        "Training completed"
      ]
      for (const id of ids) {
        const log = yield* call(a!, "GET", `/v4/fine-tuning-jobs/${id}/events`)
        assert.deepStrictEqual(log.body.map((event: { message: string }) => event.message.split(":")[0]), expected, id)
      }
      const perJob = yield* Effect.promise(() =>
        pool.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${schema}.fine_tuning_job_events GROUP BY job_id HAVING COUNT(*) <> ${expected.length}`)
      )
      assert.strictEqual(perJob.rows.length, 0)

      // the evaluation completed too: every item's result, the repeats within one batch
      let evaluated = (yield* call(a!, "GET", `/v5/evaluations/${evaluation.body.id}`)).body
      for (const deadline = Date.now() + 60_000; evaluated.status === "running" && Date.now() < deadline;) {
        yield* Effect.sleep("200 millis")
        evaluated = (yield* call(a!, "GET", `/v5/evaluations/${evaluation.body.id}`)).body
      }
      assert.strictEqual(evaluated.status, "completed", JSON.stringify(evaluated.progress))
      assert.deepStrictEqual(evaluated.progress.items, { total: items, successful: items, failed: 0, pending: 0, failed_items: [] })
      const results = yield* Effect.promise(() =>
        pool.query<{ doc: unknown }>(`SELECT doc FROM ${schema}.evaluation_items WHERE evaluation_id = $1`, [evaluation.body.id])
      )
      assert.strictEqual(results.rows.length, items)
      assert.isTrue(results.rows.every((row) => {
        const data = (typeof row.doc === "string" ? JSON.parse(row.doc) : row.doc).data
        return data.out === `echo ${data.n}`
      }))
      assertSentAtMostTwice(model.received, items, batchSize)

      // the upload completed too: every file's chunk once, each file embedded at most twice
      let uploaded = (yield* call(a!, "GET", `${kbPath}/uploads/${upload.body.upload_id}`)).body
      for (const deadline = Date.now() + 60_000; uploaded.status === "Running" && Date.now() < deadline;) {
        yield* Effect.sleep("200 millis")
        uploaded = (yield* call(a!, "GET", `${kbPath}/uploads/${upload.body.upload_id}`)).body
      }
      assert.deepStrictEqual([uploaded.status, uploaded.status_reason], ["Completed", `${files} of ${files} artifacts completed`])
      const chunks = yield* Effect.promise(() =>
        pool.query<{ text: string }>(`SELECT text FROM ${schema}.kb_chunks WHERE knowledge_base_id = $1`, [kb.body.knowledge_base_id])
      )
      assert.deepStrictEqual(chunks.rows.map((row) => row.text).sort(), Arr.makeBy(files, (i) => `document number ${i}`).sort())
      const embedded = new Map<string, number>()
      for (const request of embedder.received) for (const text of request.body.input) embedded.set(text, (embedded.get(text) ?? 0) + 1)
      assert.strictEqual(embedded.size, files)
      const repeated = [...embedded.values()].filter((count) => count > 1)
      assert.isTrue(repeated.every((count) => count === 2) && repeated.length <= stepsAtOnce * filesPerStep, JSON.stringify(repeated))
    }).pipe(Effect.scoped), 300_000)
})
