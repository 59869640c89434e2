/**
 * The workflow engine with every family's workflows (docs/engine.md): what `Lifecycles.lazy`
 * imports in the background (engine/Lifecycles.ts). Only this module, and the families'
 * `workflow.ts` files it lists, import `@effect/cluster` and `@effect/workflow`.
 *
 * One runner per process (`SingleRunner`) whose storage is the application's own database: the
 * engine's tables (`cluster_messages`, `cluster_replies`, `cluster_locks`, `cluster_runners`,
 * `cluster_migrations`) are created by the library in the same database, next to the kit's.
 */
import { ClusterWorkflowEngine, SingleRunner } from "@effect/cluster"
import { Effect, Layer } from "effect"
import { PackageJobsRepo } from "./deployment-packages/PackageJobsRepo.js"
import { PackageInstall, PackageInstallLive } from "./deployment-packages/workflow.js"
import type { EngineModule, LifecycleStart } from "./engine/Lifecycles.js"

/** Every family's workflows. */
const WorkflowsLive = PackageInstallLive.pipe(Layer.provide(PackageJobsRepo.Default))

/** The engine: one runner, its messages in the application's database. Needs `SqlClient`. */
const EngineLive = ClusterWorkflowEngine.layer.pipe(
  Layer.provideMerge(SingleRunner.layer({ runnerStorage: "sql" }))
)

export const layer: EngineModule["layer"] = WorkflowsLive.pipe(Layer.provideMerge(EngineLive))

export const start = (request: LifecycleStart) => {
  switch (request.workflow) {
    case "PackageInstall":
      return PackageInstall.execute({ id: request.id, account_id: request.account_id }, { discard: true }).pipe(
        Effect.asVoid
      )
  }
}
