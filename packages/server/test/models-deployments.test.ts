import { assert, layer } from "@effect/vitest"
import { ModelDeployment, ModelDeploymentSortFields, type ModelDeploymentSortKey } from "@platform-kit/schema"
import { Effect, Option, TestClock } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { ModelDeploymentsRepo } from "../src/models/deployments/ModelDeploymentsRepo.js"
import { eventually, issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"
import { registerModel, registerModels } from "./support/models.js"
import { timedServer } from "./support/progression.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

/** Sets a deployment's state (status, endpoint) straight in the store, as the sort tests need it. */
const setState = (deployment: ModelDeployment, state: { status?: string; model_endpoint_id?: string | null }) =>
  Effect.gen(function*() {
    const repo = yield* ModelDeploymentsRepo
    return yield* repo.update(new ModelDeployment({ ...deployment, ...state }))
  }).pipe(Effect.provide(ModelDeploymentsRepo.Default))

const getDeployment = (caller: Caller, id: string) => caller.client.models.getDeployment({ path: { model_deployment_id: id } })

/** The deployment `id` once its lifecycle has moved it on from PENDING (models/workflow.ts; `eventually`, 10 s at most). */
const settledOf = (caller: Caller, id: string) =>
  Effect.gen(function*() {
    const settled = yield* eventually(
      Effect.map(getDeployment(caller, id), Option.liftPredicate((read) => read.status !== "PENDING")),
      10_000
    )
    return Option.isSome(settled) ? settled.value : assert.fail(`deployment ${id} stayed PENDING`)
  })

/** Each caller's default model (registered on its first use), the one `deploy` makes deployments of unless told. */
const defaultModels = new Map<string, string>()

const defaultModelOf = (caller: Caller) =>
  Effect.gen(function*() {
    const known = defaultModels.get(caller.key)
    if (known !== undefined) return known
    const id = yield* registerModel(caller)
    defaultModels.set(caller.key, id)
    return id
  })

/**
 * Creates a deployment of model `instance` (by default the caller's default model) named `name`
 * (as raw JSON, so `extra` may leave out what the server defaults), waits for its lifecycle to
 * end, puts it back as created (PENDING, no endpoint: the sort tests set statuses and endpoints
 * themselves), then moves the clock so creates are ordered.
 */
const deploy = (caller: Caller, name: string, instance?: string, extra: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const model = instance ?? (yield* defaultModelOf(caller))
    const response = yield* request("POST", `/v4/models/${model}/deployments`, {
      key: caller.key,
      body: { name, ...extra }
    })
    assert.strictEqual(response.status, 200, JSON.stringify(response.body))
    const settled = yield* settledOf(caller, response.body.id)
    yield* TestClock.adjust("1 millis")
    return yield* setState(settled, { status: "PENDING", model_endpoint_id: null })
  })

const names = (page: { readonly items: ReadonlyArray<{ readonly name: string }> }) => page.items.map((d) => d.name)

/** A raw list, for query strings the typed client does not write (comma-joined keys, an empty `sort_by`, repeated by hand). */
const list = (caller: Caller, query: string) =>
  Effect.gen(function*() {
    const response = yield* request("GET", `/v4/model-deployments${query}`, { key: caller.key })
    assert.strictEqual(response.status, 200, JSON.stringify(response.body))
    return response.body as { items: Array<any>; total_item_count: number; current_page: number; items_per_page: number }
  })

/** The list sorted by `sort_by`, applied in order. */
const sorted = (caller: Caller, ...sort_by: Array<ModelDeploymentSortKey>) =>
  caller.client.models.listDeployments({ urlParams: { sort_by } })

