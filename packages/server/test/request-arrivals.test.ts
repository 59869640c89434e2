/**
 * The standalone server stamps each request as it arrives (platform/requestArrivals.ts): what the
 * workflow engine's scheduler reads to give requests the time they need (engine/backgroundScheduler.ts).
 */
import { HttpServer } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { performance } from "node:perf_hooks"
import { LeanHttpLive } from "../src/fast/server.js"
import { Accounts } from "../src/auth/Accounts.js"
import { Ids } from "../src/platform/Ids.js"
import { lastRequestArrival } from "../src/platform/requestArrivals.js"
import { DatabaseTest } from "../src/testDatabase.js"

describe("request arrivals", () => {
  it.scopedLive("each request the server takes in, answered or not, is stamped as it arrives", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(
        LeanHttpLive({ port: 0, host: "127.0.0.1" }).pipe(
          Layer.provideMerge(Accounts.Default),
          Layer.provideMerge(Ids.Live),
          Layer.provideMerge(DatabaseTest)
        )
      )
      const { address } = yield* Effect.provide(HttpServer.HttpServer, context)
      const base = `http://127.0.0.1:${address._tag === "TcpAddress" ? address.port : 0}`
      for (const path of ["/health", "/v4/model-groups"]) {
        const before = performance.now()
        const answered = yield* Effect.promise(() => fetch(`${base}${path}`))
        const after = performance.now()
        assert.include([200, 401], answered.status)
        assert.isAtLeast(lastRequestArrival(), before, path)
        assert.isAtMost(lastRequestArrival(), after, path)
      }
    }))
})
