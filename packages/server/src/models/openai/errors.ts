/**
 * The front door's errors (docs/inference-v5.md "Errors"): each the kit's body with OpenAI's
 * `error` object beside it (`toOpenAiError`, packages/schema errors.ts), so OpenAI's clients show
 * the message, type and code, and the kit's clients still read `detail`. The handlers' failures and
 * the key check's 401 become those here; the 422 of a request that does not decode, in
 * http/validation.ts (for every endpoint that declares `OpenAiValidationError`, on both serving
 * paths).
 */
import { Authentication, OpenAiAuthentication } from "@platform-kit/api"
import { toOpenAiError } from "@platform-kit/schema"
import { Effect, Layer } from "effect"

/** `OpenAiAuthentication`: the API's own key check (`Authentication`), its 401 in OpenAI's shape. */
export const OpenAiAuthenticationLive = Layer.effect(
  OpenAiAuthentication,
  Effect.map(Authentication, (keys) => ({
    apiKey: (key: Parameters<typeof keys.apiKey>[0]) => Effect.mapError(keys.apiKey(key), toOpenAiError),
    bearer: (token: Parameters<typeof keys.bearer>[0]) => Effect.mapError(keys.bearer(token), toOpenAiError)
  }))
)

/** A front door handler's effect, its failures in OpenAI's shape. */
export const openAiErrors = <A, E extends Parameters<typeof toOpenAiError>[0], R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, toOpenAiError)
