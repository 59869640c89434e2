import { HttpApiSwagger, HttpClient, HttpLayerRouter, OpenApi } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { PlatformApi } from "@platform-kit/api"
import { Effect } from "effect"
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

layer(TestServerLive)("docs built on first request", (it) => {
  it.effect("/openapi.json is the document OpenApi.fromApi makes, byte for byte, on every request", () =>
    Effect.gen(function*() {
      const expected = JSON.stringify(OpenApi.fromApi(PlatformApi))
      const first = yield* get("/openapi.json")
      assert.strictEqual(first.status, 200)
      assert.strictEqual(first.type, "application/json")
      assert.strictEqual(first.text, expected)
      const second = yield* get("/openapi.json")
      assert.strictEqual(second.text, expected)
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
