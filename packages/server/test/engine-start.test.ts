/**
 * A workflow engine that cannot start (engine/Lifecycles.ts): its start is tried again for as long
 * as the server runs; meanwhile a lifecycle's start returns at once (no request fails for it, and
 * the entity it stored waits), the status says `failed`, and once the engine runs every unfinished
 * lifecycle goes on.
 */
import { assert, describe, it } from "@effect/vitest"
import { ApplicationDeployment } from "@platform-kit/schema"
import { Context, Effect, Layer, Logger, LogLevel, Option } from "effect"
import { DeploymentsRepo } from "../src/applications/DeploymentsRepo.js"
import { SecretBox } from "../src/credentials/SecretBox.js"
import { ModelProviders } from "../src/models/inference/ModelProviders.js"
import { ModelUsageRepo } from "../src/models/usage/ModelUsageRepo.js"
import { ObjectStore } from "../src/platform/ObjectStore.js"
import { type EngineModule, Lifecycles } from "../src/engine/Lifecycles.js"
import { Simulation } from "../src/engine/Simulation.js"
import { Ids } from "../src/platform/Ids.js"
import { DatabaseTest, eventually } from "../src/testing.js"

describe("a workflow engine that cannot start", () => {
  it.scoped("is tried again; meanwhile starts return and wait; once it runs, the lifecycles go on", () =>
    Effect.gen(function*() {
      // the engine's module fails to load three times (as a database that is not there yet would), then loads
      let attempts = 0
      const load = (): Promise<EngineModule> =>
        ++attempts <= 3 ? Promise.reject(new Error(`not yet (attempt ${attempts})`)) : import("../src/workflows.js")
      const context = yield* Layer.build(
        Lifecycles.lazy(load).pipe(
          Layer.provideMerge(Layer.mergeAll(Simulation.layer, DeploymentsRepo.Default, ModelProviders.Default, ModelUsageRepo.Default, ObjectStore.Default, SecretBox.Live)),
          Layer.provideMerge(Ids.Live),
          Layer.provideMerge(DatabaseTest)
        )
      )
      const lifecycles = Context.get(context, Lifecycles)
      const repo = Context.get(context, DeploymentsRepo)
      assert.strictEqual(yield* lifecycles.status, "loading")

      const deployment = new ApplicationDeployment({
        id: "3f1c2a4e-0000-4000-8000-000000000001",
        name: "app",
        endpoint: "https://app.example",
        application_variant_id: "v1",
        status: "PENDING",
        is_active: true,
        account_id: "acct-engine-start",
        created_by_user_id: "user-1",
        created_by_identity_type: "user",
        created_at: new Date().toISOString()
      })
      yield* repo.insert(deployment)
      // the first start asks for the engine; its load fails: the start returns, and says so
      yield* lifecycles.start({ workflow: "ApplicationDeployment", id: deployment.id, account_id: deployment.account_id })
      assert.isAtLeast(attempts, 1)
      assert.strictEqual(yield* lifecycles.status, "failed")
      // an advance of nothing does not wait for the engine (the control plane's PATCH and reset make one)
      yield* lifecycles.advance([])
      assert.strictEqual(Option.getOrThrow(yield* repo.findById(deployment.id, [deployment.account_id])).status, "PENDING")

      // tried again until it loads; then the deployment left PENDING goes on, started by the engine
      const read = Effect.map(repo.findById(deployment.id, [deployment.account_id]), (found) => Option.getOrThrow(found).status)
      const ready = yield* eventually(Effect.map(read, Option.liftPredicate((status) => status === "READY")), 6_000)
      assert.strictEqual(Option.isSome(ready) ? ready.value : yield* read, "READY")
      assert.strictEqual(attempts, 4)
      assert.strictEqual(yield* lifecycles.status, "running")
    }).pipe(Logger.withMinimumLogLevel(LogLevel.None)), 30_000)
})
