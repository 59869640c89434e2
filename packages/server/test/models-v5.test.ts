/**
 * v5 models (`/v5/models`, docs/models.md "v5 models"): create answers `deploying`, the lifecycle
 * makes it `ready` (or `failed` by a fault rule); names unique per vendor per account, `on_conflict`
 * update and swap; a deploying model can be neither updated nor deleted; delete is hard; the
 * cursor list with its filters and sorts.
 */
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import type { Client } from "@platform-kit/client"
import type { InferenceModel, InferenceModelStatus } from "@platform-kit/schema"
import { Effect, Option, TestClock } from "effect"
import { eventually, issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"
import { serverWith } from "./support/progression.js"

type Caller = { readonly accountId: string; readonly key: string; readonly client: Client }

const launchConfiguration = {
  model_image: { command: ["python", "serve.py"], registry: "registry.example", repository: "team/model", tag: "v1" },
  model_infra: { gpus: 1, gpu_type: "nvidia-ampere-a10" as const, min_workers: 0, max_workers: 2 }
}

const modelKeys = [
  "created_at",
  "created_by_identity_type",
  "created_by_user_id",
  "id",
  "model_availability",
  "model_metadata",
  "model_type",
  "model_vendor",
  "name",
  "object",
  "status",
  "vendor_configuration"
]

const get = (caller: Caller, id: string) => caller.client.modelsV5.get({ path: { inference_model_id: id } })

/** The statuses a poller of model `id` sees, each change once, until it is no longer deploying (10 s at most). */
const pollUntilSettled = (caller: Caller, id: string) =>
  Effect.gen(function*() {
    const seen: Array<{ status: InferenceModelStatus; at: number }> = []
    const started = Date.now()
    const settled = yield* eventually(
      Effect.map(get(caller, id), (model) => {
        if (seen.at(-1)?.status !== model.status) seen.push({ status: model.status, at: Date.now() - started })
        return Option.liftPredicate(model, (read) => read.status !== "deploying")
      }),
      10_000
    )
    return { model: Option.isSome(settled) ? settled.value : assert.fail(`model ${id} stayed deploying`), seen }
  })

const settledOf = (caller: Caller, id: string) => Effect.map(pollUntilSettled(caller, id), (polled) => polled.model)

const llmEngine = (caller: Caller, name: string, extra: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const created = yield* caller.client.modelsV5.create({
      payload: { name, vendor_configuration: { model: "llama-3-8b" }, ...extra }
    })
    return yield* settledOf(caller, created.id)
  })

const storedRow = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ status: string; name: string; deploy_run: number }>`SELECT status, name, deploy_run FROM inference_models WHERE id = ${id}`)

const countOf = (accountId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`SELECT COUNT(*) AS n FROM inference_models WHERE account_id = ${accountId}`).pipe(
    Effect.map((rows) => Number(rows[0]!.n))
  )

