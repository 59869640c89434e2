/**
 * The typed client, derived from the same HttpApi the server implements. Every endpoint is a
 * method (`client.modelGroups.create({ payload })`); every error of docs/decisions.md "Errors"
 * arrives decoded as its Schema class (`ValidationError`, `Unauthorized`, `Forbidden`, `NotFound`,
 * `Conflict`, …).
 */
import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Config, Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { defaultRetryPolicy, type RetryPolicy, withRetries } from "./retry.js"

export interface ClientOptions {
  /** e.g. `http://127.0.0.1:8080`; omitted, requests go to the `HttpClient`'s own base. */
  readonly baseUrl?: string | URL | undefined
  readonly apiKey: Redacted.Redacted<string> | string
  /** Sent as `x-selected-account-id`. */
  readonly accountId?: string | undefined
  /** The control plane's key (`client.admin.*`, docs/control-plane.md), sent as `x-admin-key`. */
  readonly adminKey?: Redacted.Redacted<string> | string | undefined
  /**
   * Retries of transport errors, time-outs, 408, 409, 429 and 5xx, each POST with an
   * `Idempotency-Key` so that its retries are performed once (docs/idempotency.md). Omitted or
   * `true`: `defaultRetryPolicy` (2 retries, 60 seconds an attempt); a policy's missing fields
   * take the default's; `false`: one attempt, no time limit, no key.
   */
  readonly retry?: RetryPolicy | boolean | undefined
}

/** Builds a client over the `HttpClient` in context. */
export const makeClient = (options: ClientOptions) => {
  const key = typeof options.apiKey === "string" ? options.apiKey : Redacted.value(options.apiKey)
  const adminKey = options.adminKey === undefined || typeof options.adminKey === "string"
    ? options.adminKey
    : Redacted.value(options.adminKey)
  return HttpApiClient.make(PlatformApi, {
    baseUrl: options.baseUrl,
    transformClient: (client) => {
      const withHeaders = HttpClient.mapRequest(client, (request) => {
        const withKey = HttpClientRequest.setHeader(request, "x-api-key", key)
        const withAdmin = adminKey === undefined ? withKey : HttpClientRequest.setHeader(withKey, "x-admin-key", adminKey)
        return options.accountId === undefined
          ? withAdmin
          : HttpClientRequest.setHeader(withAdmin, "x-selected-account-id", options.accountId)
      })
      const retry = options.retry
      return retry === false ? withHeaders : withRetries(retry === undefined || retry === true ? {} : retry)(withHeaders)
    }
  })
}

export type Client = Effect.Effect.Success<ReturnType<typeof makeClient>>

/** `PLATFORM_MAX_RETRIES` and `PLATFORM_TIMEOUT_SECONDS` as a retry policy (the defaults when unset). */
export const retryPolicyConfig: Config.Config<RetryPolicy> = Config.all({
  times: Config.integer("PLATFORM_MAX_RETRIES").pipe(
    Config.validate({ message: "a whole number, 0 or more", validation: (n) => n >= 0 }),
    Config.withDefault(defaultRetryPolicy.times)
  ),
  timeout: Config.number("PLATFORM_TIMEOUT_SECONDS").pipe(
    Config.validate({ message: "a number of seconds over 0", validation: (n) => n > 0 }),
    Config.map((seconds): Duration.DurationInput => Duration.seconds(seconds)),
    Config.withDefault(defaultRetryPolicy.timeout)
  )
})

/** `PLATFORM_BASE_URL`, default `http://127.0.0.1:8080`. */
export const baseUrlConfig = Config.string("PLATFORM_BASE_URL").pipe(Config.withDefault("http://127.0.0.1:8080"))

/** `PLATFORM_ACCOUNT_ID`, when set. */
export const accountIdConfig = Config.string("PLATFORM_ACCOUNT_ID").pipe(Config.option, Config.map(Option.getOrUndefined))

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
