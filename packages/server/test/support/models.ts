/** Models of the registry (`POST /v4/models`), the parents deployments are made under. */
import { assert } from "@effect/vitest"
import type { Client } from "@platform-kit/client"
import type { ModelType } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { eventually } from "../../src/testing.js"

/** A caller as `provision()` makes it: its key, its account and its typed client. */
export type Caller = { readonly key: string; readonly accountId: string; readonly client: Client }

/** Registers a model in `caller`'s account through the API and answers its id. */
export const registerModel = (caller: Caller, name = "model", model_type: ModelType = "CHAT_COMPLETION") =>
  Effect.map(
    caller.client.models.create({ payload: { name, model_type, account_id: caller.accountId } }),
    (model) => model.id
  )

/** `count` models of `caller`, their ids in ascending order (for tests that sort by `model_instance_id`). */
export const registerModels = (caller: Caller, count: number) =>
  Effect.map(Effect.forEach(Array.from({ length: count }, (_, i) => `model ${i}`), (name) => registerModel(caller, name)), (ids) => [...ids].sort())

/** A deployment of a new model of `caller`, made with `parameters`, once READY. */
export const readyDeployment = (caller: Caller, parameters?: Record<string, unknown>) =>
  Effect.flatMap(registerModel(caller), (model) => readyDeploymentOf(caller, model, parameters))

/** A deployment of `model`, made with `parameters`, once READY (waited for in real time, 30 s at most). */
export const readyDeploymentOf = (caller: Caller, model: string, parameters?: Record<string, unknown>) =>
  Effect.gen(function*() {
    const created = yield* caller.client.models.createDeployment({
      path: { model_instance_id: model },
      payload: { name: "d", ...(parameters === undefined ? {} : { model_creation_parameters: parameters }) }
    })
    const ready = yield* eventually(
      Effect.map(
        caller.client.models.getDeployment({ path: { model_deployment_id: created.id } }),
        (read) => (read.status === "READY" ? Option.some(read.id) : Option.none())
      )
    )
    return Option.isSome(ready) ? ready.value : assert.fail("the deployment did not become READY")
  })
