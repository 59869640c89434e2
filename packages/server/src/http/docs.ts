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
import { HttpApi, HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect, Layer } from "effect"

/** The OpenAPI document of the served API as `HttpApiBuilder.middlewareOpenApi` answers it. */
const openApiResponse = (api: HttpApi.Api["Type"]) =>
  Effect.suspend(() => HttpServerResponse.json(OpenApi.fromApi(api.api))).pipe(Effect.orDie)

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

/** `GET /openapi.json` and `GET /docs`, each built by its first request. Needs `HttpApi.Api`. */
export const DocsLive: Layer.Layer<never, never, HttpApi.Api> = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const api = yield* HttpApi.Api
    const openApi = yield* Effect.cached(openApiResponse(api))
    yield* router.get("/openapi.json", openApi)
    const swagger = yield* Effect.cached(swaggerApp(api, "/docs"))
    yield* router.get("/docs", Effect.flatMap(swagger, (app) => Effect.orDie(app)))
  })
)
