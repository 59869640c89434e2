/**
 * What wraps every request, whatever the endpoint: the `x-request-id`, the body size limit (413,
 * see bodyLimit.ts), JSON bodies for unknown routes, and the contract's 500 for anything unexpected
 * (logged with the request id; the body never carries a stack or SQL).
 */
import { HttpMiddleware, HttpServerRequest, HttpServerResponse, HttpIncomingMessage } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Cause, Effect, Option } from "effect"
import * as Crypto from "node:crypto"
import { limitBody } from "./bodyLimit.js"
import { isBodyTooLarge } from "./validation.js"

const detail = (status: number, message: string) => HttpServerResponse.unsafeJson({ detail: message }, { status })

const isTooLarge = (cause: Cause.Cause<unknown>) =>
  Cause.find(cause, (reason) => {
    const value = reason._tag === "Die" ? reason.defect : reason._tag === "Fail" ? reason.error : undefined
    return isBodyTooLarge(value) ? Option.some(true) : Option.none()
  })._tag === "Some"

export const requestContext = (options: { readonly maxBodyBytes: number }) =>
(app: HttpApp.Default): HttpApp.Default =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = request.headers["x-request-id"] || Crypto.randomUUID()
    const tooLarge = () => detail(413, `Request body larger than ${options.maxBodyBytes} bytes`)
    const response = yield* app.pipe(
      HttpIncomingMessage.withMaxBodySize(Option.some(options.maxBodyBytes)),
      Effect.catchAllCause((cause) => {
        if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
        const failure = Cause.failureOption(cause)
        if (Option.isSome(failure)) {
          // typed failures are the API's errors: the builder encodes them with their status
          return (failure.value as any)?._tag === "RouteNotFound"
            ? Effect.succeed(detail(404, "Not Found"))
            : Effect.failCause(cause)
        }
        if (isTooLarge(cause)) return Effect.succeed(tooLarge())
        return Effect.logError("request failed", cause).pipe(
          Effect.annotateLogs({ request_id: requestId, method: request.method, url: request.url }),
          Effect.as(detail(500, "Internal Server Error"))
        )
      }),
      limitBody(options.maxBodyBytes, tooLarge)
    )
    return HttpServerResponse.setHeader(response, "x-request-id", requestId)
  })

/** Logs are not written per request on the hot path; failures log themselves above. */
export const withoutRequestLogger = HttpMiddleware.withLoggerDisabled
