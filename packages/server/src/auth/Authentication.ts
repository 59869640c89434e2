/** The `Authentication` middleware of the API: resolves the key to the caller, else 401. */
import { HttpServerRequest } from "@effect/platform"
import { Authentication } from "@platform-kit/api"
import { Unauthorized } from "@platform-kit/schema"
import { Effect, Layer, Option, Redacted } from "effect"
import { Accounts } from "./Accounts.js"

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const resolve = (key: Redacted.Redacted<string>) =>
      Effect.gen(function*() {
        const plain = Redacted.value(key)
        if (plain.length === 0) {
          return yield* Effect.fail(new Unauthorized({ detail: "Missing API key: send it in the x-api-key header" }))
        }
        const caller = yield* accounts.findCaller(plain)
        if (Option.isNone(caller)) return yield* Effect.fail(new Unauthorized({ detail: "Invalid API key" }))
        const request = yield* HttpServerRequest.HttpServerRequest
        const selected = request.headers["x-selected-account-id"]
        return { ...caller.value, selectedAccountId: selected === undefined || selected === "" ? undefined : selected }
      })
    return { apiKey: resolve, bearer: resolve }
  })
)
