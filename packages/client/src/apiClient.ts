/**
 * The client's machinery over any `HttpApi` made of the platform's groups, not only the whole
 * `PlatformApi`: `makeApiClient` (Effect) and `makePromiseClientOf` (Promises), with the same
 * headers, retries and thrown classes as `makeClient` and `makePromiseClient`, which are these
 * over `PlatformApi`. A program that calls a few families (the console, docs/console.md) builds
 * its client from an `HttpApi` of those groups only:
 *
 * ```ts
 * const ConsoleApi = HttpApi.make("console").add(UsersApi).add(ModelsApi).addError(ValidationError)
 * const platform = makePromiseClientOf(ConsoleApi, { baseUrl, apiKey })
 * ```
 *
 * so that a bundler leaves the other families' Schemas out. This module does not import
 * `PlatformApi` for that reason (nor anything that does).
 */
import { FetchHttpClient, HttpApiClient, HttpApiSchema, HttpClient, HttpClientError, HttpClientRequest } from "@effect/platform"
import type { HttpApi, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Cause, Config, Duration, Effect, Exit, ManagedRuntime, Option, ParseResult, Predicate, Redacted } from "effect"
import type { Layer, SchemaAST as AST } from "effect"
import type { Simplify } from "effect/Types"
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

/** The typed Effect client of `api` (an `HttpApi` of the platform's groups) over the `HttpClient` in context. */
export const makeApiClient = <ApiId extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, ApiError, ApiR>(
  api: HttpApi.HttpApi<ApiId, Groups, ApiError, ApiR>,
  options: ClientOptions
) => {
  const key = typeof options.apiKey === "string" ? options.apiKey : Redacted.value(options.apiKey)
  const adminKey = options.adminKey === undefined || typeof options.adminKey === "string"
    ? options.adminKey
    : Redacted.value(options.adminKey)
  return HttpApiClient.make(api, {
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

/** The server answered an error status. */
export class PlatformApiError extends Error {
  override readonly name = "PlatformApiError"
  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The contract's error name (`NotFound`, `ValidationError`, …), or `HttpError` for a status the operation does not declare. */
    readonly tag: string,
    /** The body's `detail`. */
    readonly detail: unknown,
    /** The whole body as sent. */
    readonly body: unknown
  ) {
    super(`${status} ${tag}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`)
  }
}

/** No answer: the connection failed or an attempt ran out of time, after the retries. */
export class PlatformConnectionError extends Error {
  override readonly name = "PlatformConnectionError"
}

/** A request (or an answer) that does not match the operation's Schema. */
export class PlatformSchemaError extends Error {
  override readonly name = "PlatformSchemaError"
  constructor(message: string, readonly issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>) {
    super(message)
  }
}

type GroupsOf<Api> = Api extends { readonly groups: Record<string, infer G> } ? G : never

type PromiseMethod<Endpoint> = [Endpoint] extends [
  HttpApiEndpoint.HttpApiEndpoint<
    infer _Name,
    infer _Method,
    infer Path,
    infer UrlParams,
    infer Payload,
    infer Headers,
    infer Success,
    infer _Error,
    infer _R,
    infer _RE
  >
] ? (request: Simplify<HttpApiEndpoint.HttpApiEndpoint.ClientRequest<Path, UrlParams, Payload, Headers, false>>) => Promise<Success>
  : never

type PromiseGroup<Group> = Group extends HttpApiGroup.HttpApiGroup<infer _Id, infer Endpoints, infer _E, infer _R> ? {
    readonly [Endpoint in Endpoints as HttpApiEndpoint.HttpApiEndpoint.Name<Endpoint>]: PromiseMethod<Endpoint>
  }
  : never

/** Every operation of `Api`, grouped as in the Effect client, returning Promises. */
export type PromiseClientOf<Api> =
  & { readonly [Group in GroupsOf<Api> as HttpApiGroup.HttpApiGroup.Name<Group>]: PromiseGroup<Group> }
  & {
    /** Releases the client's resources (its HTTP connections); later calls fail. */
    readonly close: () => Promise<void>
  }

export interface PromiseClientOptions extends Partial<ClientOptions> {
  /** The HTTP client to send with; `fetch` by default. */
  readonly httpClient?: Layer.Layer<HttpClient.HttpClient> | undefined
}

/** A failure of the Effect client as the class a Promise rejects with. */
const toThrown = (error: unknown): Effect.Effect<Error> => {
  if (ParseResult.isParseError(error)) {
    const issues = ParseResult.ArrayFormatter.formatErrorSync(error).map(({ message, path }) => ({ path, message }))
    return Effect.succeed(new PlatformSchemaError(error.message, issues))
  }
  if (HttpClientError.isHttpClientError(error)) {
    if (error._tag === "RequestError") return Effect.succeed(new PlatformConnectionError(error.message))
    const response = error.response
    return Effect.map(
      Effect.orElseSucceed(response.json, () => undefined),
      (body) =>
        new PlatformApiError(response.status, "HttpError", Predicate.hasProperty(body, "detail") ? body.detail : body, body)
    )
  }
  // an error of the contract: a Schema class whose status is annotated on it (HttpApiSchema)
  const schema = Predicate.hasProperty(error, "_tag")
    ? (error as { readonly constructor: { readonly ast?: AST.AST } }).constructor
    : undefined
  if (schema?.ast !== undefined) {
    const { _tag, ...body } = error as Record<string, unknown>
    const status = HttpApiSchema.getStatusErrorAST(schema.ast)
    return Effect.succeed(new PlatformApiError(status, String(_tag), "detail" in body ? body.detail : body, body))
  }
  return Effect.succeed(error instanceof Error ? error : new Error(String(error)))
}

/** Options as given, the rest from the environment as `PlatformClientConfig.fromEnv` reads it. */
const resolveOptions = (options: PromiseClientOptions) =>
  Effect.gen(function*() {
    const apiKey = options.apiKey ?? (yield* Config.redacted("PLATFORM_API_KEY").pipe(
      Effect.mapError(() => new Error("makePromiseClient: no apiKey given and PLATFORM_API_KEY is not set"))
    ))
    return {
      ...options,
      apiKey,
      baseUrl: options.baseUrl ?? (yield* baseUrlConfig),
      accountId: options.accountId ?? (yield* accountIdConfig),
      retry: options.retry ?? (yield* retryPolicyConfig)
    } satisfies ClientOptions
  })

/**
 * A client of `api`'s operations returning Promises (`makePromiseClient` is this over
 * `PlatformApi`). What is not given comes from the environment as for `makePromiseClient`.
 * Call `close()` when done.
 */
export const makePromiseClientOf = <ApiId extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, ApiError, ApiR>(
  api: HttpApi.HttpApi<ApiId, Groups, ApiError, ApiR>,
  options: PromiseClientOptions = {}
): PromiseClientOf<HttpApi.HttpApi<ApiId, Groups, ApiError, ApiR>> => {
  const runtime = ManagedRuntime.make(options.httpClient ?? FetchHttpClient.layer)
  // the groups' requirements are their middlewares' clients (none for the platform's groups)
  const client = runtime.runPromise(
    Effect.flatMap(resolveOptions(options), (resolved) => makeApiClient(api, resolved)) as Effect.Effect<unknown, unknown, HttpClient.HttpClient>
  )
  // a failed set-up is reported by each call, not as an unhandled rejection
  client.catch(() => undefined)
  let closed = false
  const call = (group: string, endpoint: string) => async (request: unknown) => {
    if (closed) throw new Error("makePromiseClient: the client is closed")
    const resolved = await client
    const method = (resolved as unknown as Record<string, Record<string, (request: unknown) => Effect.Effect<unknown, unknown>>>)[group]![endpoint]!
    const exit = await runtime.runPromiseExit(method(request))
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    if (Option.isNone(failure)) throw Cause.squash(exit.cause)
    throw await runtime.runPromise(toThrown(failure.value))
  }
  const out: Record<string, unknown> = {
    close: () => {
      closed = true
      return runtime.dispose()
    }
  }
  const groups = Object.values(api.groups) as unknown as ReadonlyArray<
    { readonly identifier: string; readonly endpoints: Record<string, { readonly name: string }> }
  >
  for (const group of groups) {
    const methods: Record<string, unknown> = {}
    for (const endpoint of Object.values(group.endpoints)) methods[endpoint.name] = call(group.identifier, endpoint.name)
    out[group.identifier] = methods
  }
  return out as PromiseClientOf<HttpApi.HttpApi<ApiId, Groups, ApiError, ApiR>>
}
