/**
 * A widget's computation, a durable workflow (docs/evaluation-dashboards.md "Computing"): keyed by
 * the widget and the run it computes, one step. Started by the requests that make or change a
 * widget, by the end of an evaluation's run for the widgets reading it, and at the engine's start
 * for the computations a crash interrupted.
 */
import { Activity, Workflow } from "@effect/workflow"
import { Effect, Layer } from "effect"
import { type FamilyWorkflows, LifecycleEntity, lifecycleKey } from "../engine/Lifecycles.js"
import { EvaluationItemsRepo } from "../evaluations/EvaluationItemsRepo.js"
import { EvaluationsRepo } from "../evaluations/EvaluationsRepo.js"
import { DashboardsRepo } from "./DashboardsRepo.js"
import { retried } from "../engine/retried.js"
import { startOnBoot } from "../engine/startOnBoot.js"
import { WidgetComputations } from "./computation.js"

export const WidgetComputation = Workflow.make({
  name: "WidgetComputation",
  payload: LifecycleEntity,
  idempotencyKey: lifecycleKey
})

const WorkflowLive = WidgetComputation.toLayer(
  Effect.fn("WidgetComputation")(function*(start) {
    const computations = yield* WidgetComputations
    const computation = { ...start, run: start.run ?? 0 }
    yield* Activity.make({
      name: "compute",
      execute: retried(computations.compute(computation), (cause) => computations.giveUp(computation, cause))
    })
  })
)

/** The workflow, and the start of every computation left pending. Needs `WidgetComputations`. */
export const WidgetComputationLive = startOnBoot(
  "widget computations",
  Effect.flatMap(WidgetComputations, (computations) => computations.unfinished),
  (start) => WidgetComputation.execute(start, { discard: true })
).pipe(Layer.provideMerge(WorkflowLive))

/** The family's workflows, for the engine (../workflows.ts). */
export const WidgetComputationWorkflows = {
  workflows: { WidgetComputation },
  layer: WidgetComputationLive.pipe(
    Layer.provide(WidgetComputations.DefaultWithoutDependencies),
    Layer.provide([DashboardsRepo.Default, EvaluationsRepo.Default, EvaluationItemsRepo.Default])
  )
} satisfies FamilyWorkflows
