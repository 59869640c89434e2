/**
 * The run of an evaluation, a durable workflow (docs/evaluations.md "Running", docs/engine.md):
 * batch after batch of its items (`EvaluationRunner.step`), each batch one activity. A batch that
 * completed is not run again after a restart; the one a crash interrupted runs again, and runs
 * only its items no batch wrote (at most `batchSize` items, those in flight, call their model twice).
 * When the run ends, the widgets of dashboards that read the evaluation are computed anew.
 *
 * An evaluation archived while it runs stops after its batch; restored, it resumes on a run of its
 * own (`run` one up, its own workflow execution: the stopped one has ended), from the items still
 * pending. A run that finds the evaluation on a later run than its own stops, writing nothing.
 */
import { Activity, Workflow } from "@effect/workflow"
import { Effect, Layer, Option, Schema } from "effect"
import { WidgetComputations } from "../evaluation-dashboards/computation.js"
import { WidgetComputation } from "../evaluation-dashboards/workflow.js"
import { type FamilyWorkflows, LifecycleEntity, lifecycleKey } from "../engine/Lifecycles.js"
import { DashboardsRepo } from "../evaluation-dashboards/DashboardsRepo.js"
import { ModelResolver } from "../models/inference/ModelResolver.js"
import { ModelDeploymentsRepo } from "../models/deployments/ModelDeploymentsRepo.js"
import { ModelInstancesRepo } from "../models/registry/ModelInstancesRepo.js"
import { ModelServersRepo } from "../models/servers/ModelServersRepo.js"
import { retried } from "../engine/retried.js"
import { startOnBoot } from "../engine/startOnBoot.js"
import { EvaluationItemsRepo } from "./EvaluationItemsRepo.js"
import { EvaluationsRepo } from "./EvaluationsRepo.js"
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

/**
 * The evaluations with items still pending that are not archived, each on its current run (what
 * the engine's start goes on with).
 */
const unfinished = Effect.gen(function*() {
  const evaluations = yield* EvaluationsRepo
  const pending = yield* Effect.flatMap(EvaluationItemsRepo, (items) => items.unfinished)
  const found = yield* Effect.forEach(pending, (entity) => Effect.option(evaluations.get(entity.id, [entity.account_id], false)))
  return found.flatMap((evaluation) =>
    Option.isSome(evaluation) ? [{ id: evaluation.value.id, account_id: evaluation.value.account_id, run: evaluation.value.run }] : []
  )
})

/** The workflow, and the start of every unfinished evaluation when the engine starts. Needs `EvaluationRunner`, `EvaluationItemsRepo`, `EvaluationsRepo`. */
export const EvaluationRunLive = startOnBoot(
  "evaluations",
  unfinished,
  (evaluation) => EvaluationRun.execute(evaluation, { discard: true })
).pipe(Layer.provideMerge(WorkflowLive))

/**
 * The family's workflows, for the engine (../workflows.ts). A run's models are called through the
 * application's providers (`ModelProviders`): one upstream client and key per process.
 */
export const EvaluationWorkflows = {
  workflows: { EvaluationRun },
  layer: EvaluationRunLive.pipe(
    Layer.provide(WidgetComputations.DefaultWithoutDependencies),
    Layer.provide(DashboardsRepo.Default),
    Layer.provide(EvaluationRunner.DefaultWithoutDependencies),
    Layer.provide(ModelResolver.DefaultWithoutDependencies),
    Layer.provide([
      EvaluationsRepo.Default,
      EvaluationItemsRepo.Default,
      ModelDeploymentsRepo.Default,
      ModelInstancesRepo.Default,
      ModelServersRepo.Default
    ])
  )
} satisfies FamilyWorkflows
