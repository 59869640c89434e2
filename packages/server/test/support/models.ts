/** Models of the registry (`POST /v4/models`), the parents deployments are made under. */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
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
