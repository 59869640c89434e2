/**
 * The generation of a variant report, a durable workflow (docs/engine.md, docs/applications.md
 * "Reports"): a first step moves the report's job `Pending` → `Running` and lists the test cases
 * of its datasets; then one step per test case processes the variant on the test case's input
 * and stores its output (or copies the output the report's groups hold for it); a last step
 * scores the outputs with the built-in judge (./judge.ts) and moves the job to `Completed`, or
 * `Failed` with the reason when a test case could not be processed. Each step stores at most one
 * output per test case (`OutputsRepo.insertOnce`, and a unique key on report and test case): a
 * step run again after kill -9 finds its output there and processes nothing twice.
 */
import { Activity, Workflow } from "@effect/workflow"
import { EvaluationDatasetsRepo } from "../../evaluation-datasets/EvaluationDatasetsRepo.js"
import { TestCasesRepo } from "../../evaluation-datasets/TestCasesRepo.js"
import { type FamilyWorkflows, LifecycleEntity, lifecycleKey } from "../../engine/Lifecycles.js"
import { retried } from "../../engine/retried.js"
import { startOnBoot } from "../../engine/startOnBoot.js"
import { Effect, Layer, Schema } from "effect"
import { InteractionsRepo } from "../InteractionsRepo.js"
import { ProcessLive } from "../process/http.js"
import { OutputsRepo } from "../test-case-outputs/OutputsRepo.js"
import { ReportGeneration } from "./generation.js"
import { ReportsRepo } from "./ReportsRepo.js"

export const VariantReportGeneration = Workflow.make({
  name: "ApplicationVariantReport",
  payload: LifecycleEntity,
  idempotencyKey: lifecycleKey
})

const WorkflowLive = VariantReportGeneration.toLayer(
  Effect.fn("ApplicationVariantReport")(function*(report) {
    const generation = yield* ReportGeneration
    const cases = yield* Activity.make({
      name: "start",
      success: Schema.Array(Schema.String),
      execute: retried(generation.start(report), (cause) => Effect.as(generation.giveUp(report, cause), []))
    })
    for (const testCaseId of cases) {
      yield* Activity.make({
        name: `case-${testCaseId}`,
        execute: retried(generation.processCase(report, testCaseId), (cause) => generation.caseFailed(report, testCaseId, cause))
      })
    }
    // a report that has ended (or is gone) is left as it is by every step, this one too
    yield* Activity.make({ name: "finish", execute: retried(generation.finish(report), (cause) => generation.giveUp(report, cause)) })
  })
)

/** The workflow, and the start of every report whose job has not ended when the engine starts. */
export const VariantReportGenerationLive = startOnBoot(
  "application variant reports",
  Effect.flatMap(ReportsRepo, (repo) => repo.unfinished),
  (report) => VariantReportGeneration.execute(report, { discard: true })
).pipe(Layer.provideMerge(WorkflowLive))

/** The family's workflows, for the engine (../../workflows.ts). */
export const VariantReportWorkflows = {
  workflows: { ApplicationVariantReport: VariantReportGeneration },
  layer: VariantReportGenerationLive.pipe(
    Layer.provide(ReportGeneration.Default),
    Layer.provide([ReportsRepo.Default, OutputsRepo.Default, TestCasesRepo.Default, EvaluationDatasetsRepo.Default, InteractionsRepo.Default, ProcessLive])
  )
} satisfies FamilyWorkflows
