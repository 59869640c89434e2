/**
 * The run of an evaluation, a durable workflow (docs/evaluations.md "Running", docs/engine.md):
 * batch after batch of its items (`EvaluationRunner.step`), each batch one activity. A batch that
 * completed is not run again after a restart; the one a crash interrupted runs again, and runs
 * only its items no batch wrote (at most `batchSize` items, those in flight, call their model twice).
 * When the run ends, the widgets of dashboards that read the evaluation are computed anew.
 */
import { Activity, Workflow } from "@effect/workflow"
import { Effect, Layer, Schema } from "effect"
import { WidgetComputations } from "../evaluation-dashboards/computation.js"
import { WidgetComputation } from "../evaluation-dashboards/workflow.js"
import { LifecycleEntity, lifecycleKey } from "../engine/Lifecycles.js"
import { retried } from "../engine/retried.js"
import { startOnBoot } from "../engine/startOnBoot.js"
import { EvaluationItemsRepo } from "./EvaluationItemsRepo.js"
import { EvaluationRunner } from "./run.js"

export const EvaluationRun = Workflow.make({
  name: "EvaluationRun",
  payload: LifecycleEntity,
  idempotencyKey: lifecycleKey
})

const WorkflowLive = EvaluationRun.toLayer(
  Effect.fn("EvaluationRun")(function*(evaluation) {
    const runner = yield* EvaluationRunner
    const computations = yield* WidgetComputations
    for (let batch = 0; ; batch++) {
      const more = yield* Activity.make({
        name: `batch-${batch}`,
        success: Schema.Boolean,
        execute: retried(runner.step(evaluation), (cause) => runner.giveUp(evaluation, cause))
      })
      if (!more) break
    }
    // the run has ended: the dashboards' widgets reading the evaluation are computed anew
    const starts = yield* Activity.make({
      name: "widgets",
      success: Schema.Array(Schema.Struct(LifecycleEntity)),
      execute: retried(computations.requestFor(evaluation.id, evaluation.account_id), (cause) =>
        Effect.as(Effect.logError("the widgets reading an evaluation could not be marked for computing", cause), []))
    })
    for (const start of starts) yield* WidgetComputation.execute(start, { discard: true })
  })
)

/** The workflow, and the start of every evaluation with items still pending when the engine starts. Needs `EvaluationRunner`, `EvaluationItemsRepo`. */
export const EvaluationRunLive = startOnBoot(
  "evaluations",
  Effect.flatMap(EvaluationItemsRepo, (items) => items.unfinished),
  (evaluation) => EvaluationRun.execute(evaluation, { discard: true })
).pipe(Layer.provideMerge(WorkflowLive))
