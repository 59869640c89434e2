/**
 * The control plane (docs/control-plane.md) through HTTP: the admin key and nothing else opens
 * it; `manual` progression parks every simulated step until an advance, and the states a poller
 * sees follow the advances; fault rules fail a share of a lifecycle kind with their reason; route
 * faults answer an error status or add latency; the engine's health counts what runs and what is
 * parked; a reset empties every account's data.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer, Option, TestServices } from "effect"
import { SqlClient } from "@effect/sql"
import { type Client, makeClient } from "@platform-kit/client"
import { Controls } from "@platform-kit/schema"
import { eventually, issues, provision, request } from "../src/testing.js"
import { ParkedSteps } from "../src/engine/ParkedSteps.js"
import { storedVariant } from "./support/applications.js"
import { registerModel } from "./support/models.js"
import { serverWith } from "./support/progression.js"
import { uploadDataset } from "./support/trainingDatasets.js"

const adminKey = "admin-secret-for-tests"
const admin = { "x-admin-key": adminKey }
const live = (millis: number) => TestServices.provideLive(Effect.sleep(`${millis} millis`))

/** A call of the control plane with the admin key alone (the typed client always sends an account key too). */
const adminCall = (method: "GET" | "PATCH" | "POST", path: string, body?: unknown) =>
  Effect.map(request(method, path, { headers: admin, ...(body === undefined ? {} : { body }) }), (response) => {
    assert.strictEqual(response.status, 200, `${method} ${path}: ${JSON.stringify(response.body)}`)
    return response.body
  })

/** Reads `read` (wall time, `eventually`) until `done` holds of it, for at most 30 s; answers every distinct value seen. */
const until = <A, E, R>(read: Effect.Effect<A, E, R>, done: (value: A) => boolean, label: string) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const found = yield* eventually(Effect.map(read, (value) => {
      const text = JSON.stringify(value)
      if (seen.at(-1) !== text) seen.push(text)
      return Option.liftPredicate(value, done)
    }))
    return Option.isSome(found)
      ? { value: found.value, seen: seen.map((s) => JSON.parse(s) as A) }
      : assert.fail(`${label}: never done; saw ${seen.join(" → ")}`)
  })

type Caller = { readonly accountId: string; readonly client: Client }

const fineTuningJob = (caller: Caller, epochs: number) =>
  Effect.map(
    Effect.flatMap(uploadDataset(caller), (training_dataset_id) => caller.client.fineTuningJobs.create({
      payload: {
        training_dataset_id,
        account_id: caller.accountId,
        vendor_configuration: { vendor: "LAUNCH", hyperparameters: { n_epochs: epochs } }
      }
    })),
    (job) => job.id
  )

/** The status of a fine-tuning job, an application deployment, an agent runtime deployment or a model deployment. */
const jobStatus = (caller: Caller, id: string) =>
  Effect.map(caller.client.fineTuningJobs.get({ path: { fine_tuning_job_id: id } }), (job) => job.status)
const appStatus = (caller: Caller, id: string) =>
  Effect.map(caller.client.applications.getDeployment({ path: { application_deployment_id: id } }), (app) => app.status)
const agentStatus = (caller: Caller, id: string) =>
  Effect.map(caller.client.agentRuntime.get({ path: { deployment_id: id } }), (agent) => agent.status)
const modelStatus = (caller: Caller, id: string) =>
  Effect.map(caller.client.models.getDeployment({ path: { model_deployment_id: id } }), (deployment) => deployment.status)

const parkedSteps = Effect.map(adminCall("GET", "/admin/parked-steps"), (steps) =>
  (steps as Array<{ id: string; step: string; lifecycle: string }>).map((step) => `${step.lifecycle} ${step.id} ${step.step}`))

const configuredKey = "pk_configured_for_the_reset_test"

/** The admin key set, and a configured key (PLATFORM_API_KEY) that a reset brings back. */
const controlled = serverWith({ PLATFORM_ADMIN_KEY: adminKey, PLATFORM_API_KEY: configuredKey, PLATFORM_ACCOUNT_ID: "acct-configured" })

