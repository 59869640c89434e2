/**
 * Lifecycles survive kill -9 (docs/engine.md): the server is killed with SIGKILL while the
 * workflows of deployment package installs, fine-tuning jobs and application, model and agent
 * runtime deployments it accepted are under way,
 * restarted on the same SQLite file, and every job accepted before the kill reaches its end state
 * (SUCCEEDED, or FAILED with the install check's reason; COMPLETED), and stays there; each step's
 * visible effect happened once (a fine-tuning job's log has each of its entries once; an upload
 * schedule's runs are each recorded once, and it fires on after the restart); the
 * restarted server, its engine running, exits 0 on SIGTERM.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { send } from "../../src/testing/rawHttp.js"
import { cleanup, serverAccount, serverKey, startServer, tempDir } from "../support/processes.js"
import { uploadDatasetOverHttp } from "../support/trainingDatasets.js"

const jobs = 60
const trainings = 20
const epochs = 3
/**
 * Simulated steps of 2 s (timed progression, the server's default): a fine-tuning job takes at
 * least 8 s (its queue and three epochs), so the kill, a few seconds in, finds every one unfinished.
 */
const env = { PLATFORM_STEP_SECONDS: "2" }

const installPath = `/v4/deployment-packages/${serverAccount}/install_async`

describe("kill -9 while lifecycles run", () => {
  it.live("every install, fine-tuning job and deployment accepted before the kill ends after a restart, each step once, and stays ended", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("lifecycles")), (dir) => Effect.sync(() => cleanup(dir)))
      const databaseUrl = `sqlite:${dir}/platform.db`
      const headers = { "x-api-key": serverKey }

      const first = yield* Effect.promise(() => startServer({ databaseUrl, env }))
      const post = (port: number, path: string, body: unknown) =>
        Effect.promise(() => send({ port, method: "POST", path, headers, body })).pipe(
          Effect.tap((response) => assert.strictEqual(response.status, 200, response.text)),
          Effect.map((response) => response.json)
        )
      // an upload schedule firing every second from a second on: it fires before the kill and on
      // after the restart, each of its runs recorded once
      const kb = yield* post(first.port, "/v4/knowledge-bases", { knowledge_base_name: "kb", embedding_config: { type: "base" } })
      const source = yield* post(first.port, "/v4/knowledge-base-data-sources", {
        name: "docs",
        data_source_config: { source: "OBJECT_STORE", object_store_bucket: "b", cloud_region: "eu-west-1", cloud_account_id: "123456789012" }
      })
      const schedulePath = `/v4/knowledge-bases/${kb.knowledge_base_id}/upload-schedules`
      const schedule = yield* post(first.port, schedulePath, {
        knowledge_base_data_source_id: source.id,
        chunking_strategy_config: { strategy: "character" },
        interval: 1,
        next_run_at: new Date(Date.now() + 1000).toISOString()
      })
      const dataset = yield* Effect.promise(() => uploadDatasetOverHttp(first.port, serverKey, serverAccount))
      // the fine-tuning jobs are sent with the installs, while the engine loads; the kill comes
      // with the last install's answer, whatever the fine-tuning requests got by then: every job
      // stored before the kill is read back from the database
      const training = Promise.allSettled(Array.from({ length: trainings }, () =>
        send({
          port: first.port,
          method: "POST",
          path: "/v4/fine-tuning-jobs",
          headers,
          body: {
            training_dataset_id: dataset,
            account_id: serverAccount,
            vendor_configuration: { vendor: "LAUNCH", hyperparameters: { n_epochs: epochs } }
          }
        })
      ))
      const installing = Effect.promise(() =>
        Promise.all(Array.from({ length: jobs }, (_, i) =>
          send({
            port: first.port,
            method: "POST",
            path: installPath,
            headers,
            // odd jobs fail the install check: both end states are reached
            body: {
              deployment_package_id: `pkg-${i}`,
              version_constraint: { version_constraint_type: "SEMVER_MIN", minimum_version: i % 2 === 0 ? "1.2.3" : "one" }
            }
          }).then((response) => {
            assert.strictEqual(response.status, 200, response.text)
            return response.json.deployment_package_job_id as string
          })
        ))
      )
      // deployments of each kind, mid-lifecycle at the kill (steps of 2 s)
      const deployments = { application: [] as Array<string>, model: [] as Array<string>, agent: [] as Array<string> }
      // the model the model deployments are made of (a deployment names a registered model of its account)
      const model = (yield* post(first.port, "/v4/models", { name: "model", model_type: "CHAT_COMPLETION", account_id: serverAccount })).id
      // the variant the application deployments serve
      const spec = (yield* post(first.port, "/v4/application-specs", { name: "app", description: "app", account_id: serverAccount })).id
      const variant = (yield* post(first.port, "/v4/application-variants", {
        name: "v0",
        version: "V0",
        application_spec_id: spec,
        account_id: serverAccount,
        configuration: {
          nodes: [
            { id: "in", application_node_schema_id: "text_input_schema" },
            { id: "out", application_node_schema_id: "text_output_schema" }
          ],
          edges: [{ from_node: "in", from_field: "input-text", to_node: "out", to_field: "output-text" }]
        }
      })).id
      for (let i = 0; i < 5; i++) {
        deployments.application.push((yield* post(first.port, "/v4/application-deployments", {
          name: `app-${i}`,
          endpoint: "https://app.example",
          application_variant_id: variant,
          is_active: true,
          account_id: serverAccount
        })).id)
        deployments.model.push((yield* post(first.port, `/v4/models/${model}/deployments`, { name: `model-${i}` })).id)
        deployments.agent.push((yield* post(first.port, "/v5/agent-runtime/deployments", { name: `agent-${i}`, build_id: `b${i}` })).id)
      }
      const accepted = yield* installing
      first.child.kill("SIGKILL")
      assert.strictEqual((yield* Effect.promise(() => first.exited)).signal, "SIGKILL")
      yield* Effect.promise(() => training)
      // the kill came while work was under way: jobs not ended yet, as the killed process left them
      // (the last jobs accepted are still in their workflows when the last answer is out)
      const unfinished = yield* Effect.scoped(Effect.gen(function*() {
        const sql = yield* SqliteClient.make({ filename: `${dir}/platform.db` })
        const installs = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM deployment_package_jobs WHERE status IN ('PENDING', 'RUNNING')`
        const trainings = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM fine_tuning_jobs WHERE status IN ('PENDING', 'RUNNING')`
        const stored = yield* sql<{ id: string }>`SELECT id FROM fine_tuning_jobs`
        return { installs: Number(installs[0]!.n), trainings: Number(trainings[0]!.n), trained: stored.map((row) => row.id) }
      })).pipe(Effect.provide(Reactivity.layer), Effect.orDie)
      assert.isAbove(unfinished.installs, 0)
      assert.isAbove(unfinished.trainings, 0)

      const second = yield* Effect.acquireRelease(
        Effect.promise(() => startServer({ databaseUrl, env })),
        (server) => Effect.promise(() => server.stop("SIGTERM"))
      )
      const read = (id: string) =>
        Effect.promise(() => send({ port: second.port, method: "GET", path: `${installPath}/${id}`, headers }))
      /** The job once it has ended, read every 50 ms for at most 30 s. */
      const untilEnded = (id: string) =>
        Effect.gen(function*() {
          for (let attempt = 0; attempt < 600; attempt++) {
            const job = (yield* read(id)).json
            if (job.status === "SUCCEEDED" || job.status === "FAILED") return job
            yield* Effect.sleep("50 millis")
          }
          return assert.fail(`job ${id} did not end`)
        })
      const ended = yield* Effect.forEach(accepted, untilEnded)
      ended.forEach((job, i) => {
        const installable = Number(job.deployment_package_id.slice("pkg-".length)) % 2 === 0
        assert.strictEqual(job.status, installable ? "SUCCEEDED" : "FAILED", job.id)
        assert.strictEqual(job.status_reason === null, installable, job.id)
        assert.strictEqual(job.id, accepted[i])
      })
      // read again a moment later: nothing moves an ended job
      yield* Effect.sleep("500 millis")
      const again = yield* Effect.forEach(accepted, (id) => Effect.map(read(id), (response) => response.json))
      assert.deepStrictEqual(again, ended)

      // every fine-tuning job completes, each entry of its log written once
      const getJson = (path: string) =>
        Effect.map(Effect.promise(() => send({ port: second.port, method: "GET", path, headers })), (response) => response.json)
      for (const id of unfinished.trained) {
        let job = yield* getJson(`/v4/fine-tuning-jobs/${id}`)
        for (let attempt = 0; attempt < 600 && job.status !== "COMPLETED"; attempt++) {
          yield* Effect.sleep("50 millis")
          job = yield* getJson(`/v4/fine-tuning-jobs/${id}`)
        }
        assert.strictEqual(job.status, "COMPLETED", id)
        const log: Array<{ message: string }> = yield* getJson(`/v4/fine-tuning-jobs/${id}/events`)
        assert.deepStrictEqual(log.map((event) => event.message.split(":")[0]), [
          "Fine-tuning job created, waiting for a trainer",
          "Training started (simulated)",
          ...Array.from({ length: epochs }, (_, i) => `Epoch ${i + 1}/${epochs}`),
          "Training completed"
        ], id)
      }

      // every deployment READY, each of its steps once (an agent's deploy events each once)
      const readyOf = (path: string) =>
        Effect.gen(function*() {
          let body = yield* getJson(path)
          for (let attempt = 0; attempt < 600 && body.status !== "READY"; attempt++) {
            yield* Effect.sleep("50 millis")
            body = yield* getJson(path)
          }
          assert.strictEqual(body.status, "READY", path)
          return body
        })
      for (const id of deployments.application) yield* readyOf(`/v4/application-deployments/${id}`)
      for (const id of deployments.model) assert.isString((yield* readyOf(`/v4/model-deployments/${id}`)).model_endpoint_id)
      for (const id of deployments.agent) {
        const agent = yield* readyOf(`/v5/agent-runtime/deployments/${id}`)
        assert.deepStrictEqual(agent.deploy_events.map((event: { reason: string }) => event.reason), ["Created", "Deploying", "Ready"], id)
      }

      // the schedule fired on after the restart; no run is recorded twice, every run falls on the
      // schedule's grid (runs missed while the server was down are not replayed)
      const runsOf = Effect.map(
        getJson(`${schedulePath}/${schedule.id}/runs?limit=1000`),
        (page) => page.items as Array<{ scheduled_at: string; status: string }>
      )
      const restartedAt = Date.now()
      let runs = yield* runsOf
      for (let attempt = 0; attempt < 600 && !runs.some((run) => Date.parse(run.scheduled_at) > restartedAt); attempt++) {
        yield* Effect.sleep("100 millis")
        runs = yield* runsOf
      }
      assert.isTrue(runs.some((run) => Date.parse(run.scheduled_at) > restartedAt), JSON.stringify(runs))
      const due = runs.map((run) => Date.parse(run.scheduled_at))
      assert.strictEqual(new Set(due).size, due.length, JSON.stringify(runs))
      const firstDue = Date.parse(schedule.next_run_at)
      for (const at of due) assert.strictEqual((at - firstDue) % 1000, 0, JSON.stringify(runs))
      assert.isTrue(runs.every((run) => run.status === "COMPLETED"))

      const stopped = yield* Effect.promise(() => second.stop("SIGTERM"))
      assert.strictEqual(stopped.code, 0, second.output())
    }).pipe(Effect.scoped), 120_000)
})