layer(TestServerLive)("v5 models", (it) => {
  it.effect("create answers a deploying model with every field; its lifecycle makes it ready; get and list read it back", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const response = yield* request("POST", "/v5/models", {
        key: caller.key,
        body: {
          name: "llama",
          model_vendor: "llmengine",
          vendor_configuration: { model: "llama-3-8b", num_shards: 2, custom_flag: "kept" },
          model_metadata: { team: "search" }
        }
      })
      assert.strictEqual(response.status, 200, JSON.stringify(response.body))
      const created = response.body
      assert.deepStrictEqual(Object.keys(created).sort(), modelKeys)
      assert.match(created.id, uuid)
      assert.deepStrictEqual(
        { ...created, id: "" },
        {
          id: "",
          created_at: "1970-01-01T00:00:00.000Z",
          created_by_identity_type: "user",
          created_by_user_id: caller.identityId,
          model_type: "chat_completion",
          model_vendor: "llmengine",
          name: "llama",
          status: "deploying",
          model_availability: "unknown",
          model_metadata: { team: "search" },
          vendor_configuration: { model: "llama-3-8b", num_shards: 2, custom_flag: "kept" },
          object: "model"
        }
      )
      const ready = yield* settledOf(caller, created.id)
      assert.strictEqual(ready.status, "ready")
      assert.strictEqual(ready.model_availability, "available")
      assert.deepStrictEqual(ready.vendor_configuration, created.vendor_configuration)
      assert.deepStrictEqual((yield* storedRow(created.id))[0], { status: "ready", name: "llama", deploy_run: 0 })
      const page = yield* caller.client.modelsV5.list({ urlParams: {} })
      assert.deepStrictEqual(page, { items: [ready], total: 1, has_more: false, limit: 100, object: "list" })
    }))

  it.effect("a Launch body without model_vendor is a launch model (generic); other vendors and bad bodies are 422, nothing stored", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const launch = yield* request("POST", "/v5/models", { key: caller.key, body: { name: "img", vendor_configuration: launchConfiguration } })
      assert.strictEqual(launch.status, 200, JSON.stringify(launch.body))
      assert.strictEqual(launch.body.model_vendor, "launch")
      assert.strictEqual(launch.body.model_type, "generic")
      assert.deepStrictEqual(launch.body.vendor_configuration, launchConfiguration)
      yield* settledOf(caller, launch.body.id)
      // an LLM Engine configuration keeps every key, even those a Launch one has
      const both = { model: "m", ...launchConfiguration }
      const engine = yield* caller.client.modelsV5.create({ payload: { name: "img", model_vendor: "llmengine", vendor_configuration: both } })
      assert.deepStrictEqual((yield* settledOf(caller, engine.id)).vendor_configuration, both)

      const openai = yield* request("POST", "/v5/models", {
        key: caller.key,
        body: { name: "gpt", model_vendor: "openai", vendor_configuration: { model: "gpt-4o" } }
      })
      assert.strictEqual(openai.status, 422)
      assert.include(issues(openai).map((issue: any) => issue.loc.join(".")), "body.model_vendor")
      const noConfiguration = yield* request("POST", "/v5/models", { key: caller.key, body: { name: "bare" } })
      assert.strictEqual(noConfiguration.status, 422)
      assert.include(issues(noConfiguration).map((issue: any) => issue.loc.join(".")), "body.vendor_configuration")
      const badImage = yield* request("POST", "/v5/models", {
        key: caller.key,
        body: { name: "img2", model_vendor: "launch", vendor_configuration: { model_image: { command: "x" }, model_infra: {} } }
      })
      assert.strictEqual(badImage.status, 422)
      const emptyName = yield* request("POST", "/v5/models", { key: caller.key, body: { name: "", vendor_configuration: { model: "m" } } })
      assert.strictEqual(emptyName.status, 422)
      assert.strictEqual(yield* countOf(caller.accountId), 2)
    }))

  it.effect("names are unique per vendor per account: 409, unless on_conflict update (the same model, deployed again)", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const first = yield* llmEngine(caller, "shared", { model_metadata: { v: 1 } })
      const taken = yield* Effect.flip(caller.client.modelsV5.create({ payload: { name: "shared", vendor_configuration: { model: "x" } } }))
      assert.strictEqual(taken._tag, "Conflict")
      // another vendor, another account: no conflict
      const launch = yield* caller.client.modelsV5.create({ payload: { name: "shared", vendor_configuration: launchConfiguration } })
      assert.strictEqual(launch.model_vendor, "launch")
      yield* settledOf(caller, launch.id)
      yield* llmEngine(other, "shared")

      const updated = yield* caller.client.modelsV5.create({
        payload: { name: "shared", vendor_configuration: { model: "llama-3-70b" }, on_conflict: "update" }
      })
      assert.strictEqual(updated.id, first.id)
      assert.strictEqual(updated.status, "deploying")
      assert.deepStrictEqual(updated.vendor_configuration, { model: "llama-3-70b" })
      assert.deepStrictEqual(updated.model_metadata, { v: 1 })
      assert.strictEqual(updated.created_at, first.created_at)
      const redeployed = yield* settledOf(caller, first.id)
      assert.strictEqual(redeployed.status, "ready")
      assert.deepStrictEqual((yield* storedRow(first.id))[0]!.deploy_run, 1)
      assert.strictEqual(yield* countOf(caller.accountId), 2)
    }))

  it.effect("update: metadata and name apply at once; a vendor configuration is merged and deploys again; a bad one is a 422", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const created = yield* caller.client.modelsV5.create({ payload: { name: "img", vendor_configuration: launchConfiguration } })
      const model = yield* settledOf(caller, created.id)
      const update = (payload: Parameters<typeof caller.client.modelsV5.update>[0]["payload"]) =>
        caller.client.modelsV5.update({ path: { inference_model_id: model.id }, payload })

      const renamed = yield* update({ name: "img-renamed", model_metadata: { owner: "ml" } })
      assert.deepStrictEqual(renamed, { ...model, name: "img-renamed", model_metadata: { owner: "ml" } } as InferenceModel)

      const redeploying = yield* update({ vendor_configuration: { model_infra: { max_workers: 8 }, model_image: { tag: "v2" } } })
      assert.strictEqual(redeploying.status, "deploying")
      assert.deepStrictEqual(redeploying.vendor_configuration, {
        model_image: { ...launchConfiguration.model_image, tag: "v2" },
        model_infra: { ...launchConfiguration.model_infra, max_workers: 8 }
      })
      const ready = yield* settledOf(caller, model.id)
      assert.strictEqual(ready.status, "ready")

      const bad = yield* request("PATCH", `/v5/models/${model.id}`, {
        key: caller.key,
        body: { vendor_configuration: { model_infra: { gpus: "many" } } }
      })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad).map((issue: any) => issue.loc), [["body", "vendor_configuration", "model_infra", "gpus"]])
      assert.deepStrictEqual(yield* get(caller, model.id), ready)
    }))

  it.effect("rename onto a taken name: 409; with on_conflict swap the two models exchange names", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const a = yield* llmEngine(caller, "alpha")
      const b = yield* llmEngine(caller, "beta")
      const refused = yield* Effect.flip(caller.client.modelsV5.update({ path: { inference_model_id: a.id }, payload: { name: "beta" } }))
      assert.strictEqual(refused._tag, "Conflict")
      const swapped = yield* caller.client.modelsV5.update({ path: { inference_model_id: a.id }, payload: { name: "beta", on_conflict: "swap" } })
      assert.strictEqual(swapped.name, "beta")
      assert.strictEqual((yield* get(caller, b.id)).name, "alpha")
      assert.strictEqual((yield* get(caller, b.id)).status, "ready")
      // a model of the same name under another vendor does not stand in the way
      const launch = yield* caller.client.modelsV5.create({ payload: { name: "gamma", vendor_configuration: launchConfiguration } })
      yield* settledOf(caller, launch.id)
      const toGamma = yield* caller.client.modelsV5.update({ path: { inference_model_id: a.id }, payload: { name: "gamma" } })
      assert.strictEqual(toGamma.name, "gamma")
    }))

  it.effect("delete is hard: {id, deleted, object}; then 404; another account's model is a 404 to every call", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const stranger = yield* provision()
      const model = yield* llmEngine(caller, "doomed")
      assert.strictEqual((yield* Effect.flip(get(stranger, model.id)))._tag, "NotFound")
      const path = { inference_model_id: model.id }
      assert.strictEqual((yield* Effect.flip(stranger.client.modelsV5.update({ path, payload: { model_metadata: {} } })))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(stranger.client.modelsV5.delete({ path })))._tag, "NotFound")
      const deleted = yield* caller.client.modelsV5.delete({ path: { inference_model_id: model.id } })
      assert.deepStrictEqual({ ...deleted }, { id: model.id, deleted: true, object: "model" })
      assert.strictEqual((yield* Effect.flip(get(caller, model.id)))._tag, "NotFound")
      assert.strictEqual(yield* countOf(caller.accountId), 0)
      // the name is free again
      yield* llmEngine(caller, "doomed")
    }))

  it.effect("list: model_vendor and name filters, sort_by and sort_order, cursor pages with total and has_more", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      for (const name of ["Charlie", "alpha", "bravo"]) {
        yield* llmEngine(caller, name)
        yield* TestClock.adjust("1 millis")
      }
      const launch = yield* caller.client.modelsV5.create({ payload: { name: "delta-img", vendor_configuration: launchConfiguration } })
      yield* settledOf(caller, launch.id)
      const names = (page: { readonly items: ReadonlyArray<InferenceModel> }) => page.items.map((model) => model.name)
      const list = (urlParams: Parameters<typeof caller.client.modelsV5.list>[0]["urlParams"]) => caller.client.modelsV5.list({ urlParams })

      assert.deepStrictEqual(names(yield* list({})), ["delta-img", "bravo", "alpha", "Charlie"])
      assert.deepStrictEqual(names(yield* list({ model_vendor: "llmengine" })), ["bravo", "alpha", "Charlie"])
      assert.deepStrictEqual(names(yield* list({ model_vendor: "openai" })), [])
      assert.deepStrictEqual(names(yield* list({ name: "ALP" })), ["alpha"])
      assert.deepStrictEqual(names(yield* list({ sort_by: "name", sort_order: "asc" })), ["Charlie", "alpha", "bravo", "delta-img"])
      assert.deepStrictEqual(names(yield* list({ sort_by: "model_vendor", sort_order: "asc", limit: 1 })), ["delta-img"])

      const first = yield* list({ limit: 2, sort_order: "asc" })
      assert.deepStrictEqual({ names: names(first), total: first.total, has_more: first.has_more }, {
        names: ["Charlie", "alpha"],
        total: 4,
        has_more: true
      })
      const second = yield* list({ limit: 2, sort_order: "asc", starting_after: first.items[1]!.id })
      assert.deepStrictEqual({ names: names(second), has_more: second.has_more }, { names: ["bravo", "delta-img"], has_more: false })
      const back = yield* list({ limit: 2, sort_order: "asc", ending_before: second.items[0]!.id })
      assert.deepStrictEqual(names(back), ["Charlie", "alpha"])

      const unknownCursor = yield* request("GET", "/v5/models?starting_after=nope", { key: caller.key })
      assert.strictEqual(unknownCursor.status, 422)
      const badSort = yield* request("GET", "/v5/models?sort_by=vendor_configuration", { key: caller.key })
      assert.deepStrictEqual(issues(badSort).map((issue: any) => issue.loc), [["query", "sort_by"]])
    }))
})

