/**
 * A generation job, a durable workflow (docs/engine.md, docs/evaluation-datasets.md "Generated
 * test cases"): step `start` moves the job `Pending` → `Running` and plans its cases (the plan is
 * recorded with the step, so a job resumed after a restart writes the cases it planned); steps
 * `cases-<from>` write the drafts of `casesPerStep` cases each, with the job's progress (by the
 * account's generation model, one completion per case, else by the built-in generator); step
 * `finish` makes it `Completed`. A cancel makes the next step write nothing and the workflow stop.
 * Each draft's id is made from the job's id and the case's number: a step run again after kill -9
 * writes none twice (by a model, it asks the model again for the one case it had not written).
 */
import { Activity, Workflow } from "@effect/workflow"
import { Effect, Layer, Schema } from "effect"
import { type FamilyWorkflows, LifecycleEntity, lifecycleKey } from "../../engine/Lifecycles.js"
import { retried } from "../../engine/retried.js"
import { startOnBoot } from "../../engine/startOnBoot.js"
import { ModelDeploymentsRepo } from "../../models/deployments/ModelDeploymentsRepo.js"
import { ModelResolver } from "../../models/inference/ModelResolver.js"
import { ModelInstancesRepo } from "../../models/registry/ModelInstancesRepo.js"
import { ModelServersRepo } from "../../models/servers/ModelServersRepo.js"
import { DraftTestCasesRepo } from "../DraftTestCasesRepo.js"
import { casesPerStep, TestCaseGeneration } from "./generation.js"
import { GenerationJobsRepo } from "./GenerationJobsRepo.js"

export const GenerationJob = Workflow.make({
  name: "EvaluationDatasetGenerationJob",
  payload: LifecycleEntity,
  idempotencyKey: lifecycleKey
})

const WorkflowLive = GenerationJob.toLayer(
  Effect.fn("EvaluationDatasetGenerationJob")(function*(job) {
    const generation = yield* TestCaseGeneration
    const plan = yield* Activity.make({
      name: "start",
      success: Schema.Array(Schema.Array(Schema.String)),
      execute: retried(generation.start(job), (cause) => Effect.as(generation.giveUp(job, cause), []))
    })
    if (plan.length === 0) return
    for (let from = 0; ; from += casesPerStep) {
      const more = yield* Activity.make({
        name: `cases-${from}`,
        success: Schema.Boolean,
        execute: retried(generation.writeCases(job, from, plan), (cause) => Effect.as(generation.giveUp(job, cause), false))
      })
      if (!more) break
    }
    yield* Activity.make({ name: "finish", execute: retried(generation.finish(job), (cause) => generation.giveUp(job, cause)) })
  })
)

/** The workflow, and the start of every job that has not ended when the engine starts. */
export const GenerationJobLive = startOnBoot(
  "evaluation dataset generation jobs",
  Effect.flatMap(GenerationJobsRepo, (repo) => repo.unfinished),
  (job) => GenerationJob.execute(job, { discard: true })
).pipe(Layer.provideMerge(WorkflowLive))

/** The room's workflows, for the engine (../../workflows.ts). */
export const GenerationJobWorkflows = {
  workflows: { EvaluationDatasetGenerationJob: GenerationJob },
  layer: GenerationJobLive.pipe(
    Layer.provide(TestCaseGeneration.Default),
    // the generation model is looked up as every model name is; the providers and the usage
    // recorder are the application's (../../workflows.ts)
    Layer.provide(ModelResolver.DefaultWithoutDependencies),
    Layer.provide([GenerationJobsRepo.Default, DraftTestCasesRepo.Default, ModelDeploymentsRepo.Default, ModelInstancesRepo.Default, ModelServersRepo.Default])
  )
} satisfies FamilyWorkflows
