/** Models of the registry (`POST /v4/models`), the parents deployments are made under. */
import { assert } from "@effect/vitest"
import { Effect, TestServices } from "effect"
import { request } from "../../src/testing.js"

/** Registers a model in `caller`'s account through the API and answers its id. */
export const registerModel = (
  caller: { readonly key: string; readonly accountId: string },
  name = "model",
  model_type = "CHAT_COMPLETION"
) =>
  Effect.map(
    request("POST", "/v4/models", { key: caller.key, body: { name, model_type, account_id: caller.accountId } }),
    (response) => {
      assert.strictEqual(response.status, 200, JSON.stringify(response.body))
      return response.body.id as string
    }
  )

/** `count` models of `caller`, their ids in ascending order (for tests that sort by `model_instance_id`). */
export const registerModels = (caller: { readonly key: string; readonly accountId: string }, count: number) =>
  Effect.map(Effect.forEach(Array.from({ length: count }, (_, i) => `model ${i}`), (name) => registerModel(caller, name)), (ids) => [...ids].sort())

export type Caller = { readonly key: string; readonly accountId: string }

/** A deployment of a new model of `caller`, made with `parameters`, once READY. */
export const readyDeployment = (caller: Caller, parameters?: Record<string, unknown>) =>
  Effect.flatMap(registerModel(caller), (model) => readyDeploymentOf(caller, model, parameters))

/** A deployment of `model`, made with `parameters`, once READY (waited for in real time). */
export const readyDeploymentOf = (caller: Caller, model: string, parameters?: Record<string, unknown>) =>
  Effect.gen(function*() {
    const created = yield* request("POST", `/v4/models/${model}/deployments`, {
      key: caller.key,
      body: { name: "d", ...(parameters === undefined ? {} : { model_creation_parameters: parameters }) }
    })
    assert.strictEqual(created.status, 200, JSON.stringify(created.body))
    for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
      const read = yield* request("GET", `/v4/model-deployments/${created.body.id}`, { key: caller.key })
      if (read.body.status === "READY") return created.body.id as string
      yield* TestServices.provideLive(Effect.sleep("5 millis"))
    }
    return assert.fail("the deployment did not become READY")
  })