layer(controlled)("the control plane", (it) => {
  it.effect("the admin key opens it, no account key does; the admin key opens no account endpoint", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const controls = yield* adminCall("GET", "/admin/controls")
      // the suite's environment: immediate progression, 3 s steps, no fault rules
      assert.deepStrictEqual(controls, { progression: "immediate", step_seconds: 3, lifecycle_faults: [], route_faults: [] })

      const missing = yield* request("GET", "/admin/controls")
      assert.strictEqual(missing.status, 401)
      assert.deepStrictEqual(missing.body, { detail: "Missing admin key: send it in the x-admin-key header" })
      for (const headers of [{ "x-admin-key": "wrong" }, { "x-admin-key": caller.key }]) {
        const refused = yield* request("GET", "/admin/controls", { headers })
        assert.strictEqual(refused.status, 401)
        assert.deepStrictEqual(refused.body, { detail: "Invalid admin key" })
      }
      // an account key where account keys go is no admin key either
      assert.strictEqual((yield* request("PATCH", "/admin/controls", { key: caller.key, body: { progression: "manual" } })).status, 401)
      assert.strictEqual((yield* request("GET", "/v4/fine-tuning-jobs", { key: adminKey })).status, 401)
      assert.strictEqual((yield* request("GET", "/v4/fine-tuning-jobs", { headers: admin })).status, 401)
      // nothing changed by the refused PATCH
      assert.deepStrictEqual(yield* adminCall("GET", "/admin/controls"), controls)

      // the typed client, with the admin key: decoded controls; without it, the 401 decoded
      const typed = yield* makeClient({ apiKey: caller.key, adminKey, retry: false })
      const changed = yield* typed.admin.updateControls({ payload: { step_seconds: 7 } })
      assert.instanceOf(changed, Controls)
      assert.strictEqual(changed.step_seconds, 7)
      assert.strictEqual((yield* typed.admin.getControls()).step_seconds, 7)
      yield* typed.admin.updateControls({ payload: { step_seconds: 3 } })
      const refused = yield* Effect.flip(caller.client.admin.getControls())
      assert.strictEqual(refused._tag, "Unauthorized")
    }))

  it.effect("bad control bodies are a 422 at the field, and nothing changes", () =>
    Effect.gen(function*() {
      const before = yield* adminCall("GET", "/admin/controls")
      const bad = yield* request("PATCH", "/admin/controls", {
        headers: admin,
        body: { progression: "fast", step_seconds: 0, lifecycle_faults: [{ lifecycle: "fine_tuning_job", share: 2, reason: "x" }] }
      })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad).map((issue: { loc: unknown }) => issue.loc), [
        ["body", "progression"],
        ["body", "step_seconds"],
        ["body", "lifecycle_faults", 0, "share"]
      ])
      const twice = yield* request("PATCH", "/admin/controls", {
        headers: admin,
        body: {
          lifecycle_faults: [
            { lifecycle: "fine_tuning_job", share: 1, reason: "a" },
            { lifecycle: "fine_tuning_job", share: 0, reason: "b" }
          ]
        }
      })
      assert.strictEqual(twice.status, 422)
      assert.deepStrictEqual(yield* adminCall("GET", "/admin/controls"), before)
    }))

  it.effect("manual: each simulated step parks until advanced; a poller sees the states in order", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      yield* adminCall("PATCH", "/admin/controls", { progression: "manual" })
      const id = yield* fineTuningJob(caller, 2)
      const states: Array<string> = []
      const record = Effect.tap(jobStatus(caller, id), (status) => Effect.sync(() => states.at(-1) !== status && states.push(status)))

      for (const step of ["queue", "epoch-1", "epoch-2"]) {
        yield* until(parkedSteps, (steps) => steps.includes(`fine_tuning_job ${id} ${step}`), `parked ${step}`)
        // parked: nothing moves however long one waits
        const before = yield* record
        yield* live(300)
        assert.strictEqual(yield* record, before)
        const advanced = yield* adminCall("POST", "/admin/parked-steps/advance", { id })
        assert.deepStrictEqual(advanced.advanced.map((s: any) => [s.lifecycle, s.id, s.account_id, s.step]), [
          ["fine_tuning_job", id, caller.accountId, step]
        ])
      }
      const done = yield* until(record, (status) => status === "COMPLETED", "job")
      assert.strictEqual(done.value, "COMPLETED")
      assert.deepStrictEqual(states, ["PENDING", "RUNNING", "COMPLETED"])
      const log = yield* caller.client.fineTuningJobs.events({ path: { fine_tuning_job_id: id } })
      assert.deepStrictEqual(log.map((entry) => entry.message.split(":")[0]), [
        "Fine-tuning job created, waiting for a trainer",
        "Training started (simulated)",
        "Epoch 1/2",
        "Epoch 2/2",
        "Training completed"
      ])
      // an advance naming nothing parked advances nothing
      assert.deepStrictEqual(yield* adminCall("POST", "/admin/parked-steps/advance", { id }), { advanced: [] })
      yield* adminCall("PATCH", "/admin/controls", { progression: "immediate" })
    }))

  it.effect("manual: an advance by lifecycle kind; leaving manual lets every parked step go on", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      yield* adminCall("PATCH", "/admin/controls", { progression: "manual" })
      const { variant } = yield* storedVariant(caller.client, caller.accountId)
      const app = yield* caller.client.applications.createDeployment({
        payload: { name: "app", endpoint: "https://app.example", application_variant_id: variant, is_active: true, account_id: caller.accountId }
      })
      const agent = yield* caller.client.agentRuntime.create({ payload: { build_id: "b1" } })
      yield* until(parkedSteps, (steps) => steps.length === 2, "two parked")

      const health = yield* adminCall("GET", "/admin/engine")
      assert.strictEqual(health.status, "running")
      assert.strictEqual(health.parked, 2)
      assert.isAtLeast(health.running, 2)

      const advanced = yield* adminCall("POST", "/admin/parked-steps/advance", { lifecycle: "application_deployment" })
      assert.deepStrictEqual(advanced.advanced.map((s: any) => s.step), ["provision"])
      yield* until(appStatus(caller, app.id), (status) => status === "READY", "app")
      assert.strictEqual(yield* agentStatus(caller, agent.id), "PENDING")

      // back to immediate: the parked schedule step goes on, and the rollout runs at once
      yield* adminCall("PATCH", "/admin/controls", { progression: "immediate" })
      yield* until(agentStatus(caller, agent.id), (status) => status === "READY", "agent")
      assert.deepStrictEqual(yield* parkedSteps, [])
      const after = yield* until(adminCall("GET", "/admin/engine"), (h: any) => h.running === 0, "engine idle")
      assert.deepStrictEqual(after.value, { status: "running", running: 0, parked: 0, failed: 0 })
    }))

  it.effect("fault rules: a share of a lifecycle kind fails with the reason; share 0 fails none", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      yield* adminCall("PATCH", "/admin/controls", {
        lifecycle_faults: [
          { lifecycle: "fine_tuning_job", share: 1, reason: "GPU quota exceeded" },
          { lifecycle: "agent_runtime_deployment", share: 1, reason: "image pull failed" },
          { lifecycle: "application_deployment", share: 1, reason: "no capacity" },
          { lifecycle: "model_deployment", share: 1, reason: "no capacity" }
        ]
      })
      const id = yield* fineTuningJob(caller, 1)
      yield* until(jobStatus(caller, id), (status) => status === "FAILED", "job")
      const log = yield* caller.client.fineTuningJobs.events({ path: { fine_tuning_job_id: id } })
      assert.deepStrictEqual(log.at(-1)!.level, "error")
      assert.deepStrictEqual(log.at(-1)!.message, "Training failed: GPU quota exceeded")
      assert.strictEqual(log.length, 2)

      const agent = yield* caller.client.agentRuntime.create({ payload: { build_id: "b1" } })
      yield* until(agentStatus(caller, agent.id), (status) => status === "FAILED", "agent")
      const events = (yield* caller.client.agentRuntime.get({ path: { deployment_id: agent.id } })).deploy_events
      assert.deepStrictEqual(
        { type: events.at(-1)!.type, reason: events.at(-1)!.reason, message: events.at(-1)!.message },
        { type: "Warning", reason: "Failed", message: "image pull failed" }
      )

      const { variant } = yield* storedVariant(caller.client, caller.accountId)
      const app = yield* caller.client.applications.createDeployment({
        payload: { name: "app", endpoint: "https://app.example", application_variant_id: variant, is_active: true, account_id: caller.accountId }
      })
      yield* until(appStatus(caller, app.id), (status) => status === "FAILED", "app")
      const registered = yield* registerModel(caller)
      const model = yield* caller.client.models.createDeployment({ path: { model_instance_id: registered }, payload: { name: "m" } })
      const failedModel = yield* until(
        caller.client.models.getDeployment({ path: { model_deployment_id: model.id } }),
        (deployment) => deployment.status === "FAILED",
        "model"
      )
      assert.strictEqual(failedModel.value.model_endpoint_id, null)

      // share 0: none fails
      yield* adminCall("PATCH", "/admin/controls", { lifecycle_faults: [{ lifecycle: "fine_tuning_job", share: 0, reason: "never" }] })
      const fine = yield* fineTuningJob(caller, 1)
      yield* until(jobStatus(caller, fine), (status) => status === "COMPLETED", "job")

      // a share of one half: some fail, some complete, each as its id decides (read twice, the same)
      yield* adminCall("PATCH", "/admin/controls", { lifecycle_faults: [{ lifecycle: "fine_tuning_job", share: 0.5, reason: "flaky" }] })
      const ids = yield* Effect.forEach(Array.from({ length: 24 }), () => fineTuningJob(caller, 1))
      const ended = yield* Effect.forEach(ids, (job) =>
        Effect.map(
          until(jobStatus(caller, job), (status) => status === "FAILED" || status === "COMPLETED", job),
          (result) => result.value
        ))
      assert.include(ended, "FAILED")
      assert.include(ended, "COMPLETED")
      assert.deepStrictEqual(yield* Effect.forEach(ids, (job) => jobStatus(caller, job)), ended)
      yield* adminCall("PATCH", "/admin/controls", { lifecycle_faults: [] })
    }), { timeout: 60_000 })

  it.effect("route faults: an error status or latency on matching routes, never on the control plane; cleared, served again", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const noBoth = yield* request("PATCH", "/admin/controls", { headers: admin, body: { route_faults: [{ path_prefix: "/v4" }] } })
      assert.strictEqual(noBoth.status, 422)
      const noSlash = yield* request("PATCH", "/admin/controls", { headers: admin, body: { route_faults: [{ path_prefix: "v4", status: 500 }] } })
      assert.deepStrictEqual(issues(noSlash).map((issue: { loc: unknown }) => issue.loc), [["body", "route_faults", 0, "path_prefix"]])

      const set = yield* adminCall("PATCH", "/admin/controls", {
        route_faults: [
          { method: "GET", path_prefix: "/v4/model-groups", status: 503 },
          { path_prefix: "/v4/knowledge-bases", latency_ms: 300 },
          { path_prefix: "/v4/evaluation-configs", status: 500, share: 0 }
        ]
      })
      assert.deepStrictEqual(set.route_faults[0], { method: "GET", path_prefix: "/v4/model-groups", share: 1, status: 503 })

      const failed = yield* request("GET", "/v4/model-groups", { key: caller.key, headers: { "x-request-id": "fault-1" } })
      assert.strictEqual(failed.status, 503)
      assert.deepStrictEqual(failed.body, { detail: "Injected fault: 503 for /v4/model-groups (control plane)" })
      assert.strictEqual(failed.headers["retry-after"], "1")
      assert.strictEqual(failed.headers["x-request-id"], "fault-1")
      // the typed client reads it as the 5xx it is
      const typedFailure = yield* Effect.flip(caller.client.modelGroups.list({ urlParams: {} }))
      assert.notStrictEqual(typedFailure._tag, "ParseError")
      // another method on the same routes is served
      yield* caller.client.modelGroups.create({ payload: { name: "g", account_id: caller.accountId } })
      // latency: served, after the wait (wall time)
      const started = Date.now()
      yield* caller.client.knowledgeBases.list({ urlParams: {} })
      assert.isAtLeast(Date.now() - started, 290)
      // share 0: never; no rule, no fault
      yield* caller.client.evaluationConfigs.list({ urlParams: {} })
      yield* caller.client.fineTuningJobs.list({ urlParams: {} })
      // a rule for every route hits them all, but not the control plane
      yield* adminCall("PATCH", "/admin/controls", { route_faults: [{ path_prefix: "/", status: 418 }] })
      assert.strictEqual((yield* request("GET", "/v4/fine-tuning-jobs", { key: caller.key })).status, 418)
      assert.strictEqual((yield* request("GET", "/health")).status, 418)
      yield* adminCall("GET", "/admin/engine")

      yield* adminCall("PATCH", "/admin/controls", { route_faults: [] })
      yield* caller.client.modelGroups.list({ urlParams: {} })
      assert.strictEqual((yield* request("GET", "/health")).status, 200)
    }))

  // last of this suite: it empties the database
  it.effect("a step parks only while its entity is there: one whose entity is gone parks nothing and goes on", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const steps = yield* Effect.provide(ParkedSteps, ParkedSteps.Default)
      const step = { lifecycle: "model_deployment" as const, id: "no-such-deployment", account_id: caller.accountId, step: "provision" }
      assert.isFalse(yield* steps.park(step, "token-of-a-gone-entity"))
      assert.notInclude(yield* parkedSteps, "model_deployment no-such-deployment provision")
      // one that is there parks, once whatever the repeats
      const model = yield* registerModel(caller)
      const deployment = yield* caller.client.models.createDeployment({ path: { model_instance_id: model }, payload: { name: "d" } })
      const there = { ...step, id: deployment.id }
      assert.isTrue(yield* steps.park(there, "token-of-an-entity"))
      assert.isTrue(yield* steps.park(there, "token-of-an-entity"))
      assert.include(yield* parkedSteps, `model_deployment ${there.id} provision`)
      yield* steps.remove(["token-of-an-entity"])
    }))

  it.effect("reset empties every account's data; the admin key, the controls and the configured key stay", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      for (const caller of [alice, bob]) {
        yield* caller.client.modelGroups.create({ payload: { name: "g", account_id: caller.accountId } })
      }
      yield* adminCall("PATCH", "/admin/controls", { progression: "manual", step_seconds: 5 })
      const parked = yield* fineTuningJob(alice, 1)
      yield* until(parkedSteps, (steps) => steps.some((step) => step.includes(parked)), "parked")

      const sql = yield* SqlClient.SqlClient
      const counted = sql<{ n: number }>`SELECT COUNT(*) AS n FROM counted_document_tables`.pipe(
        Effect.map((rows) => Number(rows[0]!.n)),
        Effect.orDie
      )
      const countedBefore = yield* counted
      const reset = yield* adminCall("POST", "/admin/reset")
      assert.isAbove(reset.tables, 20)
      // what the migrations wrote about the schema stays (lists count through it)
      assert.isAbove(countedBefore, 5)
      assert.strictEqual(yield* counted, countedBefore)
      assert.isAbove(reset.deleted_rows, 6)
      // the keys went with their accounts
      for (const caller of [alice, bob]) {
        assert.strictEqual((yield* request("GET", "/v4/model-groups", { key: caller.key })).status, 401)
      }
      // the configured key (PLATFORM_API_KEY) works, on an account with nothing in it
      const configured = yield* makeClient({ apiKey: configuredKey, retry: false })
      assert.strictEqual((yield* configured.modelGroups.list({ urlParams: {} })).total_item_count, 0)
      // the control plane is as it was, with nothing parked; a new account starts empty
      assert.deepStrictEqual(yield* adminCall("GET", "/admin/controls"), {
        progression: "manual",
        step_seconds: 5,
        lifecycle_faults: [],
        route_faults: []
      })
      assert.deepStrictEqual(yield* parkedSteps, [])
      const carol = yield* provision()
      assert.strictEqual((yield* carol.client.fineTuningJobs.list({ urlParams: {} })).total_item_count, 0)
      // a second reset finds only the configured key's account and carol's
      const again = yield* adminCall("POST", "/admin/reset")
      assert.isAbove(again.deleted_rows, 0)
      assert.isBelow(again.deleted_rows, reset.deleted_rows)
      yield* adminCall("PATCH", "/admin/controls", { progression: "immediate", step_seconds: 3 })
    }))
})

