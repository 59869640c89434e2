/**
 * A closed application leaves nothing of itself running: every fiber it started (its HTTP
 * server's, its requests', its workflow engine's and what the engine forked, the engine's loader)
 * has ended once its layer's scope has closed, on either database; so has an engine whose start
 * was being tried again. An embedding program closes the kit and goes on; test files sharing
 * their worker (vitest.config.ts, `isolate: false`) rely on the same.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, type Fiber, Layer, Logger, LogLevel, Option, Supervisor, TestServices } from "effect"
import { ModelProviders } from "../src/models/inference/ModelProviders.js"
import { ModelUsageRepo } from "../src/models/usage/ModelUsageRepo.js"
import { ObjectStore } from "../src/platform/ObjectStore.js"
import { type EngineModule, Lifecycles } from "../src/engine/Lifecycles.js"
import { Simulation } from "../src/engine/Simulation.js"
import { Ids } from "../src/platform/Ids.js"
import { DatabaseTest } from "../src/testDatabase.js"
import { eventually, provision, TestServerLive } from "../src/testing.js"
import { storedVariant } from "./support/applications.js"

/** The fibers `supervisor` saw start that have not ended, by id. */
const running = (supervisor: Supervisor.Supervisor<Array<Fiber.RuntimeFiber<any, any>>>) =>
  Effect.flatMap(supervisor.value, (fibers) =>
    Effect.map(
      Effect.filter(fibers, (fiber) => Effect.map(fiber.status, (status) => status._tag !== "Done")),
      (left) => left.map((fiber) => fiber.id().toString())
    ))

describe("a closed application", () => {
  it.live("has ended every fiber it started: its server's, its requests', its engine's", () =>
    Effect.gen(function*() {
      const supervisor = yield* Supervisor.track
      yield* Effect.gen(function*() {
        const context = yield* Layer.build(TestServerLive)
        yield* Effect.gen(function*() {
          const { accountId, client } = yield* provision()
          const { variant } = yield* storedVariant(client, accountId)
          // a lifecycle: the engine loads and runs it to its end
          const deployment = yield* client.applications.createDeployment({
            payload: { name: "app", endpoint: "https://example.org", application_variant_id: variant, is_active: true, account_id: accountId }
          })
          const settled = yield* eventually(Effect.map(
            client.applications.getDeployment({ path: { application_deployment_id: deployment.id } }),
            (read) => (read.status === "PENDING" ? Option.none() : Option.some(read.status))
          ))
          assert.deepStrictEqual(settled, Option.some("READY"))
        }).pipe(Effect.provide(context))
        assert.isNotEmpty(yield* running(supervisor))
      }).pipe(Effect.scoped, Effect.supervised(supervisor))
      assert.deepStrictEqual(yield* running(supervisor), [])
    }), 60_000)

  it.live("closed while its engine's start is tried again: the loader has ended, and tries no more", () =>
    Effect.gen(function*() {
      const supervisor = yield* Supervisor.track
      let attempts = 0
      const load = (): Promise<EngineModule<never>> => Promise.reject(new Error(`not there (attempt ${++attempts})`))
      yield* Effect.gen(function*() {
        const context = yield* Layer.build(
          Lifecycles.lazy(load).pipe(
            Layer.provideMerge(Layer.mergeAll(Simulation.layer, ModelProviders.Default, ModelUsageRepo.Default, ObjectStore.Default)),
            Layer.provideMerge(Ids.Live),
            Layer.provideMerge(DatabaseTest)
          )
        )
        const lifecycles = Context.get(context, Lifecycles)
        // a start asks for the engine; its load fails, and is tried again (soon at first)
        yield* lifecycles.start({ workflow: "ApplicationDeployment", id: "close-while-retrying", account_id: "acct-close" })
        assert.strictEqual(yield* lifecycles.status, "failed")
        const retried = yield* eventually(Effect.sync(() => (attempts >= 2 ? Option.some(attempts) : Option.none())), 10_000)
        assert.isTrue(Option.isSome(retried))
      }).pipe(Effect.scoped, Effect.supervised(supervisor))
      assert.deepStrictEqual(yield* running(supervisor), [])
      const closedAt = attempts
      yield* TestServices.provideLive(Effect.sleep("1 second"))
      assert.strictEqual(attempts, closedAt)
    }).pipe(Logger.withMinimumLogLevel(LogLevel.None)), 60_000)
})
