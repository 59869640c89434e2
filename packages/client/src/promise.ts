/**
 * The typed client for programs that do not use Effect: the same operations, each returning a
 * Promise (`await platform.modelGroups.get({ path: { model_group_id } })`), with the same defaults
 * (retries, time limit, idempotency keys) and the failures thrown as classes:
 *
 * - `PlatformApiError`: the server answered an error status; `status`, the body's `detail` (a
 *   string, or for a 422 the array of `{loc, msg, type}`), the whole `body`, and `tag` (the
 *   contract's error name, as the Effect client's `_tag`);
 * - `PlatformConnectionError`: no answer (the connection failed, or an attempt's time ran out,
 *   after the retries);
 * - `PlatformSchemaError`: a request the operation's Schema rejects, found before anything is
 *   sent (or an answer that does not match its Schema); `issues` lists each problem's path and
 *   message.
 */
import { FetchHttpClient, HttpApiSchema, HttpClientError } from "@effect/platform"
import type { HttpApiEndpoint, HttpApiGroup, HttpClient } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Cause, Config, Effect, Exit, ManagedRuntime, Option, ParseResult, Predicate } from "effect"
import type { Layer, SchemaAST as AST } from "effect"
import type { Simplify } from "effect/Types"
import { accountIdConfig, baseUrlConfig, type ClientOptions, makeClient, retryPolicyConfig } from "./PlatformClient.js"

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

type Groups = typeof PlatformApi extends { readonly groups: Record<string, infer G> } ? G : never

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

/** Every operation of the API, grouped as in the Effect client, returning Promises. */
export type PromiseClient =
  & { readonly [Group in Groups as HttpApiGroup.HttpApiGroup.Name<Group>]: PromiseGroup<Group> }
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
 * A client whose operations return Promises. What is not given comes from the environment
 * (`PLATFORM_BASE_URL`, `PLATFORM_API_KEY`, `PLATFORM_ACCOUNT_ID`, `PLATFORM_MAX_RETRIES`,
 * `PLATFORM_TIMEOUT_SECONDS`). Call `close()` when done.
 */
export const makePromiseClient = (options: PromiseClientOptions = {}): PromiseClient => {
  const runtime = ManagedRuntime.make(options.httpClient ?? FetchHttpClient.layer)
  const client = runtime.runPromise(Effect.flatMap(resolveOptions(options), makeClient))
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
  for (const group of Object.values(PlatformApi.groups)) {
    const methods: Record<string, unknown> = {}
    for (const endpoint of Object.values(group.endpoints)) methods[endpoint.name] = call(group.identifier, endpoint.name)
    out[group.identifier] = methods
  }
  return out as PromiseClient
}
