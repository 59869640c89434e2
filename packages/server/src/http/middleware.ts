/**
 * What wraps every request, whatever the endpoint: the `x-request-id`, the body size limit (413,
 * see bodyLimit.ts), JSON bodies for unknown routes, and the contract's 500 for anything unexpected
 * (logged with the request id; the body never carries a stack or SQL).
 */
import { FileSystem, HttpIncomingMessage, HttpMiddleware, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Cause, Effect, Layer, Option } from "effect"
import * as Crypto from "node:crypto"
import { noteRequestId } from "./accessLog.js"
import { limitBody, limitStreamedBody } from "./bodyLimit.js"
import { isBodyTooLarge, openAiDetailResponse } from "./validation.js"

/** The contract's `{"detail": message}` error response. */
export const detail = (status: number, message: string) => HttpServerResponse.unsafeJson({ detail: message }, { status })

const isTooLarge = (cause: Cause.Cause<unknown>) =>
  Cause.find(cause, (reason) => {
    const value = reason._tag === "Die" ? reason.defect : reason._tag === "Fail" ? reason.error : undefined
    return isBodyTooLarge(value) ? Option.some(true) : Option.none()
  })._tag === "Some"

/**
 * The platform's own body limit (`MaxBodySize`, a backstop behind `limitBody` for the platform's
 * body readers), set once for every request rather than provided per request. Part of the layer
 * that installs `requestContext`, so whatever serves the app (the Node server, `toWebHandler`) runs
 * its requests with it, as it did when it was provided per request.
 */
export const maxBodySizeLayer = (maxBodyBytes: number) =>
  Layer.succeed(HttpIncomingMessage.MaxBodySize, Option.some(FileSystem.Size(maxBodyBytes)))

/**
 * A route that streams its body where it goes (a file upload) and has a size limit of its own
 * instead of the general one (`limitStreamedBody`): `POST /v5/files` and its 413's `detail`.
 */
export interface StreamedBodyRoute {
  readonly method: string
  /** The path exactly, without a query. */
  readonly path: string
  readonly maxBytes: number
  readonly detail: string
}

/**
 * Written without `Effect.gen` and without a per-request `provideService`: this wraps every request,
 * and each of those costs a generator or a copy of the request's context
 * (docs/benchmarks.md "The per-request floor").
 */
export const requestContext = (options: {
  readonly maxBodyBytes: number
  /** The routes with a limit of their own (`StreamedBodyRoute`); every other has `maxBodyBytes`. */
  readonly streamedBodies?: ReadonlyArray<StreamedBodyRoute>
  /** The API's typed errors as responses (`HttpApiBuilder.buildMiddleware`), so they carry the request id too. */
  readonly encodeErrors: (
    effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>
  /**
   * Whether a request is to an endpoint that answers OpenAI's `error` object beside `detail` (the
   * OpenAI-style front door, `makeOpenAiRoutes` of validation.ts): its 413 and 500 have it too.
   * Asked of those answers only.
   */
  readonly openAiRoute?: (request: HttpServerRequest.HttpServerRequest) => boolean
}) =>
(app: HttpApp.Default): HttpApp.Default => {
  const tooLargeMessage = `Request body larger than ${options.maxBodyBytes} bytes`
  const tooLarge = () => detail(413, tooLargeMessage)
  /** This middleware's own 413 or 500, as the request's endpoint answers its errors. */
  const shaped = (request: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse) =>
    (response.status === 413 || response.status === 500) && options.openAiRoute?.(request) === true
      ? openAiDetailResponse(response.status, response.status === 413 ? tooLargeMessage : "Internal Server Error")
      : response
  const limit = limitBody(options.maxBodyBytes, tooLarge)
  const streamed = new Map((options.streamedBodies ?? []).map((route) =>
    [`${route.method} ${route.path}`, limitStreamedBody(route.maxBytes, () => detail(413, route.detail))] as const
  ))
  /** The limit of `request`'s route: its own (a map lookup, only when there are such routes), else the general one. */
  const limitOf = (request: HttpServerRequest.HttpServerRequest) => {
    if (streamed.size === 0) return limit
    const query = request.url.indexOf("?")
    return streamed.get(`${request.method} ${query === -1 ? request.url : request.url.slice(0, query)}`) ?? limit
  }
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const requestId = request.headers["x-request-id"] || Crypto.randomUUID()
    noteRequestId(request.source, requestId)
    const handled = Effect.catchAllCause(app, (cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
      const failure = Cause.failureOption(cause)
      const unexpected = (cause: Cause.Cause<unknown>) =>
        Effect.logError("request failed", cause).pipe(
          Effect.annotateLogs({ request_id: requestId, method: request.method, url: request.url }),
          Effect.as(detail(500, "Internal Server Error"))
        )
      if (Option.isSome(failure)) {
        if ((failure.value as any)?._tag === "RouteNotFound") return Effect.succeed(detail(404, "Not Found"))
        // typed failures are the API's errors, answered with their status (and this request's id)
        return Effect.catchAllCause(options.encodeErrors(Effect.failCause(cause)), unexpected)
      }
      if (isTooLarge(cause)) return Effect.succeed(tooLarge())
      return unexpected(cause)
    })
    return Effect.map(limitOf(request)(handled), (response) =>
      HttpServerResponse.setHeaders(shaped(request, response), {
        "x-request-id": requestId,
        ...(isFinalConflict(response) ? { "x-should-retry": "false" } : {})
      }))
  })
}

/** Logs are not written per request on the hot path; failures log themselves above. */
export const withoutRequestLogger = HttpMiddleware.withLoggerDisabled

/**
 * A 409 without `retry-after` is the API's `Conflict` (a duplicate name, nothing to roll back): the
 * same request answers the same again, so it says so to clients that retry a 409 by default (the
 * platform's generated SDKs, and this kit's client: docs/idempotency.md). A 409 with
 * `retry-after` (an idempotency key's first request still running) is worth retrying.
 */
export const isFinalConflict = (response: HttpServerResponse.HttpServerResponse) =>
  response.status === 409 && response.headers["retry-after"] === undefined
