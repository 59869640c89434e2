/**
 * The lifecycle of a fine-tuning job, a durable workflow (docs/fine-tuning-jobs.md,
 * docs/engine.md): `PENDING` while it waits for a trainer (a simulated step), `RUNNING` through
 * its epochs (a simulated step each, logged with the simulated loss: training.ts), then
 * `COMPLETED` with `fine_tuned_model_id`, or `FAILED` where a fault rule says so
 * (docs/control-plane.md), its reason logged. Every step moves and logs the job only from the state
 * it expects, in one transaction holding its row: a step run again changes nothing, and a job
 * cancelled meanwhile (`CANCELED`) ends the workflow at its next step.
 */
import { Activity, Workflow } from "@effect/workflow"
import { FineTuningJob } from "@platform-kit/schema"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { type FamilyWorkflows, LifecycleEntity, lifecycleKey } from "../engine/Lifecycles.js"
import { simulatedStep } from "../engine/simulatedStep.js"
import { startOnBoot } from "../engine/startOnBoot.js"
import { Ids } from "../platform/Ids.js"
import { ModelInstancesRepo } from "../models/registry/ModelInstancesRepo.js"
import { FineTuningJobsRepo } from "./FineTuningJobsRepo.js"
import { completedEntry, epochEntry, epochsOf, failedEntry, startedEntry } from "./training.js"

export const FineTuningLifecycle = Workflow.make({
  name: "FineTuning",
  payload: LifecycleEntity,
  idempotencyKey: lifecycleKey
})

const train = Effect.fn("FineTuning")(function*(job: LifecycleEntity) {
  const repo = yield* FineTuningJobsRepo
  const models = yield* ModelInstancesRepo
  /** The job as it is now (none when deleted). */
  const current = repo.findById(job.id, [job.account_id])
  const isRunning = Effect.map(current, (found) => Option.isSome(found) && found.value.status === "RUNNING")

  /**
   * The job `FAILED` from the state it is in, the fault rule's reason logged as an error; answers
   * whether the lifecycle ends there (failed, cancelled or gone). A step replayed after the
   * controls changed may bring a fault to a job already past `from`: that one goes on its way.
   */
  const failed = (from: { readonly status: "PENDING" | "RUNNING"; readonly epochsDone?: number }, reason: string) =>
    Activity.make({
      name: "failed",
      success: Schema.Boolean,
      execute: Effect.zipRight(
        repo.advance(job, from, (current) =>
          Effect.succeed({ next: new FineTuningJob({ ...current, status: "FAILED" }, true), log: [failedEntry(reason)] })),
        Effect.map(current, (found) => Option.isNone(found) || found.value.status === "FAILED" || found.value.status === "CANCELED")
      )
    })

  const queueFault = yield* simulatedStep("queue", "fine_tuning_job", job)
  if (queueFault !== null && (yield* failed({ status: "PENDING" }, queueFault))) return
  // the job's epochs when it is RUNNING after this step (moved by it, or by its run before a
  // restart); 0 when it is not (cancelled while it waited)
  const epochs = yield* Activity.make({
    name: "start",
    success: Schema.Number,
    execute: Effect.zipRight(
      repo.advance(job, { status: "PENDING" }, (pending) =>
        Effect.succeed({ next: new FineTuningJob({ ...pending, status: "RUNNING" }, true), log: [startedEntry(pending, epochsOf(pending))] })),
      Effect.map(current, (found) => (Option.isSome(found) && found.value.status === "RUNNING" ? epochsOf(found.value) : 0))
    )
  })
  if (epochs === 0) return
  for (let epoch = 1; epoch <= epochs; epoch++) {
    const epochFault = yield* simulatedStep(`epoch-${epoch}`, "fine_tuning_job", job)
    if (epochFault !== null && (yield* failed({ status: "RUNNING", epochsDone: epoch - 1 }, epochFault))) return
    const running = yield* Activity.make({
      name: `epoch-${epoch}`,
      success: Schema.Boolean,
      execute: Effect.zipRight(
        repo.advance(job, { status: "RUNNING", epochsDone: epoch - 1 }, (running) =>
          Effect.succeed({ next: running, log: [epochEntry(job.id, epoch, epochs)] })),
        isRunning
      )
    })
    if (!running) return
  }
  // COMPLETED, with the model it made registered (`/v4/models`), in one transaction
  yield* Activity.make({
    name: "finish",
    execute: repo.advance(job, { status: "RUNNING" }, (running) =>
      Effect.gen(function*() {
        const model = running.fine_tuned_model_id ?? (yield* Effect.flatMap(Ids, (ids) => ids.make))
        const now = new Date(yield* Clock.currentTimeMillis).toISOString()
        yield* models.registerFineTuned(running, model, now)
        return {
          next: new FineTuningJob({ ...running, status: "COMPLETED", fine_tuned_model_id: model }, true),
          log: [completedEntry(model)]
        }
      }))
  })
})

/** The workflow, and the start of every job still unfinished when the engine starts. Needs `FineTuningJobsRepo`, `ModelInstancesRepo`, `Simulation`, `Ids`. */
export const FineTuningLifecycleLive = startOnBoot(
  "fine-tuning jobs",
  Effect.flatMap(FineTuningJobsRepo, (repo) => repo.unfinished),
  (job) => FineTuningLifecycle.execute(job, { discard: true })
).pipe(Layer.provideMerge(FineTuningLifecycle.toLayer((job) => train(job))))

/** The family's workflows, for the engine (../workflows.ts). */
export const FineTuningWorkflows = {
  workflows: { FineTuning: FineTuningLifecycle },
  layer: FineTuningLifecycleLive.pipe(Layer.provide([FineTuningJobsRepo.Default, ModelInstancesRepo.Default]))
} satisfies FamilyWorkflows
