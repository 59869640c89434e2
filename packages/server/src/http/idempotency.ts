/**
 * `Idempotency-Key` for every POST endpoint, in one middleware (docs/idempotency.md).
 *
 * A POST that carries the header is performed once per (caller identity, key): a retry with the
 * same method, path, body and selected account answers the first response again, with
 * `idempotent-replayed: true`; the same key with another request is a 422 at
 * `["header","idempotency-key"]`; while the first request runs, another one with its key gets a 409
 * with `retry-after: 1`. Responses that are a final answer are recorded: 2xx, and 4xx except 401,
 * 408, 413, 422 and 429 (those say the request never got in, or may be sent again as it is). A 5xx
 * or a failure records nothing, so a retry performs again; nor does a response marked
 * `Cache-Control: no-store` (a credential's secret): it is never kept, and a retry with its key is
 * performed again, answering what the credential holds then. Keys expire 24 h after their first request.
 *
 * Requests without the header, and every other method, pass straight through: no database read.
 */
import { Headers, HttpApiBuilder, HttpServerRequest, HttpServerResponse, Multipart } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { ValidationIssue } from "@platform-kit/schema"
import { Effect, Exit, identity, Option, Stream } from "effect"
import * as Crypto from "node:crypto"
import { Accounts } from "../auth/Accounts.js"
import { IdempotencyStore, type StoredResponse } from "../idempotency/IdempotencyStore.js"
import { canonicalJson } from "../platform/canonicalJson.js"
import { discardRest, withBody } from "./bodyLimit.js"
import { detail as detailResponse, type StreamedBodyRoute } from "./middleware.js"
import { validationResponse } from "./validation.js"

/** The request header (HTTP header names are case-insensitive; Node gives them lower-cased). */
export const IdempotencyKeyHeader = "idempotency-key"

/** Set to `true` on a response that replays a recorded one. */
export const IdempotentReplayedHeader = "idempotent-replayed"

/** Longest accepted key. */
export const IdempotencyKeyMaxLength = 255

/** Whether a response is a final answer worth replaying (a 5xx or a "try again" 4xx is not). */
export const isRecorded = (status: number): boolean =>
  (status >= 200 && status < 300) ||
  (status >= 400 && status < 500 && status !== 401 && status !== 408 && status !== 413 && status !== 422 &&
    status !== 429)

/**
 * Whether a response may not be stored (`Cache-Control: no-store`): the answers that carry a secret
 * say so, and are never written to the idempotency table, where they would sit in clear and be
 * replayed after the secret changed or its credential went.
 */
export const forbidsStorage = (response: HttpServerResponse.HttpServerResponse): boolean =>
  /(?:^|,)\s*no-store\s*(?:,|$)/i.test(response.headers["cache-control"] ?? "")

/** Headers never recorded: the request id is per request, cookies are per session. */
const notRecorded = new Set(["x-request-id", "set-cookie", "content-length"])

/** The body by its meaning: a JSON body's key order and whitespace do not make another request. */
const canonicalBody = (body: string): string => {
  if (body.length === 0) return ""
  try {
    return `json:${canonicalJson(JSON.parse(body))}`
  } catch {
    return `text:${body}`
  }
}

/** The hash a retry must repeat: the body (as a JSON value when it parses) and the selected account. */
export const requestHash = (body: string, selectedAccountId: string | undefined): string =>
  Crypto.createHash("sha256").update(JSON.stringify([selectedAccountId ?? null, canonicalBody(body)])).digest("hex")

const keyIssue = (key: string, type: string, msg: string, ctx?: Record<string, unknown>) =>
  validationResponse([
    new ValidationIssue({ loc: ["header", IdempotencyKeyHeader], msg, type, input: key, ...(ctx ? { ctx } : {}) })
  ])

const inProgress = HttpServerResponse.unsafeJson(
  { detail: "A request with this Idempotency-Key is in progress; retry it later" },
  { status: 409, headers: Headers.fromInput({ "retry-after": "1" }) }
)