layer(TestServerLive)("model deployments", (it) => {
  it.effect("create answers every field of a model deployment; get, nested get and both lists read it back", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const model = yield* registerModel(caller)
      const created = yield* caller.client.models.createDeployment({
        path: { model_instance_id: model },
        payload: {
          name: "llama prod",
          account_id: caller.accountId,
          model_creation_parameters: { temperature: 0.2, stop: ["###"] },
          deployment_metadata: { team: "search" },
          vendor_configuration: { min_workers: 1, max_workers: 4, per_worker: 8, vendor: "LAUNCH" }
        }
      })
      assert.match(created.id, uuid)
      assert.strictEqual(created.name, "llama prod")
      assert.strictEqual(created.status, "PENDING")
      assert.deepStrictEqual(created.model_creation_parameters, { temperature: 0.2, stop: ["###"] })
      assert.strictEqual(created.model_endpoint_id, null)
      assert.strictEqual(created.model_instance_id, model)
      assert.deepStrictEqual(created.deployment_metadata, { team: "search" })
      assert.deepStrictEqual(
        { ...created.vendor_configuration },
        { min_workers: 1, max_workers: 4, per_worker: 8, vendor: "LAUNCH" }
      )
      assert.strictEqual(created.account_id, caller.accountId)
      assert.strictEqual(created.created_by_user_id, caller.identityId)
      assert.strictEqual(created.created_by_identity_type, "user")
      assert.strictEqual(created.created_at, "1970-01-01T00:00:00.000Z")

      const raw = yield* request("GET", `/v4/model-deployments/${created.id}`, { key: caller.key })
      assert.strictEqual(raw.status, 200)
      assert.deepStrictEqual(Object.keys(raw.body).sort(), [
        "account_id",
        "created_at",
        "created_by_identity_type",
        "created_by_user_id",
        "deployment_metadata",
        "id",
        "model_creation_parameters",
        "model_endpoint_id",
        "model_instance_id",
        "name",
        "status",
        "vendor_configuration"
      ])

      // its lifecycle: READY, with an endpoint of its own; nothing else changes
      const settled = yield* settledOf(caller, created.id)
      assert.strictEqual(settled.status, "READY")
      assert.match(settled.model_endpoint_id!, uuid)
      assert.deepStrictEqual(new ModelDeployment({ ...settled, status: "PENDING", model_endpoint_id: null }), created)

      const read = yield* caller.client.models.getDeployment({ path: { model_deployment_id: created.id } })
      assert.deepStrictEqual(read, settled)
      const nested = yield* caller.client.models.getInstanceDeployment({
        path: { model_instance_id: model, model_deployment_id: created.id }
      })
      assert.deepStrictEqual(nested, settled)
      const page = yield* caller.client.models.listDeployments({ urlParams: {} })
      assert.deepStrictEqual(page, { items: [settled], total_item_count: 1, current_page: 1, items_per_page: 100 })
      const ofInstance = yield* caller.client.models.listInstanceDeployments({
        path: { model_instance_id: model },
        urlParams: {}
      })
      assert.deepStrictEqual(ofInstance.items, [settled])
    }))

  it.effect("optional fields: absent objects are null, vendor_configuration fields default, account from the key", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const model = yield* registerModel(caller)
      const bare = yield* request("POST", `/v4/models/${model}/deployments`, { key: caller.key, body: { name: "bare" } })
      assert.strictEqual(bare.status, 200)
      assert.strictEqual(bare.body.model_creation_parameters, null)
      assert.strictEqual(bare.body.deployment_metadata, null)
      assert.strictEqual(bare.body.vendor_configuration, null)
      assert.strictEqual(bare.body.model_endpoint_id, null)
      assert.strictEqual(bare.body.account_id, caller.accountId)

      const nulls = yield* request("POST", `/v4/models/${model}/deployments`, {
        key: caller.key,
        body: { name: "nulls", model_creation_parameters: null, deployment_metadata: null, vendor_configuration: null, account_id: null, extra: 1 }
      })
      assert.strictEqual(nulls.status, 200)
      assert.strictEqual(nulls.body.vendor_configuration, null)
      assert.notProperty(nulls.body, "extra")

      const defaults = yield* request("POST", `/v4/models/${model}/deployments`, {
        key: caller.key,
        body: { name: "defaults", vendor_configuration: {} }
      })
      assert.strictEqual(defaults.status, 200)
      assert.deepStrictEqual(defaults.body.vendor_configuration, { min_workers: 0, max_workers: 1, per_worker: 10, vendor: "LAUNCH" })

      const partial = yield* request("POST", `/v4/models/${model}/deployments`, {
        key: caller.key,
        body: { name: "partial", vendor_configuration: { max_workers: 3, min_workers: 3 } }
      })
      assert.strictEqual(partial.status, 200)
      assert.deepStrictEqual(partial.body.vendor_configuration, { min_workers: 3, max_workers: 3, per_worker: 10, vendor: "LAUNCH" })

      const read = yield* request("GET", `/v4/model-deployments/${partial.body.id}`, { key: caller.key })
      // as created, but for what its lifecycle moves (status, endpoint)
      assert.deepStrictEqual({ ...read.body, status: "PENDING", model_endpoint_id: null }, partial.body)
    }))

  it.effect("vendor LLMENGINE: its fields kept (null when not given), a LAUNCH configuration ignores them; PATCH moves between vendors", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const model = yield* registerModel(caller)
      const engine = {
        vendor: "LLMENGINE",
        base_model_name: "llama-3-8b",
        gpu_type: "nvidia-ampere-a10",
        gpus: 1,
        cpus: 4,
        memory: "24Gi",
        high_priority: false,
        num_shards: 1,
        max_workers: 2
      }
      const created = yield* request("POST", `/v4/models/${model}/deployments`, { key: caller.key, body: { name: "engine", vendor_configuration: engine } })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      assert.deepStrictEqual(created.body.vendor_configuration, {
        ...engine,
        min_workers: 0,
        per_worker: 10,
        checkpoint_path: null,
        inference_framework_image_tag: null,
        model_name: null,
        storage: null
      })
      const path = `/v4/models/${model}/deployments/${created.body.id}`
      const launch = yield* request("PATCH", path, { key: caller.key, body: { vendor_configuration: { vendor: "LAUNCH", gpus: 8, per_worker: 2 } } })
      assert.strictEqual(launch.status, 200, JSON.stringify(launch.body))
      assert.deepStrictEqual(launch.body.vendor_configuration, { vendor: "LAUNCH", min_workers: 0, max_workers: 1, per_worker: 2 })
      const back = yield* request("PATCH", path, { key: caller.key, body: { vendor_configuration: { vendor: "LLMENGINE", storage: "40Gi" } } })
      assert.deepInclude(back.body.vendor_configuration, { vendor: "LLMENGINE", storage: "40Gi", gpu_type: null })
      // the typed client decodes both
      const typed = yield* caller.client.models.getDeployment({ path: { model_deployment_id: created.body.id } })
      assert.strictEqual(typed.vendor_configuration?.vendor, "LLMENGINE")

      const bad = yield* request("PATCH", path, { key: caller.key, body: { vendor_configuration: { vendor: "LLMENGINE", gpu_type: "tpu", gpus: -1 } } })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad), [
        { loc: ["body", "vendor_configuration", "gpu_type"], type: "literal_error" },
        { loc: ["body", "vendor_configuration", "gpus"], type: "greater_than_equal" }
      ])
      const unchanged = yield* request("GET", `/v4/model-deployments/${created.body.id}`, { key: caller.key })
      assert.deepInclude(unchanged.body.vendor_configuration, { vendor: "LLMENGINE", storage: "40Gi" })
    }))

  it.effect("create validation: exact loc and type of every problem, and nothing is written", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const model = yield* registerModel(caller)
      const post = (body: unknown) => request("POST", `/v4/models/${model}/deployments`, { key: caller.key, body })

      const missing = yield* post({ model_creation_parameters: {} })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [{ loc: ["body", "name"], type: "missing" }])

      const wrongTypes = yield* post({ name: 7, model_creation_parameters: [1], deployment_metadata: "x", account_id: 3 })
      assert.strictEqual(wrongTypes.status, 422)
      assert.deepStrictEqual(issues(wrongTypes), [
        { loc: ["body", "name"], type: "string_type" },
        { loc: ["body", "model_creation_parameters"], type: "dict_type" },
        { loc: ["body", "deployment_metadata"], type: "dict_type" },
        { loc: ["body", "account_id"], type: "string_type" }
      ])

      const emptyName = yield* post({ name: "" })
      assert.deepStrictEqual(issues(emptyName), [{ loc: ["body", "name"], type: "string_too_short" }])

      const vendor = yield* post({
        name: "d",
        vendor_configuration: { min_workers: -1, max_workers: 0, per_worker: 1.5, vendor: "OTHER" }
      })
      assert.strictEqual(vendor.status, 422)
      assert.deepStrictEqual(issues(vendor), [
        { loc: ["body", "vendor_configuration", "min_workers"], type: "greater_than_equal" },
        { loc: ["body", "vendor_configuration", "max_workers"], type: "greater_than_equal" },
        { loc: ["body", "vendor_configuration", "per_worker"], type: "int_type" },
        { loc: ["body", "vendor_configuration", "vendor"], type: "literal_error" }
      ])

      const zeroPerWorker = yield* post({ name: "d", vendor_configuration: { per_worker: 0, min_workers: "1" } })
      assert.deepStrictEqual(issues(zeroPerWorker), [
        { loc: ["body", "vendor_configuration", "min_workers"], type: "number_type" },
        { loc: ["body", "vendor_configuration", "per_worker"], type: "greater_than_equal" }
      ])

      const notObject = yield* post({ name: "d", vendor_configuration: [] })
      assert.deepStrictEqual(issues(notObject), [{ loc: ["body", "vendor_configuration"], type: "dict_type" }])

      const inverted = yield* post({ name: "d", vendor_configuration: { min_workers: 5, max_workers: 2 } })
      assert.strictEqual(inverted.status, 422)
      assert.deepStrictEqual(issues(inverted), [{ loc: ["body", "vendor_configuration", "min_workers"], type: "value_error" }])
      assert.strictEqual(inverted.body.detail[0].msg, "min_workers (5) must be less than or equal to max_workers (2)")
      assert.strictEqual(inverted.body.detail[0].input, 5)

      // min_workers above the default max_workers (1)
      const aboveDefault = yield* post({ name: "d", vendor_configuration: { min_workers: 2 } })
      assert.deepStrictEqual(issues(aboveDefault), [{ loc: ["body", "vendor_configuration", "min_workers"], type: "value_error" }])

      const malformed = yield* post("{\"name\":")
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      const page = yield* caller.client.models.listDeployments({ urlParams: {} })
      assert.strictEqual(page.total_item_count, 0)
    }))

  it.effect("401 without a key on every endpoint", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const made = yield* deploy(caller, "d")
      for (
        const [method, path] of [
          ["POST", `/v4/models/${made.model_instance_id}/deployments`],
          ["GET", `/v4/models/${made.model_instance_id}/deployments`],
          ["GET", `/v4/models/${made.model_instance_id}/deployments/${made.id}`],
          ["GET", `/v4/model-deployments/${made.id}`],
          ["GET", "/v4/model-deployments"]
        ] as const
      ) {
        const none = yield* request(method, path, method === "POST" ? { body: { name: "x" } } : {})
        assert.strictEqual(none.status, 401, `${method} ${path}`)
        assert.isString(none.body.detail)
      }
      const wrong = yield* request("GET", `/v4/model-deployments/${made.id}`, { key: "pk_nope" })
      assert.strictEqual(wrong.status, 401)
      const page = yield* caller.client.models.listDeployments({ urlParams: {} })
      assert.strictEqual(page.total_item_count, 1)
    }))

  it.effect("404 for a missing id, another account's deployment and another instance; 403 for another account", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const [modelA, modelB] = [yield* registerModel(alice, "a"), yield* registerModel(alice, "b")]
      const made = yield* deploy(alice, "a", modelA)

      const missing = yield* Effect.flip(bob.client.models.getDeployment({ path: { model_deployment_id: "no-such" } }))
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("GET", `/v4/model-deployments/${made.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Model deployment ${made.id} not found` })
      const foreignNested = yield* Effect.flip(bob.client.models.getInstanceDeployment({
        path: { model_instance_id: modelA, model_deployment_id: made.id }
      }))
      assert.strictEqual(foreignNested._tag, "NotFound")

      const otherInstance = yield* request("GET", `/v4/models/${modelB}/deployments/${made.id}`, { key: alice.key })
      assert.strictEqual(otherInstance.status, 404)
      assert.deepStrictEqual(otherInstance.body, { detail: `Model deployment ${made.id} not found` })
      const missingNested = yield* Effect.flip(alice.client.models.getInstanceDeployment({
        path: { model_instance_id: modelA, model_deployment_id: "nope" }
      }))
      assert.strictEqual(missingNested._tag, "NotFound")

      const forbidden = yield* Effect.flip(bob.client.models.createDeployment({
        path: { model_instance_id: modelA },
        payload: { name: "b", account_id: alice.accountId }
      }))
      assert.strictEqual(forbidden._tag, "Forbidden")
      // 422 comes before 403
      const both = yield* request("POST", `/v4/models/${modelA}/deployments`, {
        key: bob.key,
        body: { account_id: alice.accountId }
      })
      assert.strictEqual(both.status, 422)
      const foreignLists = [
        bob.client.models.listDeployments({ urlParams: { account_id: alice.accountId } }),
        bob.client.models.listInstanceDeployments({ path: { model_instance_id: modelA }, urlParams: { account_id: alice.accountId } })
      ]
      for (const foreignList of foreignLists) {
        assert.strictEqual((yield* Effect.flip(foreignList))._tag, "Forbidden")
      }

      const bobs = yield* bob.client.models.listDeployments({ urlParams: {} })
      assert.strictEqual(bobs.total_item_count, 0)
      const alices = yield* alice.client.models.listDeployments({ urlParams: { account_id: alice.accountId } })
      assert.deepStrictEqual(alices.items, [made])
    }))

  it.effect("lists page newest first; the instance list holds only that instance's deployments", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const even = yield* registerModel(caller, "even")
      const odd = yield* registerModel(caller, "odd")
      const none = yield* registerModel(caller, "none")
      for (let i = 0; i < 5; i++) yield* deploy(caller, `d${i}`, i % 2 === 0 ? even : odd)
      const first = yield* caller.client.models.listDeployments({ urlParams: { page: 1, limit: 2 } })
      assert.deepStrictEqual(names(first), ["d4", "d3"])
      assert.strictEqual(first.total_item_count, 5)
      assert.strictEqual(first.items_per_page, 2)
      const last = yield* caller.client.models.listDeployments({ urlParams: { page: 3, limit: 2 } })
      assert.deepStrictEqual(names(last), ["d0"])
      assert.strictEqual(last.current_page, 3)
      const beyond = yield* caller.client.models.listDeployments({ urlParams: { page: 9, limit: 2 } })
      assert.deepStrictEqual(beyond.items, [])
      assert.strictEqual(beyond.total_item_count, 5)

      const evens = yield* caller.client.models.listInstanceDeployments({ path: { model_instance_id: even }, urlParams: {} })
      assert.deepStrictEqual(names(evens), ["d4", "d2", "d0"])
      assert.strictEqual(evens.total_item_count, 3)
      const odds = yield* caller.client.models.listInstanceDeployments({
        path: { model_instance_id: odd },
        urlParams: { sort_by: ["name:asc"], limit: 1, page: 2 }
      })
      assert.deepStrictEqual(names(odds), ["d3"])
      assert.strictEqual(odds.total_item_count, 2)
      // a model without deployments lists none; an id that is no model of the caller's is a 404
      const nones = yield* caller.client.models.listInstanceDeployments({ path: { model_instance_id: none }, urlParams: {} })
      assert.strictEqual(nones.total_item_count, 0)
      const unknown = yield* request("GET", "/v4/models/none/deployments", { key: caller.key })
      assert.strictEqual(unknown.status, 404)
      assert.deepStrictEqual(unknown.body, { detail: "Model none not found" })
      const typedUnknown = yield* Effect.flip(
        caller.client.models.listInstanceDeployments({ path: { model_instance_id: "none" }, urlParams: {} })
      )
      assert.strictEqual(typedUnknown._tag, "NotFound")
    }))

  it.effect("list query validation: page, limit and sort_by problems reported together with exact locs", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const made = yield* deploy(caller, "d")
      const bad = yield* request(
        "GET",
        "/v4/model-deployments?page=0&limit=10001&sort_by=name:asc,bogus,status:up&sort_by=Name:asc&sort_by=name&sort_by=name:asc:x",
        { key: caller.key }
      )
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad), [
        { loc: ["query", "page"], type: "greater_than_equal" },
        { loc: ["query", "limit"], type: "range_error" },
        { loc: ["query", "sort_by", 1], type: "literal_error" },
        { loc: ["query", "sort_by", 2], type: "literal_error" },
        { loc: ["query", "sort_by", 3], type: "literal_error" },
        { loc: ["query", "sort_by", 4], type: "literal_error" },
        { loc: ["query", "sort_by", 5], type: "literal_error" }
      ])
      assert.strictEqual(bad.body.detail[2].input, "bogus")

      const injection = yield* request(
        "GET",
        `/v4/model-deployments?sort_by=${encodeURIComponent("name:asc; DROP TABLE model_deployments")}`,
        { key: caller.key }
      )
      assert.deepStrictEqual(issues(injection), [{ loc: ["query", "sort_by", 0], type: "literal_error" }])
      const nested = yield* request("GET", `/v4/models/${made.model_instance_id}/deployments?sort_by=created:asc&limit=x`, {
        key: caller.key
      })
      assert.deepStrictEqual(issues(nested), [
        { loc: ["query", "limit"], type: "number_parsing" },
        { loc: ["query", "sort_by", 0], type: "literal_error" }
      ])
      const page = yield* caller.client.models.listDeployments({ urlParams: {} })
      assert.strictEqual(page.total_item_count, 1)
    }))

  it.effect("every one of the 24 sort keys of a deployment list is accepted; an empty sort_by is newest first", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const a = yield* deploy(caller, "a")
      const b = yield* deploy(caller, "b")
      for (const field of ModelDeploymentSortFields) {
        for (const direction of ["asc", "desc"] as const) {
          const page = yield* sorted(caller, `${field}:${direction}`)
          assert.strictEqual(page.total_item_count, 2, `${field}:${direction}`)
        }
      }
      const all = yield* list(caller, `?sort_by=${ModelDeploymentSortFields.map((f) => `${f}:asc`).join(",")}`)
      assert.strictEqual(all.total_item_count, 2)
      const empty = yield* list(caller, "?sort_by=")
      assert.deepStrictEqual(empty.items.map((d) => d.id), [b.id, a.id])
    }))

  it.effect("multi-key sort: status:asc,name:desc, applied in order, comma-joined or repeated", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const specs: Array<[string, string]> = [
        ["alpha", "READY"],
        ["bravo", "PENDING"],
        ["charlie", "READY"],
        ["delta", "FAILED"],
        ["echo", "PENDING"],
        ["foxtrot", "READY"]
      ]
      for (const [name, status] of specs) {
        const made = yield* deploy(caller, name)
        if (status !== "PENDING") yield* setState(made, { status })
      }

      const expected = ["delta", "echo", "bravo", "foxtrot", "charlie", "alpha"]
      const joined = yield* list(caller, "?sort_by=status:asc,name:desc")
      assert.deepStrictEqual(names(joined), expected)
      assert.deepStrictEqual(joined.items.map((d) => d.status), ["FAILED", "PENDING", "PENDING", "READY", "READY", "READY"])
      const repeated = yield* list(caller, "?sort_by=status:asc&sort_by=name:desc")
      assert.deepStrictEqual(names(repeated), expected)
      const typed = yield* caller.client.models.listDeployments({ urlParams: { sort_by: ["status:asc", "name:desc"] } })
      assert.deepStrictEqual(names(typed), expected)

      // the order of keys matters
      const nameFirst = yield* list(caller, "?sort_by=name:desc,status:asc")
      assert.deepStrictEqual(names(nameFirst), ["foxtrot", "echo", "delta", "charlie", "bravo", "alpha"])
      const statusDesc = yield* list(caller, "?sort_by=status:desc,name:asc")
      assert.deepStrictEqual(names(statusDesc), ["alpha", "charlie", "foxtrot", "bravo", "echo", "delta"])

      // a single key ties break newest first
      const statusOnly = yield* sorted(caller, "status:asc")
      assert.deepStrictEqual(names(statusOnly), ["delta", "echo", "bravo", "foxtrot", "charlie", "alpha"])
      const statusOnlyDesc = yield* sorted(caller, "status:desc")
      assert.deepStrictEqual(names(statusOnlyDesc), ["foxtrot", "charlie", "alpha", "echo", "bravo", "delta"])

      // paging walks the sorted order
      const pages = []
      for (let page = 1; page <= 3; page++) {
        const got = yield* list(caller, `?sort_by=status:asc,name:desc&limit=2&page=${page}`)
        assert.strictEqual(got.total_item_count, 6)
        assert.strictEqual(got.current_page, page)
        pages.push(names(got))
      }
      assert.deepStrictEqual(pages, [["delta", "echo"], ["bravo", "foxtrot"], ["charlie", "alpha"]])
      const past = yield* list(caller, "?sort_by=status:asc,name:desc&limit=4&page=2")
      assert.deepStrictEqual(names(past), ["charlie", "alpha"])
    }))

  it.effect("sort by time, id, instance and audit fields; equal names fall back to newest first", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      // three models, their ids in ascending order
      const [instA, instB, instC] = yield* registerModels(caller, 3)
      const first = yield* deploy(caller, "same", instB)
      const second = yield* deploy(caller, "same", instA)
      const third = yield* deploy(caller, "other", instC)

      const oldest = yield* sorted(caller, "created_at:asc")
      assert.deepStrictEqual(oldest.items.map((d) => d.id), [first.id, second.id, third.id])
      const newest = yield* sorted(caller, "created_at:desc")
      assert.deepStrictEqual(newest.items.map((d) => d.id), [third.id, second.id, first.id])

      const byName = yield* sorted(caller, "name:asc")
      assert.deepStrictEqual(byName.items.map((d) => d.id), [third.id, second.id, first.id])

      const ids = [first.id, second.id, third.id].sort()
      const byId = yield* sorted(caller, "id:asc")
      assert.deepStrictEqual(byId.items.map((d) => d.id), ids)
      const byIdDesc = yield* sorted(caller, "id:desc")
      assert.deepStrictEqual(byIdDesc.items.map((d) => d.id), [...ids].reverse())

      const byInstance = yield* sorted(caller, "model_instance_id:asc")
      assert.deepStrictEqual(byInstance.items.map((d) => d.model_instance_id), [instA, instB, instC])

      // every row has the same account and creator: the next key decides, then newest first
      const audit = yield* list(
        caller,
        "?sort_by=account_id:asc,created_by_user_id:desc,created_by_identity_type:asc,model_instance_id:desc"
      )
      assert.deepStrictEqual(audit.items.map((d) => d.model_instance_id), [instC, instB, instA])
      const auditOnly = yield* list(caller, "?sort_by=account_id:asc,created_by_identity_type:desc")
      assert.deepStrictEqual(auditOnly.items.map((d) => d.id), [third.id, second.id, first.id])
    }))

  it.effect("object fields sort by their JSON text; absent values come first ascending, last descending", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const none = yield* deploy(caller, "none")
      const small = yield* deploy(caller, "small", none.model_instance_id, {
        model_creation_parameters: { a: 1 },
        deployment_metadata: { z: "last" },
        vendor_configuration: { min_workers: 0, max_workers: 2 }
      })
      const big = yield* deploy(caller, "big", none.model_instance_id, {
        model_creation_parameters: { b: 0 },
        deployment_metadata: { a: "first" },
        vendor_configuration: { min_workers: 1, max_workers: 1 }
      })
      yield* deploy(caller, "mid", none.model_instance_id, {
        model_creation_parameters: { a: 2 },
        deployment_metadata: { m: 1 },
        vendor_configuration: { min_workers: 0, max_workers: 10 }
      })

      // {"a":1} < {"a":2} < {"b":0}
      const params = yield* sorted(caller, "model_creation_parameters:asc")
      assert.deepStrictEqual(names(params), ["none", "small", "mid", "big"])
      const paramsDesc = yield* sorted(caller, "model_creation_parameters:desc")
      assert.deepStrictEqual(names(paramsDesc), ["big", "mid", "small", "none"])

      const metadata = yield* sorted(caller, "deployment_metadata:asc")
      assert.deepStrictEqual(names(metadata), ["none", "big", "mid", "small"])

      // {"min_workers":0,"max_workers":10,…} < {"min_workers":0,"max_workers":2,…} < {"min_workers":1,…}
      const vendor = yield* sorted(caller, "vendor_configuration:asc")
      assert.deepStrictEqual(names(vendor), ["none", "mid", "small", "big"])
      const vendorDesc = yield* sorted(caller, "vendor_configuration:desc")
      assert.deepStrictEqual(names(vendorDesc), ["big", "small", "mid", "none"])

      // endpoint ids: two set, two null (null first ascending, ties newest first)
      yield* setState(small, { model_endpoint_id: "ep-2", status: "READY" })
      yield* setState(big, { model_endpoint_id: "ep-1", status: "READY" })
      const endpoints = yield* sorted(caller, "model_endpoint_id:asc")
      assert.deepStrictEqual(names(endpoints), ["mid", "none", "big", "small"])
      const endpointsDesc = yield* sorted(caller, "model_endpoint_id:desc")
      assert.deepStrictEqual(names(endpointsDesc), ["small", "big", "mid", "none"])

      const read = yield* caller.client.models.getDeployment({ path: { model_deployment_id: big.id } })
      assert.strictEqual(read.model_endpoint_id, "ep-1")
      assert.strictEqual(read.status, "READY")
      assert.strictEqual(none.vendor_configuration, null)
    }))

  it.effect("a caller with several accounts names one with account_id or x-selected-account-id", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const other = yield* provision()
      yield* Effect.flatMap(Accounts, (accounts) => accounts.addMember(alice.identityId, other.accountId))
      // a model of each account: a deployment is made of a model of its own account
      const mine = yield* registerModel(alice)
      const theirs = yield* registerModel(other)

      const unnamed = yield* request("POST", `/v4/models/${mine}/deployments`, { key: alice.key, body: { name: "x" } })
      assert.strictEqual(unnamed.status, 422)
      assert.deepStrictEqual(issues(unnamed), [{ loc: ["body", "account_id"], type: "missing" }])

      const inOther = yield* alice.client.models.createDeployment({
        path: { model_instance_id: theirs },
        payload: { name: "in other", account_id: other.accountId }
      })
      assert.strictEqual(inOther.account_id, other.accountId)
      yield* TestClock.adjust("1 millis")
      const selected = yield* request("POST", `/v4/models/${mine}/deployments`, {
        key: alice.key,
        headers: { "x-selected-account-id": alice.accountId },
        body: { name: "selected" }
      })
      assert.strictEqual(selected.body.account_id, alice.accountId)

      const both = yield* sorted(alice, "account_id:asc")
      assert.strictEqual(both.total_item_count, 2)
      assert.deepStrictEqual(
        both.items.map((d) => d.account_id),
        [alice.accountId, other.accountId].sort()
      )
      const narrowed = yield* alice.client.models.listDeployments({ urlParams: { account_id: other.accountId } })
      assert.deepStrictEqual(names(narrowed), ["in other"])
      const seenByOther = yield* other.client.models.listDeployments({ urlParams: {} })
      assert.deepStrictEqual(names(seenByOther), ["in other"])
    }))
})

