/**
 * The install of a deployment package as a durable workflow (docs/engine.md): the job stored
 * PENDING by the install endpoint moves to RUNNING in a first step, then to SUCCEEDED, or FAILED
 * with the reason (`installCheck.ts`), in a second. Each step claims the job's row in the state it
 * expects (`PackageJobsRepo.claim`, locked for its transaction), so a step that runs again (after
 * a crash between its write and the engine's record of it, or on a second engine on the same
 * database) finds nothing to do: no job is moved twice.
 *
 * Jobs stored before the engine existed (a release with the old in-process loop), or left PENDING
 * by anything else, are started when the engine starts (`PackageInstallLive`).
 */
import { Activity, Workflow } from "@effect/workflow"
import { DeploymentPackageInstallJob } from "@platform-kit/schema"
import type { DeploymentPackageJobStatus } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { type FamilyWorkflows, LifecycleEntity, lifecycleKey } from "../engine/Lifecycles.js"
import { startOnBoot } from "../engine/startOnBoot.js"
import { nowIso } from "../platform/Ids.js"
import { installProblem } from "./installCheck.js"
import { type JobRef, PackageJobsRepo } from "./PackageJobsRepo.js"

export const PackageInstall = Workflow.make({
  name: "PackageInstall",
  payload: LifecycleEntity,
  idempotencyKey: lifecycleKey
})

const install = Effect.fn("PackageInstall")(function*(job: JobRef) {
  const repo = yield* PackageJobsRepo
  const move = (current: DeploymentPackageInstallJob, status: DeploymentPackageJobStatus, status_reason: string | null) =>
    Effect.flatMap(nowIso, (updated_at) =>
      repo.update(new DeploymentPackageInstallJob({ ...current, status, status_reason, updated_at }, true)))
  /** Moves the job from `from` as `next` says, in one transaction holding its row; nothing if it is elsewhere. */
  const step = (
    from: DeploymentPackageJobStatus,
    next: (current: DeploymentPackageInstallJob) => Effect.Effect<unknown>
  ) =>
    repo.transaction(Effect.flatMap(repo.claim(job, [from]), Option.match({ onNone: () => Effect.void, onSome: next })))

  yield* Activity.make({
    name: "start",
    execute: step("PENDING", (pending) =>
      Effect.zipRight(Effect.logDebug(`Installing deployment package job ${job.id}`), move(pending, "RUNNING", null)))
  })
  yield* Activity.make({
    name: "finish",
    execute: step("RUNNING", (running) => {
      const problem = installProblem(running)
      return problem === undefined ? move(running, "SUCCEEDED", null) : move(running, "FAILED", problem)
    })
  })
})

/** The workflow, and the start of every job still unfinished when the engine starts. Needs `PackageJobsRepo`. */
export const PackageInstallLive = startOnBoot(
  "package installs",
  Effect.flatMap(PackageJobsRepo, (repo) => repo.unfinished),
  (job) => PackageInstall.execute(job, { discard: true })
).pipe(Layer.provideMerge(PackageInstall.toLayer((job) => install(job))))

/** The family's workflows, for the engine (../workflows.ts). */
export const PackageInstallWorkflows = {
  workflows: { PackageInstall },
  layer: PackageInstallLive.pipe(Layer.provide(PackageJobsRepo.Default))
} satisfies FamilyWorkflows
