import { HttpApiSwagger, HttpClient, HttpLayerRouter, HttpServer, OpenApi } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { PlatformApi } from "@platform-kit/api"
import { ConfigProvider, Effect, Layer } from "effect"
import { request, TestServerLive } from "../src/testing.js"

/** Status, content type and the exact bytes of a GET. */
const get = (path: string) =>
  Effect.gen(function*() {
    const response = yield* HttpClient.get(path)
    return { status: response.status, type: response.headers["content-type"], text: yield* response.text }
  }).pipe(Effect.scoped, Effect.orDie)

/** The page `@effect/platform` makes for the same API, by its own route (no server of the kit). */
const referencePage = Effect.acquireRelease(
  Effect.sync(() => HttpLayerRouter.toWebHandler(HttpApiSwagger.layerHttpLayerRouter({ api: PlatformApi, path: "/docs" }))),
  ({ dispose }) => Effect.promise(() => dispose())
).pipe(
  Effect.flatMap(({ handler }) => Effect.promise(() => handler(new Request("http://localhost/docs")).then((r) => r.text()))),
  Effect.scoped
)

/** The document `OpenApi.fromApi` makes of the API, its one server `url`. */
const servedBy = (url: string) => ({ ...OpenApi.fromApi(PlatformApi), servers: [{ url, description: "This server" }] })

/** The environment with `PLATFORM_PUBLIC_URL` set to `url`. */
const publicUrl = (url: string) =>
  Layer.setConfigProvider(ConfigProvider.orElse(ConfigProvider.fromMap(new Map([["PLATFORM_PUBLIC_URL", url]])), () => ConfigProvider.fromEnv()))

/** The port the test server listens on. */
const listeningPort = Effect.map(HttpServer.HttpServer, (server) => (server.address as HttpServer.TcpAddress).port)

layer(TestServerLive)("docs built on first request", (it) => {
  it.effect("/openapi.json is the document OpenApi.fromApi makes, its server this one, byte for byte, on every request", () =>
    Effect.gen(function*() {
      const expected = JSON.stringify(servedBy(`http://127.0.0.1:${yield* listeningPort}`))
      const first = yield* get("/openapi.json")
      assert.strictEqual(first.status, 200)
      assert.strictEqual(first.type, "application/json")
      assert.strictEqual(first.text, expected)
      const second = yield* get("/openapi.json")
      assert.strictEqual(second.text, expected)
    }))

  it.effect("/openapi.json names the server as the request reached it, so /docs calls it there", () =>
    Effect.gen(function*() {
      const port = yield* listeningPort
      const serverOf = (headers: Record<string, string>) =>
        Effect.map(request("GET", "/openapi.json", { headers }), (response) => response.body.servers)
      // a name, or an address, a port mapping gave it
      assert.deepStrictEqual(yield* serverOf({ host: `localhost:${port}` }), [{ url: `http://localhost:${port}`, description: "This server" }])
      assert.deepStrictEqual(yield* serverOf({ host: "[::1]:9000" }), [{ url: "http://[::1]:9000", description: "This server" }])
      // not a host: the document's own default
      assert.deepStrictEqual(yield* serverOf({ host: "a/b?c" }), OpenApi.fromApi(PlatformApi).servers)
    }))

  it.effect("/docs is the Swagger page of HttpApiSwagger, byte for byte, on every request", () =>
    Effect.gen(function*() {
      const expected = yield* referencePage
      assert.include(expected, "SwaggerUIBundle")
      const [first, second] = yield* Effect.all([get("/docs"), get("/docs")], { concurrency: 2 })
      assert.strictEqual(first.status, 200)
      assert.match(first.type ?? "", /^text\/html/)
      assert.strictEqual(first.text, expected)
      assert.strictEqual(second.status, 200)
      assert.strictEqual(second.text, expected)
    }))

  it.effect("the docs routes answer GET only, and nothing under them", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* get("/docs/x")).status, 404)
      assert.strictEqual((yield* get("/openapi.json/x")).status, 404)
      assert.strictEqual((yield* request("POST", "/docs", { body: "{}" })).status, 404)
      assert.strictEqual((yield* request("DELETE", "/openapi.json")).status, 404)
    }))
})

layer(TestServerLive.pipe(Layer.provide(publicUrl("https://platform.example.org/kit/"))))("docs behind a proxy", (it) => {
  it.effect("/openapi.json names PLATFORM_PUBLIC_URL as the server, whatever the request's Host", () =>
    Effect.gen(function*() {
      const response = yield* request("GET", "/openapi.json", { headers: { host: "internal:8080" } })
      assert.deepStrictEqual(response.body, servedBy("https://platform.example.org/kit"))
    }))
})