const adminKey = "admin-secret-for-v5-models"

const admin = (method: "PATCH" | "POST" | "GET", path: string, body?: unknown) =>
  Effect.map(request(method, path, { headers: { "x-admin-key": adminKey }, ...(body === undefined ? {} : { body }) }), (response) => {
    assert.strictEqual(response.status, 200, JSON.stringify(response.body))
    return response.body
  })

layer(serverWith({ PLATFORM_ADMIN_KEY: adminKey }))("v5 model lifecycle, as the control plane sets it", (it) => {
  it.effect("timed progression: a poller sees deploying for the simulated step, then ready", () =>
    Effect.gen(function*() {
      yield* admin("PATCH", "/admin/controls", { progression: "timed", step_seconds: 0.5 })
      const caller = yield* provision()
      const created = yield* caller.client.modelsV5.create({ payload: { name: "timed", vendor_configuration: { model: "m" } } })
      assert.strictEqual(created.status, "deploying")
      const { model, seen } = yield* pollUntilSettled(caller, created.id)
      assert.deepStrictEqual(seen.map((s) => s.status), ["deploying", "ready"])
      assert.isAtLeast(seen[1]!.at, 450)
      assert.strictEqual(model.model_availability, "available")
    }))

  it.effect("manual progression: update and delete are 409 until the step is advanced; a fault rule makes it failed, which can deploy again", () =>
    Effect.gen(function*() {
      yield* admin("PATCH", "/admin/controls", { progression: "manual" })
      const caller = yield* provision()
      const created = yield* caller.client.modelsV5.create({ payload: { name: "parked", vendor_configuration: { model: "m" } } })
      const parked = yield* eventually(
        Effect.map(admin("GET", "/admin/parked-steps"), (steps: Array<any>) =>
          Option.liftPredicate(steps.filter((step) => step.id === created.id), (found) => found.length > 0)),
        10_000
      )
      assert.deepStrictEqual(Option.map(parked, (steps) => steps.map((step) => `${step.lifecycle} ${step.step}`)), Option.some(["inference_model provision"]))
      const update = yield* Effect.flip(caller.client.modelsV5.update({ path: { inference_model_id: created.id }, payload: { model_metadata: { a: 1 } } }))
      assert.strictEqual(update._tag, "Conflict")
      const remove = yield* Effect.flip(caller.client.modelsV5.delete({ path: { inference_model_id: created.id } }))
      assert.strictEqual(remove._tag, "Conflict")
      const conflictUpdate = yield* Effect.flip(caller.client.modelsV5.create({
        payload: { name: "parked", vendor_configuration: { model: "n" }, on_conflict: "update" }
      }))
      assert.strictEqual(conflictUpdate._tag, "Conflict")
      assert.deepStrictEqual(yield* get(caller, created.id), created)

      yield* admin("POST", "/admin/parked-steps/advance", { lifecycle: "inference_model", id: created.id })
      assert.strictEqual((yield* settledOf(caller, created.id)).status, "ready")

      // a fault rule: the next deployment fails (and says so in its availability); a failed model can be deleted
      yield* admin("PATCH", "/admin/controls", {
        progression: "immediate",
        lifecycle_faults: [{ lifecycle: "inference_model", share: 1, reason: "no capacity" }]
      })
      const redeploy = yield* caller.client.modelsV5.update({
        path: { inference_model_id: created.id },
        payload: { vendor_configuration: { model: "bigger" } }
      })
      assert.strictEqual(redeploy.status, "deploying")
      const failed = yield* settledOf(caller, created.id)
      assert.deepStrictEqual({ status: failed.status, availability: failed.model_availability }, { status: "failed", availability: "unavailable" })
      yield* admin("PATCH", "/admin/controls", { lifecycle_faults: [] })
      const again = yield* caller.client.modelsV5.update({ path: { inference_model_id: created.id }, payload: { vendor_configuration: { model: "smaller" } } })
      assert.strictEqual(again.status, "deploying")
      assert.strictEqual((yield* settledOf(caller, created.id)).status, "ready")
      const deleted = yield* caller.client.modelsV5.delete({ path: { inference_model_id: created.id } })
      assert.isTrue(deleted.deleted)
    }), { timeout: 30_000 })
})
