/**
 * Cross-origin requests from browser pages (docs/operations.md "CORS"): off unless
 * `PLATFORM_CORS_ORIGINS` names the origins allowed (or `*`). On, every response to a request with
 * an allowed `Origin` says so, and a preflight (`OPTIONS`) answers 204 with the methods and the
 * request headers the kit's clients and the platform's SDKs send; the response headers a client
 * reads (request id, retry hints) are exposed to the page. The platform's `HttpMiddleware.cors`
 * does the work, on the builder's application: the lean server (fast/server.ts) leaves a request
 * with an `Origin` to it while CORS is on.
 */
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { CorsOrigins } from "../config.js"

/** The request headers a page may send: the kit's, and those the platform's generated SDKs add. */
export const allowedHeaders = [
  "accept",
  "authorization",
  "content-type",
  "idempotency-key",
  "last-event-id",
  "x-admin-key",
  "x-api-key",
  "x-request-id",
  "x-selected-account-id",
  "x-stainless-arch",
  "x-stainless-lang",
  "x-stainless-os",
  "x-stainless-package-version",
  "x-stainless-retry-count",
  "x-stainless-runtime",
  "x-stainless-runtime-version",
  "x-stainless-timeout"
]

/** The response headers a page's client reads (the request id, and when and whether to retry). */
export const exposedHeaders = ["x-request-id", "retry-after", "retry-after-ms", "x-should-retry"]

/** The methods the API answers. */
const allowedMethods = ["GET", "HEAD", "PUT", "PATCH", "POST", "DELETE"]

/** The platform's CORS middleware on the application when `PLATFORM_CORS_ORIGINS` is set; nothing otherwise. */
export const CorsLive = Layer.unwrapEffect(
  Effect.map(CorsOrigins, (origins) =>
    Option.match(origins, {
      onNone: () => Layer.empty,
      onSome: (origins) =>
        HttpApiBuilder.middlewareCors({
          // an empty list is the platform's "any origin" (`access-control-allow-origin: *`); a
          // predicate answers a listed origin with itself (and `vary: Origin`), any other with nothing
          allowedOrigins: origins[0] === "*" ? [] : (origin: string) => origins.includes(origin),
          allowedMethods,
          allowedHeaders,
          exposedHeaders,
          maxAge: 600
        })
    }))
)