layer(serverWith({
  PLATFORM_LIFECYCLE_FAULTS: JSON.stringify([{ lifecycle: "model_deployment", share: 1, reason: "set at start" }]),
  PLATFORM_ROUTE_FAULTS: JSON.stringify([{ method: "POST", path_prefix: "/v4/model-groups", status: 429 }])
}))(
  "without an admin key; fault rules from the environment",
  (it) => {
    it.effect("the control plane is off: a 404 with any key", () =>
      Effect.gen(function*() {
        const caller = yield* provision()
        for (const headers of [{}, admin, { "x-api-key": caller.key }]) {
          const response = yield* request("GET", "/admin/controls", { headers })
          assert.strictEqual(response.status, 404)
          assert.deepStrictEqual(response.body, { detail: "Not Found" })
        }
      }))

    it.effect("PLATFORM_LIFECYCLE_FAULTS and PLATFORM_ROUTE_FAULTS apply from the start", () =>
      Effect.gen(function*() {
        const caller = yield* provision()
        const limited = yield* request("POST", "/v4/model-groups", { key: caller.key, body: { name: "g", account_id: caller.accountId } })
        assert.strictEqual(limited.status, 429)
        assert.strictEqual(limited.headers["retry-after"], "1")
        const registered = yield* registerModel(caller)
        const model = yield* caller.client.models.createDeployment({ path: { model_instance_id: registered }, payload: { name: "m" } })
        yield* until(modelStatus(caller, model.id), (status) => status === "FAILED", "model")
      }))
  }
)

describe("a malformed PLATFORM_LIFECYCLE_FAULTS", () => {
  it.effect("stops the start with what is wrong", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Layer.build(serverWith({ PLATFORM_LIFECYCLE_FAULTS: "[{\"lifecycle\":\"nope\"}]" })).pipe(Effect.scoped))
      assert.isTrue(exit._tag === "Failure")
      assert.include(String(exit._tag === "Failure" ? exit.cause : ""), "PLATFORM_LIFECYCLE_FAULTS")
    }))
})