/** The response to record, or none when its body is not plain bytes (nothing here streams). */
const snapshot = (response: HttpServerResponse.HttpServerResponse): Option.Option<StoredResponse> => {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers)) {
    if (!notRecorded.has(name)) headers[name] = value
  }
  const body = response.body
  switch (body._tag) {
    case "Empty":
      return Option.some({ status: response.status, headers, body: "" })
    case "Uint8Array":
      return Option.some({
        status: response.status,
        headers: { ...headers, "content-type": body.contentType },
        body: new TextDecoder().decode(body.body)
      })
    case "Raw":
      return typeof body.body === "string"
        ? Option.some({
          status: response.status,
          headers: body.contentType === undefined ? headers : { ...headers, "content-type": body.contentType },
          body: body.body
        })
        : Option.none()
    default:
      return Option.none()
  }
}

const replay = (stored: StoredResponse) => {
  const { "content-type": contentType, ...rest } = stored.headers
  const response = contentType === undefined && stored.body.length === 0
    ? HttpServerResponse.empty({ status: stored.status, headers: Headers.fromInput(rest) })
    : HttpServerResponse.text(stored.body, {
      status: stored.status,
      headers: Headers.fromInput(rest),
      ...(contentType === undefined ? {} : { contentType })
    })
  return HttpServerResponse.setHeader(response, IdempotentReplayedHeader, "true")
}

const isForm = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-type"] ?? "").toLowerCase().startsWith("multipart/form-data")

/**
 * A multipart form (an `upload_files`), buffered: what it is fingerprinted by, and `app` run on the
 * request answering from the buffered bytes (its stream is read). The fingerprint is the form's
 * fields and files in order (names, file names, types, contents), not its bytes: a client that
 * sends the same form again serializes it with a new boundary. A route with a body limit of its
 * own (`StreamedBodyRoute`: its body reaches here unread) is buffered up to that limit, answered
 * with its 413 beyond it; any other body was read within the general limit before.
 */
const bufferedForm = (request: HttpServerRequest.HttpServerRequest, app: HttpApp.Default, route: StreamedBodyRoute | undefined) =>
  Effect.gen(function*() {
    const maxBytes = route?.maxBytes ?? Number.MAX_SAFE_INTEGER
    // the stream's chunks, not `arrayBuffer`: on a Node request that answers the whole pooled
    // buffer a short body was read into
    const chunks: Array<Uint8Array> = []
    let size = 0
    yield* Effect.orDie(request.stream.pipe(
      Stream.takeUntil((chunk) => (size += chunk.length) > maxBytes),
      Stream.runForEach((chunk) => Effect.sync(() => chunks.push(chunk)))
    ))
    if (size > maxBytes) {
      discardRest(request, maxBytes)
      return { tooLarge: detailResponse(413, route!.detail) } as const
    }
    const bytes = Buffer.concat(chunks)
    const buffered = withBody(request, bytes)
    const digest = (data: Uint8Array) => Crypto.createHash("sha256").update(data).digest("hex")
    const entries = yield* buffered.multipartStream.pipe(
      Stream.mapEffect((part) =>
        part._tag === "Field"
          ? Effect.succeed([part.key, part.value])
          : Effect.map(part.contentEffect, (content) => [part.key, part.name, part.contentType, digest(content)])
      ),
      Stream.runCollect,
      Effect.map((chunk) => Array.from(chunk)),
      // the form parsed within the route's own limit (the general one otherwise)
      route === undefined ? identity : Multipart.withLimits({ maxTotalSize: Option.some(maxBytes) }),
      // not a form after all: the handler answers that; the bytes are the fingerprint
      Effect.orElseSucceed(() => [["unreadable form", digest(bytes)]])
    )
    return {
      body: JSON.stringify(entries),
      performed: Effect.provideService(app, HttpServerRequest.HttpServerRequest, buffered) as HttpApp.Default
    }
  })

/** The keys a request presents, in the order the `Authentication` middleware tries them. */
const presentedKeys = (headers: Headers.Headers): ReadonlyArray<string> => {
  const out: Array<string> = []
  const apiKey = headers["x-api-key"]
  if (apiKey !== undefined && apiKey.length > 0) out.push(apiKey)
  const authorization = headers["authorization"]
  if (authorization !== undefined && authorization.length > "Bearer ".length) {
    out.push(authorization.slice("Bearer ".length))
  }
  return out
}