layer(timedServer(0.5))("model deployment lifecycle, timed progression", (it) => {
  it.effect("a poller sees PENDING for the simulated step, then READY with its endpoint", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const model = yield* registerModel(caller)
      const created = yield* caller.client.models.createDeployment({ path: { model_instance_id: model }, payload: { name: "timed" } })
      assert.strictEqual(created.status, "PENDING")
      const started = Date.now()
      const seen: Array<string> = []
      let read = created
      yield* eventually(
        Effect.map(getDeployment(caller, created.id), (deployment) => {
          read = deployment
          if (seen.at(-1) !== read.status) seen.push(read.status)
          return Option.liftPredicate(read, (read) => read.status !== "PENDING")
        }),
        10_000
      )
      assert.deepStrictEqual(seen, ["PENDING", "READY"])
      assert.isAtLeast(Date.now() - started, 450)
      assert.match(read.model_endpoint_id!, uuid)
    }))

  it.effect("nothing to provision: an openai_compatible or builtin deployment is READY when created; a LAUNCH or LLMENGINE one waits for its step", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const model = yield* registerModel(caller)
      const create = (payload: Parameters<typeof caller.client.models.createDeployment>[0]["payload"]) =>
        caller.client.models.createDeployment({ path: { model_instance_id: model }, payload })
      const external = { provider: "openai_compatible", base_url: "http://127.0.0.1:1/v1", model: "m" }
      for (const parameters of [external, { provider: "builtin" }]) {
        const created = yield* create({ name: parameters.provider, model_creation_parameters: parameters })
        assert.strictEqual(created.status, "READY")
        assert.match(created.model_endpoint_id!, uuid)
        assert.deepStrictEqual(yield* getDeployment(caller, created.id), created)
      }
      for (const vendor of ["LAUNCH", "LLMENGINE"] as const) {
        const hosted = yield* create({ name: vendor, model_creation_parameters: external, vendor_configuration: { vendor, min_workers: 0, max_workers: 1, per_worker: 1 } })
        assert.strictEqual(hosted.status, "PENDING")
        assert.isNull(hosted.model_endpoint_id)
      }
    }))
})
