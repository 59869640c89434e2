import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Scope, TestContext } from "effect"
import { TestServerLive } from "../src/testing.js"

describe("close timing", () => {
  for (let ms = 900; ms <= 1150; ms += 3) {
    it.live(`close after ${ms} ms`, () =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        yield* Layer.buildWithScope(Layer.provideMerge(TestServerLive, TestContext.TestContext), scope)
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, ms)))
        const started = Date.now()
        const closed = yield* Scope.close(scope, Exit.void).pipe(Effect.timeout("8 seconds"), Effect.exit)
        console.log(ms, Exit.isSuccess(closed) ? `closed in ${Date.now() - started} ms` : "HUNG")
        assert.isTrue(Exit.isSuccess(closed))
      }), 20_000)
  }
})
