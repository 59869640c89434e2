/**
 * The lifecycle of a v5 model, a durable workflow (docs/models.md "v5 models", docs/engine.md): a
 * model created (or given a new vendor configuration) is `deploying`; the kit simulates deploying
 * it on its vendor (`simulatedStep` "provision": nothing is deployed), then it is `ready`, or
 * `failed` when a fault rule says so (docs/control-plane.md, lifecycle `inference_model`). Each
 * deployment of a model is a run of its own (`run`); the step moves the model only when it is
 * `deploying` in that run, so a step that runs again moves nothing twice, and a step of a replaced
 * run nothing at all.
 */
import { Activity, Workflow } from "@effect/workflow"
import { Effect, Layer } from "effect"
import { type FamilyWorkflows, LifecycleEntity, lifecycleKey } from "../../engine/Lifecycles.js"
import { simulatedStep } from "../../engine/simulatedStep.js"
import { startOnBoot } from "../../engine/startOnBoot.js"
import { InferenceModelsRepo } from "./InferenceModelsRepo.js"

export const InferenceModelLifecycle = Workflow.make({
  name: "InferenceModel",
  payload: LifecycleEntity,
  idempotencyKey: lifecycleKey
})

/** The workflow. Needs `InferenceModelsRepo` and `Simulation`. */
const WorkflowLive = InferenceModelLifecycle.toLayer(
  Effect.fn("InferenceModel")(function*(model) {
    const repo = yield* InferenceModelsRepo
    const fault = yield* simulatedStep("provision", "inference_model", model)
    yield* Activity.make({ name: "ready", execute: repo.settle(model, fault) })
  })
)

/** The workflow, and the start of every model still deploying when the engine starts. */
export const InferenceModelLifecycleLive = startOnBoot(
  "v5 models",
  Effect.flatMap(InferenceModelsRepo, (repo) => repo.pending),
  (model) => InferenceModelLifecycle.execute(model, { discard: true })
).pipe(Layer.provideMerge(WorkflowLive))

/** The family's workflows, for the engine (../../workflows.ts). */
export const InferenceModelWorkflows = {
  workflows: { InferenceModel: InferenceModelLifecycle },
  layer: InferenceModelLifecycleLive.pipe(Layer.provide(InferenceModelsRepo.Default))
} satisfies FamilyWorkflows
