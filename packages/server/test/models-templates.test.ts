/**
 * Model templates (`/v4/model-templates`, docs/model-templates.md): create, read, list, delete
 * (409 while models name a template), and a model created from a template taking its defaults and
 * checked against its parameter schema.
 */
import { assert, layer } from "@effect/vitest"
import { ModelTemplate } from "@platform-kit/schema"
import { Effect, Schema, TestClock } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { isoPattern as iso, issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

const decodeTemplate = Schema.decodeUnknownSync(ModelTemplate)

const ok = (response: { status: number; body: any }) => {
  assert.strictEqual(response.status, 200, JSON.stringify(response.body))
  return response.body
}

/** A template body with the required fields only (and `extra`). */
const minimal = (account_id: string, extra: Record<string, unknown> = {}) => ({
  account_id,
  name: "tgi",
  endpoint_type: "SYNC",
  model_type: "COMPLETION",
  vendor_configuration: { bundle_config: { image: "tgi", registry: "ghcr.io", tag: "2.0" } },
  ...extra
})

/** Parameters of a template: a required int `size`, an optional str `flavour`, float `scale`, bool `fast`. */
const parameterSchema = {
  parameters: [
    { name: "size", type: "int", required: true, description: "size in billions" },
    { name: "flavour", type: "str", required: false, description: "which flavour" },
    { name: "scale", type: "float", required: false, description: "rope scale" },
    { name: "fast", type: "bool", required: false, description: "fast path" }
  ]
}

layer(TestServerLive)("model templates", (it) => {
  it.effect("create answers every field, nested optional ones null; get and list read it back; the typed client decodes it", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key, client } = yield* provision()
      const full = ok(
        yield* request("POST", "/v4/model-templates", {
          key,
          body: {
            ...minimal(accountId),
            endpoint_protocol: "VLLM",
            vendor_configuration: {
              vendor: "LAUNCH",
              bundle_config: {
                image: "vllm",
                registry: "docker.io",
                tag: "0.5",
                command: ["python", "-m", "vllm"],
                env: { HF_HOME: "/data" },
                readiness_initial_delay_seconds: 30
              },
              endpoint_config: { cpus: 4, gpus: 1, gpu_type: "nvidia-ampere-a10", min_workers: 0, max_workers: 2, per_worker: 5 },
              fine_tuning_job_bundle_config: {
                image: "trainer",
                registry: "docker.io",
                tag: "1",
                resources: { gpus: 2 },
                training_dataset_schema_type: "GENERATION"
              }
            },
            model_creation_parameters_schema: parameterSchema,
            created_by_user_id: "someone-else"
          }
        })
      )
      assert.match(full.id, uuid)
      assert.match(full.created_at, iso)
      assert.deepStrictEqual(full, {
        id: full.id,
        name: "tgi",
        endpoint_type: "SYNC",
        model_type: "COMPLETION",
        vendor_configuration: {
          bundle_config: {
            image: "vllm",
            registry: "docker.io",
            tag: "0.5",
            command: ["python", "-m", "vllm"],
            env: { HF_HOME: "/data" },
            healthcheck_route: null,
            predict_route: null,
            readiness_initial_delay_seconds: 30,
            streaming_command: null,
            streaming_predict_route: null
          },
          endpoint_config: {
            cpus: 4,
            endpoint_type: null,
            gpu_type: "nvidia-ampere-a10",
            gpus: 1,
            high_priority: null,
            max_workers: 2,
            memory: null,
            min_workers: 0,
            per_worker: 5,
            storage: null
          },
          fine_tuning_job_bundle_config: {
            image: "trainer",
            registry: "docker.io",
            tag: "1",
            command: null,
            env: null,
            mount_location: null,
            resources: { cpus: null, gpu_type: null, gpus: 2, memory: null, storage: null },
            training_dataset_schema_type: "GENERATION"
          },
          vendor: "LAUNCH"
        },
        endpoint_protocol: "VLLM",
        model_creation_parameters_schema: parameterSchema,
        model_request_parameters_schema: null,
        account_id: accountId,
        created_by_user_id: identityId,
        created_by_identity_type: "user",
        created_at: full.created_at
      })

      yield* TestClock.adjust("1 millis")
      const bare = ok(yield* request("POST", "/v4/model-templates", { key, body: minimal(accountId) }))
      assert.deepStrictEqual(bare.vendor_configuration, {
        bundle_config: {
          image: "tgi",
          registry: "ghcr.io",
          tag: "2.0",
          command: null,
          env: null,
          healthcheck_route: null,
          predict_route: null,
          readiness_initial_delay_seconds: null,
          streaming_command: null,
          streaming_predict_route: null
        },
        endpoint_config: null,
        fine_tuning_job_bundle_config: null,
        vendor: "LAUNCH"
      })
      assert.strictEqual(bare.endpoint_protocol, null)
      assert.strictEqual(bare.model_creation_parameters_schema, null)

      assert.deepStrictEqual(ok(yield* request("GET", `/v4/model-templates/${full.id}`, { key })), full)
      const typed = yield* client.modelTemplates.get({ path: { model_template_id: full.id } })
      assert.deepStrictEqual(typed, decodeTemplate(full))
      const page = ok(yield* request("GET", "/v4/model-templates", { key }))
      assert.deepStrictEqual(page, { items: [bare, full], total_item_count: 2, current_page: 1, items_per_page: 100 })
    }))

  it.effect("bad bodies are 422 naming each field (a parameter declared twice too); nothing is stored", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provision()
      const missing = yield* request("POST", "/v4/model-templates", { key, body: { vendor_configuration: { bundle_config: {} } } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "account_id"], type: "missing" },
        { loc: ["body", "endpoint_type"], type: "missing" },
        { loc: ["body", "model_type"], type: "missing" },
        { loc: ["body", "name"], type: "missing" },
        { loc: ["body", "vendor_configuration", "bundle_config", "image"], type: "missing" },
        { loc: ["body", "vendor_configuration", "bundle_config", "registry"], type: "missing" },
        { loc: ["body", "vendor_configuration", "bundle_config", "tag"], type: "missing" }
      ])

      const wrong = yield* request("POST", "/v4/model-templates", {
        key,
        body: minimal(accountId, {
          endpoint_type: "REALTIME",
          model_type: "CHAT",
          endpoint_protocol: "GRPC",
          vendor_configuration: {
            vendor: "OPENAI",
            bundle_config: { image: "i", registry: "r", tag: "t", readiness_initial_delay_seconds: -1 },
            endpoint_config: { gpu_type: "tpu", gpus: 1.5 }
          },
          model_creation_parameters_schema: { parameters: [{ name: "size", type: "integer", required: true, description: "" }] }
        })
      })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong).map((issue: any) => issue.loc), [
        ["body", "endpoint_type"],
        ["body", "model_type"],
        ["body", "vendor_configuration", "bundle_config", "readiness_initial_delay_seconds"],
        ["body", "vendor_configuration", "endpoint_config", "gpu_type"],
        ["body", "vendor_configuration", "endpoint_config", "gpus"],
        ["body", "vendor_configuration", "vendor"],
        ["body", "endpoint_protocol"],
        ["body", "model_creation_parameters_schema", "parameters", 0, "type"]
      ])

      const twice = yield* request("POST", "/v4/model-templates", {
        key,
        body: minimal(accountId, {
          model_request_parameters_schema: {
            parameters: [
              { name: "a", type: "str", required: true, description: "" },
              { name: "a", type: "int", required: false, description: "" }
            ]
          }
        })
      })
      assert.strictEqual(twice.status, 422)
      assert.deepStrictEqual(issues(twice), [{ loc: ["body", "model_request_parameters_schema", "parameters", 1, "name"], type: "value_error" }])
      assert.include(twice.body.detail[0].msg, "'a' is declared twice")

      assert.strictEqual((yield* client.modelTemplates.list({ urlParams: {} })).total_item_count, 0)
    }))

  it.effect("reads and lists keep to the caller's accounts: 404 for another account's template, 403 for another account_id; list paged", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const caller = yield* provision()
      const second = yield* accounts.createAccount()
      yield* accounts.addMember(caller.identityId, second)
      const stranger = yield* provision()
      const theirs = yield* stranger.client.modelTemplates.create({ payload: minimal(stranger.accountId) as any })

      const names: Array<string> = []
      for (const [i, account_id] of [caller.accountId, second, caller.accountId].entries()) {
        names.push((yield* caller.client.modelTemplates.create({ payload: { ...minimal(account_id), name: `t${i}` } as any })).name)
        yield* TestClock.adjust("1 millis")
      }
      const all = yield* caller.client.modelTemplates.list({ urlParams: {} })
      assert.deepStrictEqual(all.items.map((t) => t.name), ["t2", "t1", "t0"])
      const narrowed = yield* caller.client.modelTemplates.list({ urlParams: { account_id: second } })
      assert.deepStrictEqual(narrowed.items.map((t) => t.name), ["t1"])
      const paged = yield* caller.client.modelTemplates.list({ urlParams: { page: 2, limit: 2 } })
      assert.deepStrictEqual({ names: paged.items.map((t) => t.name), total: paged.total_item_count, page: paged.current_page }, {
        names: ["t0"],
        total: 3,
        page: 2
      })

      const foreign = yield* request("GET", `/v4/model-templates/${theirs.id}`, { key: caller.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Model template ${theirs.id} not found` })
      assert.strictEqual((yield* Effect.flip(caller.client.modelTemplates.get({ path: { model_template_id: "nope" } })))._tag, "NotFound")
      assert.strictEqual((yield* request("GET", `/v4/model-templates?account_id=${stranger.accountId}`, { key: caller.key })).status, 403)
      const forbidden = yield* request("POST", "/v4/model-templates", { key: caller.key, body: minimal(stranger.accountId) })
      assert.strictEqual(forbidden.status, 403)
      assert.strictEqual((yield* stranger.client.modelTemplates.list({ urlParams: {} })).total_item_count, 1)
      assert.strictEqual((yield* request("GET", "/v4/model-templates", {})).status, 401)
    }))

  it.effect("a model created from a template takes its type and vendor (the request's win) and must satisfy its parameter schema", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const template = ok(yield* request("POST", "/v4/model-templates", {
        key: caller.key,
        body: minimal(caller.accountId, { model_type: "EMBEDDING", model_creation_parameters_schema: parameterSchema })
      }))
      const theirs = yield* other.client.modelTemplates.create({ payload: minimal(other.accountId) as any })
      const create = (body: Record<string, unknown>) =>
        request("POST", "/v4/models", { key: caller.key, body: { account_id: caller.accountId, name: "m", model_template_id: template.id, ...body } })

      const defaulted = ok(yield* create({ model_creation_parameters: { size: 7, extra: "kept" } }))
      assert.deepInclude(defaulted, {
        model_type: "EMBEDDING",
        model_vendor: "LAUNCH",
        model_template_id: template.id,
        model_creation_parameters: { size: 7, extra: "kept" },
        supports_multi_turn: false
      })
      const stored = yield* caller.client.models.get({ path: { model_id: defaulted.id }, urlParams: {} })
      assert.strictEqual(stored.model_type, "EMBEDDING")

      const explicit = ok(yield* create({
        model_type: "CHAT_COMPLETION",
        model_vendor: "OTHER",
        model_creation_parameters: { size: 1, flavour: "x", scale: 1.5, fast: true }
      }))
      assert.deepInclude(explicit, { model_type: "CHAT_COMPLETION", model_vendor: "OTHER", supports_multi_turn: true })
      // an int is a float too; an optional parameter may be null
      ok(yield* create({ model_creation_parameters: { size: 2, scale: 3, flavour: null } }))

      const absent = yield* create({})
      assert.strictEqual(absent.status, 422)
      assert.deepStrictEqual(issues(absent), [{ loc: ["body", "model_creation_parameters", "size"], type: "missing" }])
      const mistyped = yield* create({ model_creation_parameters: { size: 1.5, flavour: 3, scale: "big", fast: "yes" } })
      assert.strictEqual(mistyped.status, 422)
      assert.deepStrictEqual(issues(mistyped), [
        { loc: ["body", "model_creation_parameters", "size"], type: "int_type" },
        { loc: ["body", "model_creation_parameters", "flavour"], type: "string_type" },
        { loc: ["body", "model_creation_parameters", "scale"], type: "number_type" },
        { loc: ["body", "model_creation_parameters", "fast"], type: "bool_type" }
      ])
      assert.deepInclude(mistyped.body.detail[0], { msg: "Input should be a valid integer", input: 1.5 })
      assert.strictEqual(issues(yield* create({ model_creation_parameters: { size: true } }))[0].type, "int_type")

      const foreign = yield* create({ model_template_id: theirs.id, model_type: "COMPLETION" })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Model template ${theirs.id} not found` })
      assert.strictEqual((yield* create({ model_template_id: "no-such-template", model_type: "COMPLETION" })).status, 404)
      // neither a type nor a template to take it from
      const untyped = yield* request("POST", "/v4/models", { key: caller.key, body: { account_id: caller.accountId, name: "m" } })
      assert.strictEqual(untyped.status, 422)
      assert.deepStrictEqual(issues(untyped), [{ loc: ["body", "model_type"], type: "missing" }])

      // only the three good creates were stored
      const models = yield* caller.client.models.list({ urlParams: {} })
      assert.strictEqual(models.total_item_count, 3)
    }))

  it.effect("a model's update naming a template is checked: another account's is a 404, parameters against its schema", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const template = yield* caller.client.modelTemplates.create({
        payload: minimal(caller.accountId, { model_creation_parameters_schema: parameterSchema }) as any
      })
      const theirs = yield* other.client.modelTemplates.create({ payload: minimal(other.accountId) as any })
      const model = yield* caller.client.models.create({ payload: { account_id: caller.accountId, name: "plain", model_type: "GENERIC" } })
      const patch = (body: Record<string, unknown>) => request("PATCH", `/v4/models/${model.id}`, { key: caller.key, body })

      assert.strictEqual((yield* patch({ model_template_id: theirs.id })).status, 404)
      const unmet = yield* patch({ model_template_id: template.id })
      assert.strictEqual(unmet.status, 422)
      assert.deepStrictEqual(issues(unmet), [{ loc: ["body", "model_creation_parameters", "size"], type: "missing" }])
      const named = ok(yield* patch({ model_template_id: template.id, model_creation_parameters: { size: 3 } }))
      // an update fills in no defaults: the type stays
      assert.deepInclude(named, { model_template_id: template.id, model_type: "GENERIC", model_vendor: null })
      assert.deepStrictEqual(issues(yield* patch({ model_creation_parameters: { size: "3" } })), [
        { loc: ["body", "model_creation_parameters", "size"], type: "int_type" }
      ])
      assert.deepStrictEqual((yield* caller.client.models.get({ path: { model_id: model.id }, urlParams: {} })).model_creation_parameters, { size: 3 })
      const cleared = ok(yield* patch({ model_template_id: null, model_creation_parameters: { anything: 1 } }))
      assert.strictEqual(cleared.model_template_id, null)
    }))

  it.effect("delete answers {count: 1, success: true}; 409 while a model names the template; 404 for a missing or another account's one", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const template = yield* caller.client.modelTemplates.create({ payload: minimal(caller.accountId) as any })
      const model = yield* caller.client.models.create({
        payload: { account_id: caller.accountId, name: "from template", model_template_id: template.id }
      })

      const foreign = yield* request("DELETE", `/v4/model-templates/${template.id}`, { key: other.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Model template ${template.id} not found` })

      const named = yield* request("DELETE", `/v4/model-templates/${template.id}`, { key: caller.key })
      assert.strictEqual(named.status, 409)
      assert.deepStrictEqual(named.body, {
        detail: `Model template ${template.id} is named by 1 model: delete them or clear their model_template_id first`
      })
      assert.strictEqual((yield* caller.client.modelTemplates.get({ path: { model_template_id: template.id } })).id, template.id)

      yield* caller.client.models.delete({ path: { model_id: model.id } })
      const deleted = yield* request("DELETE", `/v4/model-templates/${template.id}`, { key: caller.key })
      assert.strictEqual(deleted.status, 200)
      assert.deepStrictEqual(deleted.body, { count: 1, success: true })
      assert.strictEqual((yield* request("GET", `/v4/model-templates/${template.id}`, { key: caller.key })).status, 404)
      assert.strictEqual((yield* Effect.flip(caller.client.modelTemplates.delete({ path: { model_template_id: template.id } })))._tag, "NotFound")
      assert.strictEqual((yield* caller.client.modelTemplates.list({ urlParams: {} })).total_item_count, 0)
    }))
})
