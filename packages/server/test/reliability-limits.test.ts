/**
 * The 1 MiB body limit over real sockets: a body over it is answered 413 with the contract's JSON
 * as soon as the limit is passed (chunked or declared), never read whole, never a connection reset.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { provision, send, sendChunks, serverPort as port, start, TestServerLive, write } from "../src/testing.js"

const MiB = 1024 * 1024

/** `size` bytes of the start of a JSON object that never closes. */
const jsonPrefix = (size: number) => Buffer.from(`{"name":"${"x".repeat(size)}`)

layer(TestServerLive)("request body limit", (it) => {
  describe("chunked bodies (no content-length)", () => {
    it.effect("over 1 MiB: 413 JSON while the client still holds the body open, and nothing is written", () =>
      Effect.gen(function*() {
        const { key, client } = yield* provision()
        const at = yield* port
        const result = yield* Effect.promise(async () => {
          const started = start({
            port: at,
            method: "POST",
            path: "/v5/evaluations",
            headers: { "x-api-key": key, "content-type": "application/json" }
          })
          await write(started.request, jsonPrefix(MiB + 64 * 1024))
          // the body is not finished: the answer must come anyway
          const response = await started.response
          started.request.destroy()
          return response
        })
        assert.strictEqual(result.status, 413)
        assert.match(result.headers["content-type"] ?? "", /application\/json/)
        assert.isString(result.json.detail)
        assert.strictEqual((yield* client.evaluations.list({ urlParams: {} })).total, 0)
      }))

    it.effect("over 1 MiB and sent whole: 413, not a reset, and the server keeps serving", () =>
      Effect.gen(function*() {
        const { key } = yield* provision()
        const at = yield* port
        const result = yield* Effect.promise(() =>
          sendChunks(
            { port: at, method: "POST", path: "/v5/evaluations", headers: { "x-api-key": key, "content-type": "application/json" } },
            Array.from({ length: 32 }, () => Buffer.alloc(64 * 1024, "x"))
          )
        )
        assert.strictEqual(result.status, 413)
        assert.isString(result.json.detail)
        const health = yield* Effect.promise(() => send({ port: at, method: "GET", path: "/health" }))
        assert.strictEqual(health.status, 200)
      }))

    it.effect("within the limit: the body reaches the API (200), and bad JSON is still a 422", () =>
      Effect.gen(function*() {
        const { key, client } = yield* provision()
        const at = yield* port
        const headers = { "x-api-key": key, "content-type": "application/json" }
        // a body just under the limit, in many chunks
        const body = Buffer.from(JSON.stringify({ name: "chunked", description: "d".repeat(MiB - 1024) }))
        const pieces = Array.from({ length: Math.ceil(body.length / (16 * 1024)) }, (_, i) => body.subarray(i * 16 * 1024, (i + 1) * 16 * 1024))
        const created = yield* Effect.promise(() =>
          sendChunks({ port: at, method: "POST", path: "/v5/evaluations", headers }, pieces)
        )
        assert.strictEqual(created.status, 200)
        assert.strictEqual(created.json.name, "chunked")
        const stored = yield* client.evaluations.get({ path: { evaluation_id: created.json.id }, urlParams: {} })
        assert.strictEqual(stored.description?.length, MiB - 1024)
        const malformed = yield* Effect.promise(() =>
          sendChunks({ port: at, method: "POST", path: "/v5/evaluations", headers }, ["{not json"])
        )
        assert.strictEqual(malformed.status, 422)
        assert.deepStrictEqual(malformed.json.detail.map((issue: any) => issue.type), ["json_invalid"])
      }))
  })

  it.effect("a declared content-length over 1 MiB: 413 before any of the body is sent", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const at = yield* port
      const result = yield* Effect.promise(async () => {
        const started = start({
          port: at,
          method: "POST",
          path: "/v5/evaluations",
          headers: { "x-api-key": key, "content-type": "application/json", "content-length": 2 * MiB }
        })
        const response = await started.response
        started.request.destroy()
        return response
      })
      assert.strictEqual(result.status, 413)
      assert.isString(result.json.detail)
    }))
})