describe("kill -9 while steps are parked (manual progression)", () => {
  it.live("a parked step stays parked across the restart; advanced then, the job completes with each log entry once", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("parked")), (dir) => Effect.sync(() => cleanup(dir)))
      const databaseUrl = `sqlite:${dir}/platform.db`
      const adminKey = "admin-key-for-the-restart-test"
      const manual = { PLATFORM_PROGRESSION: "manual", PLATFORM_ADMIN_KEY: adminKey }
      const call = (port: number, method: "GET" | "POST", path: string, body?: unknown) =>
        Effect.promise(() =>
          send({
            port,
            method,
            path,
            headers: path.startsWith("/admin/") ? { "x-admin-key": adminKey } : { "x-api-key": serverKey },
            ...(body === undefined ? {} : { body })
          })
        ).pipe(
          Effect.tap((response) => assert.strictEqual(response.status, 200, response.text)),
          Effect.map((response) => response.json)
        )
      /** The parked steps, read every 50 ms until `done` holds of them (at most 40 s: a restarted engine takes its shards over first). */
      const parkedUntil = (port: number, done: (steps: Array<{ id: string; step: string }>) => boolean) =>
        Effect.gen(function*() {
          for (let attempt = 0; attempt < 800; attempt++) {
            const steps = yield* call(port, "GET", "/admin/parked-steps")
            if (done(steps)) return steps
            yield* Effect.sleep("50 millis")
          }
          return assert.fail("the parked steps never got there")
        })

      const first = yield* Effect.promise(() => startServer({ databaseUrl, env: manual }))
      const job = yield* call(first.port, "POST", "/v4/fine-tuning-jobs", {
        training_dataset_id: yield* Effect.promise(() => uploadDatasetOverHttp(first.port, serverKey, serverAccount)),
        account_id: serverAccount,
        vendor_configuration: { vendor: "LAUNCH", hyperparameters: { n_epochs: 2 } }
      })
      yield* parkedUntil(first.port, (steps) => steps.some((s) => s.id === job.id && s.step === "queue"))
      yield* call(first.port, "POST", "/admin/parked-steps/advance", { id: job.id })
      yield* parkedUntil(first.port, (steps) => steps.some((s) => s.id === job.id && s.step === "epoch-1"))
      first.child.kill("SIGKILL")
      yield* Effect.promise(() => first.exited)

      const second = yield* Effect.acquireRelease(
        Effect.promise(() => startServer({ databaseUrl, env: manual })),
        (server) => Effect.promise(() => server.stop("SIGTERM"))
      )
      // still parked, still RUNNING after its first step
      assert.deepStrictEqual((yield* parkedUntil(second.port, () => true)).map((s: { step: string }) => s.step), ["epoch-1"])
      assert.strictEqual((yield* call(second.port, "GET", `/v4/fine-tuning-jobs/${job.id}`)).status, "RUNNING")
      for (const step of ["epoch-1", "epoch-2"]) {
        yield* parkedUntil(second.port, (steps) => steps.some((s) => s.id === job.id && s.step === step))
        yield* call(second.port, "POST", "/admin/parked-steps/advance", {})
      }
      let status = ""
      for (let attempt = 0; attempt < 800 && status !== "COMPLETED"; attempt++) {
        yield* Effect.sleep("50 millis")
        status = (yield* call(second.port, "GET", `/v4/fine-tuning-jobs/${job.id}`)).status
      }
      assert.strictEqual(status, "COMPLETED")
      const log: Array<{ message: string }> = yield* call(second.port, "GET", `/v4/fine-tuning-jobs/${job.id}/events`)
      assert.deepStrictEqual(log.map((entry) => entry.message.split(":")[0]), [
        "Fine-tuning job created, waiting for a trainer",
        "Training started (simulated)",
        "Epoch 1/2",
        "Epoch 2/2",
        "Training completed"
      ])
      const stopped = yield* Effect.promise(() => second.stop("SIGTERM"))
      assert.strictEqual(stopped.code, 0, second.output())
    }).pipe(Effect.scoped), 120_000)
})
