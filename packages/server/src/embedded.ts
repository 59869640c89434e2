/**
 * The whole API inside an Effect program, no port opened: an `HttpClient` whose requests are
 * answered in-process by the same application the server runs. Give it a database (`SqlClient`)
 * and `Ids`, then derive the typed client over it with `makeClient`.
 */
import {
  HttpApiBuilder,
  HttpClient,
  HttpClientError,
  HttpClientRequest,
  HttpClientResponse,
  HttpServer
} from "@effect/platform"
import type { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { AppLive } from "./app.js"
import type { Ids } from "./platform/Ids.js"

export const InProcessHttpClient: Layer.Layer<HttpClient.HttpClient, never, SqlClient.SqlClient | Ids> = Layer.scoped(
  HttpClient.HttpClient,
  Effect.gen(function*() {
    const context = yield* Effect.context<SqlClient.SqlClient | Ids>()
    const { dispose, handler } = HttpApiBuilder.toWebHandler(
      Layer.mergeAll(AppLive, HttpServer.layerContext).pipe(Layer.provide(Layer.succeedContext(context)))
    )
    yield* Effect.addFinalizer(() => Effect.promise(dispose))
    return HttpClient.make((request, url, signal) => {
      const raw = request.body._tag === "Uint8Array" || request.body._tag === "Raw" ? request.body.body : undefined
      // a form (`upload_files`) goes as one: the web Request writes its multipart body
      const body = request.body._tag === "FormData"
        ? request.body.formData
        : typeof raw === "string" || raw instanceof Uint8Array
        ? raw
        : undefined
      return Effect.tryPromise({
        try: () => handler(new Request(url, { method: request.method, headers: request.headers, body: body ?? null, signal })),
        catch: (cause) => new HttpClientError.RequestError({ request, reason: "Transport", cause })
      }).pipe(Effect.map((response) => HttpClientResponse.fromWeb(request, response)))
    }).pipe(HttpClient.mapRequest(HttpClientRequest.prependUrl("http://platform.in-process")))
  })
)
