/**
 * The lifecycle of an application deployment, a durable workflow (docs/engine.md,
 * docs/applications.md): a new deployment is `PENDING`; the kit simulates provisioning its
 * endpoint (`simulatedStep`: a few seconds in `timed` progression), then it is `READY`, `FAILED`
 * when a fault rule says so (docs/control-plane.md), or `STOPPED` when it was created inactive (`is_active: false`). A deployment activated again
 * (`PATCH … {is_active: true}`) goes through a run of its own (`run`: its activation). Each move
 * claims the row in the state and activation it expects, so a step that runs again moves nothing
 * twice, and a step of a replaced activation nothing at all.
 */
import { Activity, Workflow } from "@effect/workflow"
import { Effect, Layer } from "effect"
import { type FamilyWorkflows, LifecycleEntity, lifecycleKey } from "../engine/Lifecycles.js"
import { simulatedStep } from "../engine/simulatedStep.js"
import { startOnBoot } from "../engine/startOnBoot.js"
import { DeploymentsRepo } from "./DeploymentsRepo.js"

export const ApplicationDeploymentLifecycle = Workflow.make({
  name: "ApplicationDeployment",
  payload: LifecycleEntity,
  idempotencyKey: lifecycleKey
})

/** The workflow. Needs `DeploymentsRepo` and `Simulation`. */
const WorkflowLive = ApplicationDeploymentLifecycle.toLayer(
  Effect.fn("ApplicationDeployment")(function*(deployment) {
    const repo = yield* DeploymentsRepo
    // a fault rule's reason has no field on the deployment (the SDK's shape): FAILED says it
    const fault = yield* simulatedStep("provision", "application_deployment", deployment)
    yield* Activity.make({
      name: "ready",
      execute: repo.settle(deployment, (current) => (fault !== null ? "FAILED" : current.is_active ? "READY" : "STOPPED"))
    })
  })
)

/** The workflow, and the start of every deployment still PENDING when the engine starts. Needs `DeploymentsRepo`, `Simulation`. */
export const ApplicationDeploymentLifecycleLive = startOnBoot(
  "application deployments",
  Effect.flatMap(DeploymentsRepo, (repo) => repo.pending),
  (deployment) => ApplicationDeploymentLifecycle.execute(deployment, { discard: true })
).pipe(Layer.provideMerge(WorkflowLive))

/** The family's workflows, for the engine (../workflows.ts). */
export const ApplicationDeploymentWorkflows = {
  workflows: { ApplicationDeployment: ApplicationDeploymentLifecycle },
  layer: ApplicationDeploymentLifecycleLive.pipe(Layer.provide(DeploymentsRepo.Default))
} satisfies FamilyWorkflows
