/**
 * CORS (http/cors.ts, docs/operations.md "CORS"): off by default; with `PLATFORM_CORS_ORIGINS` a
 * page on a listed origin may call the API (preflight and response headers), any other may not.
 * Served the way the pass serves (the lean server by default, the builder with `--mode builder`);
 * the browser itself is in processes/cors.reliability.ts.
 */
import { assert, describe, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { provision, request, TestServerLive } from "../src/testing.js"

const page = "http://localhost:3000"

/** The environment with `PLATFORM_CORS_ORIGINS` set to `origins`. */
const corsOrigins = (origins: string) =>
  Layer.setConfigProvider(ConfigProvider.orElse(ConfigProvider.fromMap(new Map([["PLATFORM_CORS_ORIGINS", origins]])), () => ConfigProvider.fromEnv()))

/** A browser's preflight of a POST with the key and a JSON body from `origin`. */
const preflight = (origin: string) =>
  request("OPTIONS", "/v4/model-groups", {
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type,x-api-key" }
  })

const names = (header: string | undefined) => (header ?? "").split(",").map((name) => name.trim()).filter((name) => name !== "")

describe("CORS", () => {
  layer(TestServerLive.pipe(Layer.provide(corsOrigins(`${page}, http://127.0.0.1:5173`))))("on, for two origins", (it) => {
    it.effect("a preflight from a listed origin: 204, the origin, the methods, the headers the clients send, a max age", () =>
      Effect.gen(function*() {
        const response = yield* preflight(page)
        assert.strictEqual(response.status, 204)
        assert.strictEqual(response.headers["access-control-allow-origin"], page)
        assert.include(response.headers["vary"], "Origin")
        assert.includeMembers(names(response.headers["access-control-allow-methods"]), ["GET", "POST", "PUT", "PATCH", "DELETE"])
        assert.includeMembers(names(response.headers["access-control-allow-headers"]), [
          "x-api-key",
          "authorization",
          "content-type",
          "x-selected-account-id",
          "idempotency-key"
        ])
        assert.strictEqual(response.headers["access-control-max-age"], "600")
      }))

    it.effect("a call from a listed origin is answered as ever, with its origin and the headers a client reads exposed", () =>
      Effect.gen(function*() {
        const { accountId, key } = yield* provision()
        const created = yield* request("POST", "/v4/model-groups", {
          key,
          headers: { origin: page },
          body: { name: "from a page", account_id: accountId }
        })
        assert.strictEqual(created.status, 200)
        assert.strictEqual(created.body.name, "from a page")
        assert.strictEqual(created.headers["access-control-allow-origin"], page)
        assert.includeMembers(names(created.headers["access-control-expose-headers"]), ["x-request-id", "retry-after", "retry-after-ms", "x-should-retry"])
        const read = yield* request("GET", `/v4/model-groups/${created.body.id}`, { key, headers: { origin: "http://127.0.0.1:5173" } })
        assert.strictEqual(read.status, 200)
        assert.strictEqual(read.headers["access-control-allow-origin"], "http://127.0.0.1:5173")
        // errors too: the page reads the contract's error body
        const missing = yield* request("GET", "/v4/model-groups/none", { key, headers: { origin: page } })
        assert.strictEqual(missing.status, 404)
        assert.strictEqual(missing.headers["access-control-allow-origin"], page)
        const unauthorized = yield* request("GET", "/v4/model-groups", { headers: { origin: page } })
        assert.strictEqual(unauthorized.status, 401)
        assert.strictEqual(unauthorized.headers["access-control-allow-origin"], page)
      }))

    it.effect("an origin not listed gets no allowance (the browser refuses), and a call without an origin none either", () =>
      Effect.gen(function*() {
        const refused = yield* preflight("http://evil.example")
        assert.isUndefined(refused.headers["access-control-allow-origin"])
        const { key } = yield* provision()
        const other = yield* request("GET", "/v4/model-groups", { key, headers: { origin: "http://localhost:3001" } })
        assert.strictEqual(other.status, 200)
        assert.isUndefined(other.headers["access-control-allow-origin"])
        const server = yield* request("GET", "/v4/model-groups", { key })
        assert.strictEqual(server.status, 200)
        assert.isUndefined(server.headers["access-control-allow-origin"])
      }))
  })

  layer(TestServerLive.pipe(Layer.provide(corsOrigins("*"))))("on, for any origin", (it) => {
    it.effect("any origin: `*`", () =>
      Effect.gen(function*() {
        const response = yield* preflight("http://anywhere.example:8000")
        assert.strictEqual(response.status, 204)
        assert.strictEqual(response.headers["access-control-allow-origin"], "*")
        const { key } = yield* provision()
        const listed = yield* request("GET", "/v4/model-groups", { key, headers: { origin: "http://anywhere.example:8000" } })
        assert.strictEqual(listed.status, 200)
        assert.strictEqual(listed.headers["access-control-allow-origin"], "*")
      }))
  })

  layer(TestServerLive)("off (the default)", (it) => {
    it.effect("no preflight route and no allowance: a browser refuses every cross-origin call", () =>
      Effect.gen(function*() {
        const response = yield* preflight(page)
        assert.strictEqual(response.status, 404)
        assert.isUndefined(response.headers["access-control-allow-origin"])
        const { key } = yield* provision()
        const listed = yield* request("GET", "/v4/model-groups", { key, headers: { origin: page } })
        assert.strictEqual(listed.status, 200)
        assert.isUndefined(listed.headers["access-control-allow-origin"])
      }))
  })
})
