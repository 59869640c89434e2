/**
 * The model registry (`/v4/models`, docs/models.md): create, read with views, list with filters
 * and `sort_by`, update, delete; deployments made under a registered model, updated and deleted;
 * a fine-tuning job's model registered when it completes.
 */
import { assert, layer } from "@effect/vitest"
import { ModelInstance, modelTypeTraits } from "@platform-kit/schema"
import { Effect, Schema, TestClock, TestServices } from "effect"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"
import { registerModel } from "./support/models.js"
import { uploadDataset } from "./support/trainingDatasets.js"

const live = (millis: number) => TestServices.provideLive(Effect.sleep(`${millis} millis`))

const decodeModel = Schema.decodeUnknownSync(ModelInstance)

const ok = (response: { status: number; body: any }) => {
  assert.strictEqual(response.status, 200, JSON.stringify(response.body))
  return response.body
}

layer(TestServerLive)("the model registry", (it) => {
  it.effect("create answers every field of ModelInstance; get reads it back, with the Deployments and ModelGroup views", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const group = yield* caller.client.modelGroups.create({ payload: { name: "llamas", account_id: caller.accountId } })
      const created = ok(
        yield* request("POST", "/v4/models", {
          key: caller.key,
          body: {
            account_id: caller.accountId,
            name: "llama-3-8b",
            model_type: "CHAT_COMPLETION",
            model_vendor: "LLMENGINE",
            display_name: "Llama 3 8B",
            base_model_id: "meta-llama-3-8b",
            base_model_metadata: { model_developer: "Meta", modelDetails: { token_context_window: 8192 }, ui_model_section_type: "OPENSOURCE" },
            model_creation_parameters: { provider: "builtin" },
            model_group_id: group.id,
            description: "a chat model",
            unknown_field: "ignored"
          }
        })
      )
      assert.match(created.id, uuid)
      assert.deepStrictEqual(Object.keys(created).sort(), [
        "account_id",
        "base_model_id",
        "base_model_metadata",
        "created_at",
        "created_by_identity_type",
        "created_by_user_id",
        "deployment_count",
        "description",
        "display_name",
        "id",
        "model_card",
        "model_creation_parameters",
        "model_group_id",
        "model_template_id",
        "model_type",
        "model_vendor",
        "name",
        "request_schema",
        "response_schema",
        "supports_multi_turn",
        "training_data_card"
      ])
      assert.strictEqual(created.deployment_count, 0)
      assert.strictEqual(created.supports_multi_turn, true)
      assert.strictEqual(created.model_card, null)
      assert.strictEqual(created.created_by_user_id, caller.identityId)
      assert.deepStrictEqual(created.base_model_metadata.modelDetails, { token_context_window: 8192 })
      // the JSON Schema of what the chat-completions endpoint takes
      assert.deepStrictEqual(created.request_schema.required, ["chat_history", "prompt"])
      assert.deepStrictEqual(created.request_schema, modelTypeTraits("CHAT_COMPLETION").request_schema)

      // the typed client decodes it strictly
      const typed = yield* caller.client.models.get({ path: { model_id: created.id }, urlParams: {} })
      assert.deepStrictEqual(typed, decodeModel(created))

      const deployment = yield* caller.client.models.createDeployment({ path: { model_instance_id: created.id }, payload: { name: "prod" } })
      const withViews = ok(yield* request("GET", `/v4/models/${created.id}?view=Deployments,ModelGroup`, { key: caller.key }))
      assert.strictEqual(withViews.deployment_count, 1)
      assert.deepStrictEqual(withViews.deployments.map((d: any) => d.id), [deployment.id])
      assert.deepStrictEqual(withViews.model_group, { ...group })
      const plain = ok(yield* request("GET", `/v4/models/${created.id}`, { key: caller.key }))
      assert.isFalse("deployments" in plain)
      assert.isFalse("model_group" in plain)
    }))

  it.effect("bad bodies are 422 naming the field; a model group that is not the account's is a 404; another account's model is a 404", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const theirGroup = yield* other.client.modelGroups.create({ payload: { name: "theirs", account_id: other.accountId } })

      const missing = yield* request("POST", "/v4/models", { key: caller.key, body: { name: "m", model_type: "CHAT_COMPLETION" } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [{ loc: ["body", "account_id"], type: "missing" }])
      const badType = yield* request("POST", "/v4/models", {
        key: caller.key,
        body: { name: "m", model_type: "CHAT", account_id: caller.accountId, model_vendor: "ACME" }
      })
      assert.strictEqual(badType.status, 422)
      assert.deepStrictEqual(issues(badType).map((issue: any) => issue.loc), [["body", "model_type"], ["body", "model_vendor"]])
      // the choices as the platform's (Pydantic's) messages list them: single quotes, "or" before the last
      const expected = "'COMPLETION', 'CHAT_COMPLETION', 'AGENT', 'EMBEDDING', 'RERANKING' or 'GENERIC'"
      assert.deepInclude(badType.body.detail[0], { msg: `Input should be ${expected}`, type: "literal_error", input: "CHAT", ctx: { expected } })
      assert.include(badType.body.detail[1].msg, "'OTHER' or null")
      const foreignGroup = yield* request("POST", "/v4/models", {
        key: caller.key,
        body: { name: "m", model_type: "CHAT_COMPLETION", account_id: caller.accountId, model_group_id: theirGroup.id }
      })
      assert.strictEqual(foreignGroup.status, 404)
      assert.deepStrictEqual(foreignGroup.body, { detail: `Model group ${theirGroup.id} not found` })
      assert.strictEqual((yield* request("POST", "/v4/models", {
        key: caller.key,
        body: { name: "m", model_type: "CHAT_COMPLETION", account_id: other.accountId }
      })).status, 403)

      const theirs = yield* registerModel(other)
      for (const [method, path] of [["GET", `/v4/models/${theirs}`], ["PATCH", `/v4/models/${theirs}`], ["DELETE", `/v4/models/${theirs}`]] as const) {
        const response = yield* request(method, path, { key: caller.key, ...(method === "PATCH" ? { body: { name: "x" } } : {}) })
        assert.strictEqual(response.status, 404, `${method} ${path}`)
        assert.deepStrictEqual(response.body, { detail: `Model ${theirs} not found` })
      }
      // a deployment is made under a model of its own account
      const under = yield* request("POST", `/v4/models/${theirs}/deployments`, { key: caller.key, body: { name: "d" } })
      assert.strictEqual(under.status, 404)
      assert.deepStrictEqual(under.body, { detail: `Model ${theirs} not found` })
      assert.strictEqual((yield* request("GET", `/v4/models/${theirs}/deployments`, { key: caller.key })).status, 404)
      assert.strictEqual((yield* request("GET", "/v4/models/nope/deployments", { key: caller.key })).status, 404)
      // nothing of theirs changed
      assert.strictEqual(ok(yield* request("GET", `/v4/models/${theirs}`, { key: other.key })).name, "model")
    }))

  it.effect("PATCH changes what it names: null clears an optional field, the type moves the schemas; absent leaves the rest", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* registerModel(caller, "base", "COMPLETION")
      const path = `/v4/models/${id}`
      ok(yield* request("PATCH", path, { key: caller.key, body: { description: "first", display_name: "Base" } }))
      const updated = ok(yield* request("PATCH", path, { key: caller.key, body: { model_type: "EMBEDDING", description: null } }))
      assert.strictEqual(updated.model_type, "EMBEDDING")
      assert.strictEqual(updated.description, null)
      assert.strictEqual(updated.display_name, "Base")
      assert.strictEqual(updated.name, "base")
      assert.strictEqual(updated.supports_multi_turn, false)
      assert.deepStrictEqual(updated.request_schema.required, ["texts"])
      assert.deepStrictEqual(ok(yield* request("GET", path, { key: caller.key })), updated)

      const bad = yield* request("PATCH", path, { key: caller.key, body: { name: "", model_type: null } })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad).map((issue: any) => issue.loc), [["body", "model_type"], ["body", "name"]])
      assert.deepStrictEqual(ok(yield* request("GET", path, { key: caller.key })), updated)
    }))

  it.effect("DELETE: 409 while the model has deployments; deployments PATCHed and DELETEd ({count, success}); then the model goes", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const model = yield* registerModel(caller)
      const other = yield* registerModel(caller, "other")
      const made = ok(yield* request("POST", `/v4/models/${model}/deployments`, {
        key: caller.key,
        body: { name: "prod", deployment_metadata: { team: "a" }, model_creation_parameters: { x: 1 } }
      }))
      const deploymentPath = `/v4/models/${model}/deployments/${made.id}`

      const refused = yield* request("DELETE", `/v4/models/${model}`, { key: caller.key })
      assert.strictEqual(refused.status, 409)
      assert.deepStrictEqual(refused.body, { detail: `Model ${model} has 1 deployment: delete them first` })

      const patched = ok(yield* request("PATCH", deploymentPath, {
        key: caller.key,
        body: { name: "prod-2", deployment_metadata: null, vendor_configuration: { max_workers: 3 } }
      }))
      assert.strictEqual(patched.name, "prod-2")
      assert.strictEqual(patched.deployment_metadata, null)
      assert.deepStrictEqual(patched.model_creation_parameters, { x: 1 })
      assert.deepStrictEqual(patched.vendor_configuration, { min_workers: 0, max_workers: 3, per_worker: 10, vendor: "LAUNCH" })
      const badPatch = yield* request("PATCH", deploymentPath, { key: caller.key, body: { vendor_configuration: { min_workers: 5, max_workers: 2 } } })
      assert.strictEqual(badPatch.status, 422)
      // under another model, the deployment is not found
      const wrongModel = yield* request("PATCH", `/v4/models/${other}/deployments/${made.id}`, { key: caller.key, body: { name: "x" } })
      assert.strictEqual(wrongModel.status, 404)
      assert.strictEqual(ok(yield* request("GET", `/v4/model-deployments/${made.id}`, { key: caller.key })).name, "prod-2")

      // a deployment a model server serves is kept
      const server = ok(yield* request("POST", "/v4/serving", { key: caller.key, body: { name: "s", model_deployment_id: made.id } }))
      const served = yield* request("DELETE", deploymentPath, { key: caller.key })
      assert.strictEqual(served.status, 409)
      assert.match(served.body.detail, /served by 1 model server/)
      assert.strictEqual(server.model_deployment_id, made.id)

      const second = ok(yield* request("POST", `/v4/models/${model}/deployments`, { key: caller.key, body: { name: "canary" } }))
      const deleted = yield* request("DELETE", `/v4/models/${model}/deployments/${second.id}`, { key: caller.key })
      assert.deepStrictEqual([deleted.status, deleted.body], [200, { count: 1, success: true }])
      assert.strictEqual((yield* request("GET", `/v4/model-deployments/${second.id}`, { key: caller.key })).status, 404)
      assert.strictEqual((yield* request("DELETE", `/v4/models/${model}/deployments/${second.id}`, { key: caller.key })).status, 404)

      const empty = yield* registerModel(caller, "empty")
      const gone = yield* request("DELETE", `/v4/models/${empty}`, { key: caller.key })
      assert.deepStrictEqual([gone.status, gone.body], [200, { count: 1, success: true }])
      assert.strictEqual((yield* request("GET", `/v4/models/${empty}`, { key: caller.key })).status, 404)
      assert.strictEqual(ok(yield* request("GET", `/v4/models/${model}`, { key: caller.key })).deployment_count, 1)
    }))

  it.effect("list: v4 page of the caller's models, filtered by model_group_id and model_type, sorted by sort_by, with views", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const stranger = yield* provision()
      yield* registerModel(stranger, "not mine")
      const group = yield* caller.client.modelGroups.create({ payload: { name: "g", account_id: caller.accountId } })
      // made a millisecond apart (the suite's clock is a TestClock): newest first is c, b, a
      const a = ok(yield* request("POST", "/v4/models", {
        key: caller.key,
        body: { name: "a", model_type: "EMBEDDING", account_id: caller.accountId, model_group_id: group.id }
      }))
      yield* TestClock.adjust("1 millis")
      const b = yield* registerModel(caller, "b", "CHAT_COMPLETION")
      yield* TestClock.adjust("1 millis")
      const c = yield* registerModel(caller, "c", "CHAT_COMPLETION")
      for (const name of ["one", "two"]) {
        yield* TestClock.adjust("1 millis")
        ok(yield* request("POST", `/v4/models/${c}/deployments`, { key: caller.key, body: { name } }))
      }
      ok(yield* request("POST", `/v4/models/${b}/deployments`, { key: caller.key, body: { name: "three" } }))

      const page = (query: string) => Effect.map(request("GET", `/v4/models${query}`, { key: caller.key }), ok)
      const all = yield* page("")
      assert.strictEqual(all.total_item_count, 3)
      assert.deepStrictEqual(all.items.map((m: any) => m.name), ["c", "b", "a"])
      assert.deepStrictEqual((yield* page("?sort_by=deployment_count:desc")).items.map((m: any) => [m.name, m.deployment_count]), [
        ["c", 2],
        ["b", 1],
        ["a", 0]
      ])
      assert.deepStrictEqual((yield* page("?sort_by=model_type:asc,name:desc")).items.map((m: any) => m.name), ["c", "b", "a"])
      assert.deepStrictEqual((yield* page("?sort_by=name:asc&limit=2&page=2")).items.map((m: any) => m.name), ["c"])
      const ofGroup = yield* page(`?model_group_id=${group.id}&view=ModelGroup`)
      assert.deepStrictEqual(ofGroup.items.map((m: any) => [m.id, m.model_group.id]), [[a.id, group.id]])
      const chats = yield* page("?model_type=CHAT_COMPLETION&view=Deployments")
      assert.deepStrictEqual(chats.items.map((m: any) => m.deployments.map((d: any) => d.name)), [["two", "one"], ["three"]])
      const typed = yield* caller.client.models.list({ urlParams: { sort_by: ["name:asc"] } })
      assert.deepStrictEqual(typed.items.map((m) => m.name), ["a", "b", "c"])

      const bad = yield* request("GET", "/v4/models?sort_by=colour:asc&model_type=X", { key: caller.key })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad).map((issue: any) => issue.loc[1]), ["model_type", "sort_by"])
      assert.strictEqual((yield* request("GET", `/v4/models?account_id=${stranger.accountId}`, { key: caller.key })).status, 403)
    }))

  it.effect("a fine-tuning job that completes registers the model it made: of its base model's type when that is registered", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const base = yield* registerModel(caller, "base-embedder", "EMBEDDING")
      const jobs = [
        ok(yield* request("POST", "/v4/fine-tuning-jobs", {
          key: caller.key,
          body: { training_dataset_id: yield* uploadDataset(caller), base_model_id: base, account_id: caller.accountId }
        })),
        ok(yield* request("POST", "/v4/fine-tuning-jobs", {
          key: caller.key,
          body: { training_dataset_id: yield* uploadDataset(caller), base_model_id: "unregistered", account_id: caller.accountId }
        }))
      ]
      const completed: Array<any> = []
      for (const job of jobs) {
        let read = job
        for (let i = 0; i < 300 && read.status !== "COMPLETED"; i++) {
          yield* live(20)
          read = ok(yield* request("GET", `/v4/fine-tuning-jobs/${job.id}`, { key: caller.key }))
        }
        assert.strictEqual(read.status, "COMPLETED")
        completed.push(read)
      }
      const [fromBase, fromElsewhere] = yield* Effect.forEach(completed, (job) =>
        Effect.map(request("GET", `/v4/models/${job.fine_tuned_model_id}`, { key: caller.key }), ok))
      assert.deepStrictEqual(
        [fromBase.model_type, fromBase.base_model_id, fromBase.name, fromBase.account_id, fromBase.created_by_user_id],
        ["EMBEDDING", base, `base-embedder fine-tuned by ${jobs[0].id}`, caller.accountId, caller.identityId]
      )
      assert.deepStrictEqual([fromElsewhere.model_type, fromElsewhere.base_model_id], ["CHAT_COMPLETION", "unregistered"])
      // the new model takes deployments
      ok(yield* request("POST", `/v4/models/${fromBase.id}/deployments`, { key: caller.key, body: { name: "tuned" } }))
    }))
})
