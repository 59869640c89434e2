/**
 * The typed client, derived from the same HttpApi the server implements. Every endpoint is a
 * method (`client.modelGroups.create({ payload })`); every error of docs/decisions.md "Errors"
 * arrives decoded as its Schema class (`ValidationError`, `Unauthorized`, `Forbidden`, `NotFound`,
 * `Conflict`, …).
 */
import { PlatformApi } from "@platform-kit/api"
import { Config, Context, Effect, Layer } from "effect"
import { accountIdConfig, baseUrlConfig, type ClientOptions, makeApiClient, retryPolicyConfig } from "./apiClient.js"

// defined beside `makeApiClient` (the client of a part of the API), exported here as before
export { accountIdConfig, baseUrlConfig, type ClientOptions, retryPolicyConfig } from "./apiClient.js"

/** Builds a client over the `HttpClient` in context. */
export const makeClient = (options: ClientOptions) => makeApiClient(PlatformApi, options)

export type Client = Effect.Effect.Success<ReturnType<typeof makeClient>>

/** Where the client connects and with which key. */
export class PlatformClientConfig extends Context.Tag("@platform-kit/client/PlatformClientConfig")<
  PlatformClientConfig,
  ClientOptions
>() {
  /**
   * From `PLATFORM_BASE_URL` (default `http://127.0.0.1:8080`), `PLATFORM_API_KEY`,
   * `PLATFORM_ACCOUNT_ID`, and for the retries `PLATFORM_MAX_RETRIES` (default 2) and
   * `PLATFORM_TIMEOUT_SECONDS` (an attempt's limit, default 60).
   */
  static readonly fromEnv = Layer.effect(
    PlatformClientConfig,
    Effect.gen(function*() {
      return {
        baseUrl: yield* baseUrlConfig,
        apiKey: yield* Config.redacted("PLATFORM_API_KEY"),
        accountId: yield* accountIdConfig,
        retry: yield* retryPolicyConfig
      }
    })
  )
}

/** The client as a service: `yield* PlatformClient` in any Effect program. */
export class PlatformClient extends Effect.Service<PlatformClient>()("@platform-kit/client/PlatformClient", {
  effect: Effect.flatMap(PlatformClientConfig, makeClient)
}) {}
