/**
 * `/openapi.json` and its viewer `/docs`, built on their first request instead of at start.
 *
 * `HttpApiBuilder.middlewareOpenApi` and `HttpApiSwagger.layer` derive the whole OpenAPI document
 * (every Schema through `JSONSchema`) while the server starts, each once: about a quarter of the
 * start-up CPU (docs/benchmarks.md "Start-up"), for two routes few requests use. Here the routes are
 * registered at start and the work is done, once, by the first request that needs it; later
 * requests reuse the same response. The answers are the same: `/openapi.json` is
 * `OpenApi.fromApi(api)` serialized by `HttpServerResponse.json`, as `middlewareOpenApi` does, and
 * `/docs` is the page `HttpApiSwagger.layer` makes (its own code, run on a private router), whose
 * module with the 2 MB of Swagger UI assets is imported only then: a bundle built with code
 * splitting (`npm run build`) keeps it in a separate chunk that the start does not load.
 */
import { HttpApi, HttpApiBuilder, HttpServerRequest, HttpServerResponse, OpenApi } from "@effect/platform"
import { type ConfigError, Effect, Layer, Option } from "effect"
import { PublicUrl } from "../config.js"

/** A `Host` header's value: a name or an address, and a port. */
const hostPattern = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

/**
 * Where the document says the API is served: `PLATFORM_PUBLIC_URL` when set (behind a proxy),
 * else where this request was sent (its `Host`: the address the server listens on, or the one a
 * port mapping gave it), so that `/docs` calls this server; with neither, the document's own.
 */
const servedAt = (publicUrl: Option.Option<string>) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    if (Option.isSome(publicUrl)) return Option.some(publicUrl.value)
    const host = request.headers.host
    return host !== undefined && hostPattern.test(host) ? Option.some(`http://${host}`) : Option.none()
  })

/**
 * The OpenAPI document of the served API as `HttpApiBuilder.middlewareOpenApi` answers it, its
 * `servers` the one this request reached (`servedAt`). The document is derived once.
 */
const openApiResponse = (api: HttpApi.Api["Type"], publicUrl: Option.Option<string>) =>
  Effect.map(Effect.cached(Effect.sync(() => OpenApi.fromApi(api.api))), (document) =>
    Effect.gen(function*() {
      const spec = yield* document
      const url = yield* servedAt(publicUrl)
      return yield* HttpServerResponse.json(
        Option.isNone(url) ? spec : { ...spec, servers: [{ url: url.value, description: "This server" }] }
      )
    }).pipe(Effect.orDie))

/**
 * The Swagger page of `HttpApiSwagger.layer`: its layer registers the page on a router of its
 * own, built here for this one purpose; the router answers the request as the server's would.
 */
const swaggerApp = (api: HttpApi.Api["Type"], path: `/${string}`) =>
  Effect.gen(function*() {
    const HttpApiSwagger = yield* Effect.promise(() => import("@effect/platform/HttpApiSwagger"))
    const docs = HttpApiSwagger.layer({ path }).pipe(
      // the same `Router.Live` the layer provides itself: one router, which is then read back
      Layer.provideMerge(HttpApiBuilder.Router.Live),
      Layer.provide(Layer.succeed(HttpApi.Api, api))
    )
    return yield* Effect.provide(HttpApiBuilder.Router.router, docs)
  })

/**
 * `GET /openapi.json` and `GET /docs`, each built by its first request. Needs `HttpApi.Api`; reads
 * `PLATFORM_PUBLIC_URL`.
 */
export const DocsLive: Layer.Layer<never, ConfigError.ConfigError, HttpApi.Api> = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const api = yield* HttpApi.Api
    const openApi = yield* openApiResponse(api, yield* PublicUrl)
    yield* router.get("/openapi.json", openApi)
    const swagger = yield* Effect.cached(swaggerApp(api, "/docs"))
    yield* router.get("/docs", Effect.flatMap(swagger, (app) => Effect.orDie(app)))
  })
)