/**
 * Builds the middleware. It sits inside the request context (413, 500 bodies, request id) and
 * outside the 422 mapping, so the response it records is the one the caller got.
 */
export const makeIdempotency = (streamedBodies: ReadonlyArray<StreamedBodyRoute> = []) => Effect.gen(function*() {
  const store = yield* IdempotencyStore
  const accounts = yield* Accounts
  // the API's typed errors (403, 404, 409, …) become responses here, so they can be recorded
  const encodeErrors = yield* HttpApiBuilder.buildMiddleware(PlatformApi)

  /** The route with a body limit of its own `request` is for, if any. */
  const routeOf = (request: HttpServerRequest.HttpServerRequest) => {
    const query = request.url.indexOf("?")
    const path = query === -1 ? request.url : request.url.slice(0, query)
    return streamedBodies.find((route) => route.method === request.method && route.path === path)
  }

  const identityOf = (headers: Headers.Headers) =>
    Effect.gen(function*() {
      for (const key of presentedKeys(headers)) {
        const caller = yield* accounts.findCaller(key)
        if (Option.isSome(caller)) return Option.some(caller.value.identityId)
      }
      return Option.none<string>()
    })

  /** A POST that carries an `Idempotency-Key`. */
  const keyedRequest = (app0: HttpApp.Default) => (request: HttpServerRequest.HttpServerRequest, key: string) =>
    Effect.gen(function*() {
      const identity = yield* identityOf(request.headers)
      if (Option.isNone(identity)) return yield* app0 // the Authentication middleware answers 401
      if (key.length === 0) {
        return keyIssue(key, "string_too_short", "String should have at least 1 character", { min_length: 1 })
      }
      if (key.length > IdempotencyKeyMaxLength) {
        return keyIssue(key, "string_too_long", `String should have at most ${IdempotencyKeyMaxLength} characters`, {
          max_length: IdempotencyKeyMaxLength
        })
      }

      // read once here; the request caches the text, so the handler decodes the same bytes. A
      // form is buffered instead, and the handler given a request over that buffer.
      const read = isForm(request)
        ? yield* bufferedForm(request, app0, routeOf(request))
        : { body: yield* Effect.orDie(request.text), performed: app0 }
      if ("tooLarge" in read) return read.tooLarge
      const { body, performed: app } = read
      const selected = request.headers["x-selected-account-id"]
      const fingerprint = {
        method: request.method,
        path: request.url,
        requestHash: requestHash(body, selected === "" ? undefined : selected)
      }
      // from the claim on, nothing may stop the request without settling its claim
      return yield* Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(store.claim(identity.value, key, fingerprint), (claim) => {
          switch (claim._tag) {
            case "Mismatch":
              return Effect.succeed(keyIssue(
                key,
                "idempotency_key_reused",
                "This Idempotency-Key was already used for another request (method, path, body or selected account differ)"
              ))
            case "InProgress":
              return Effect.succeed(inProgress)
            case "Replay":
              return Effect.succeed(replay(claim.response))
            case "Claimed": {
              const settle = (exit: Exit.Exit<HttpServerResponse.HttpServerResponse>) => {
                const recorded = Exit.isSuccess(exit) && isRecorded(exit.value.status) && !forbidsStorage(exit.value)
                  ? snapshot(exit.value)
                  : Option.none()
                const write = Option.isSome(recorded)
                  ? store.complete(identity.value, key, claim.claimId, recorded.value)
                  : store.release(identity.value, key, claim.claimId)
                // the caller still gets its response; a retry meets the claim until its lease ends
                return Effect.catchAllCause(write, (cause) => Effect.logError("idempotency: settling a key failed", cause))
              }
              // typed as `never` like every HttpApp here; the builder's errors travel as failures all the same
              const performed = encodeErrors(
                app as unknown as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>
              ) as unknown as HttpApp.Default
              return restore(performed).pipe(Effect.onExit(settle))
            }
          }
        })
      )
    })

  return (app: HttpApp.Default): HttpApp.Default => {
    const keyed = keyedRequest(app)
    // every other request passes straight through, without a generator of its own
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      if (request.method !== "POST") return app
      const key = request.headers[IdempotencyKeyHeader]
      return key === undefined ? app : keyed(request, key)
    })
  }
})
