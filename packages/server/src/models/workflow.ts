/**
 * The lifecycle of a model deployment, a durable workflow (docs/models.md, docs/engine.md): a new
 * deployment is `PENDING`; the kit simulates provisioning its endpoint (`simulatedStep`), then it
 * is `READY` with a `model_endpoint_id` of its own. The step moves the deployment only from
 * `PENDING`, in one transaction holding its row: run again, it changes nothing.
 */
import { Activity, Workflow } from "@effect/workflow"
import { ModelDeployment } from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { type FamilyWorkflows, LifecycleEntity, lifecycleKey } from "../engine/Lifecycles.js"
import { simulatedStep } from "../engine/simulatedStep.js"
import { startOnBoot } from "../engine/startOnBoot.js"
import { Ids } from "../platform/Ids.js"
import { ModelDeploymentsRepo } from "./deployments/ModelDeploymentsRepo.js"

export const ModelDeploymentLifecycle = Workflow.make({
  name: "ModelDeployment",
  payload: LifecycleEntity,
  idempotencyKey: lifecycleKey
})

const WorkflowLive = ModelDeploymentLifecycle.toLayer(
  Effect.fn("ModelDeployment")(function*(deployment) {
    const repo = yield* ModelDeploymentsRepo
    const fault = yield* simulatedStep("provision", "model_deployment", deployment)
    yield* Activity.make({
      name: "ready",
      execute: repo.advance(deployment, "PENDING", (pending) =>
        fault !== null
          ? Effect.succeed(new ModelDeployment({ ...pending, status: "FAILED" }, true))
          : Effect.map(
            Effect.flatMap(Ids, (ids) => ids.make),
            (endpoint) => new ModelDeployment({ ...pending, status: "READY", model_endpoint_id: endpoint }, true)
          ))
    })
  })
)

/** The workflow, and the start of every deployment still PENDING when the engine starts. Needs `ModelDeploymentsRepo`, `Simulation`, `Ids`. */
export const ModelDeploymentLifecycleLive = startOnBoot(
  "model deployments",
  Effect.flatMap(ModelDeploymentsRepo, (repo) => repo.pending),
  (deployment) => ModelDeploymentLifecycle.execute(deployment, { discard: true })
).pipe(Layer.provideMerge(WorkflowLive))

/** The family's workflows, for the engine (../workflows.ts). */
export const ModelDeploymentWorkflows = {
  workflows: { ModelDeployment: ModelDeploymentLifecycle },
  layer: ModelDeploymentLifecycleLive.pipe(Layer.provide(ModelDeploymentsRepo.Default))
} satisfies FamilyWorkflows
