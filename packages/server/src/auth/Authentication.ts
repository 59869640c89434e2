/** The `Authentication` middleware of the API: resolves the key to the caller, else 401. */
import { HttpServerRequest } from "@effect/platform"
import { Authentication } from "@platform-kit/api"
import { Unauthorized } from "@platform-kit/schema"
import { Effect, Layer, Option, Redacted } from "effect"
import { noteCaller } from "../http/accessLog.js"
import { Accounts } from "./Accounts.js"

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const missing = new Unauthorized({ detail: "Missing API key: send it in the x-api-key header" })
    const invalid = new Unauthorized({ detail: "Invalid API key" })
    // runs on every authenticated request: plain combinators, no generator
    const resolve = (key: Redacted.Redacted<string>) => {
      const plain = Redacted.value(key)
      // the builder tries x-api-key, then Bearer, and answers the last failure: an empty key here
      // is "missing" only if the request sent neither header
      if (plain.length === 0) {
        return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          Effect.fail(request.headers["x-api-key"] || request.headers["authorization"] ? invalid : missing))
      }
      return Effect.flatMap(accounts.findCaller(plain), (caller) =>
        Option.isNone(caller)
          ? Effect.fail(invalid)
          : Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
            const selected = request.headers["x-selected-account-id"]
            const resolved = { ...caller.value, selectedAccountId: selected === undefined || selected === "" ? undefined : selected }
            noteCaller(request.source, resolved)
            return resolved
          }))
    }
    return { apiKey: resolve, bearer: resolve }
  })
)
