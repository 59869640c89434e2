/**
 * The background installer of deployment packages. A job is stored PENDING by the install
 * endpoint and handed over with `submit`; one fiber, forked for the lifetime of the layer, takes
 * the jobs in order, marks each RUNNING, then SUCCEEDED, or FAILED with the reason
 * (`installCheck.ts`). On start it picks up the jobs a previous process left unfinished. Each job is
 * claimed with a row lock (`PackageJobsRepo.claim`), so instances sharing a PostgreSQL database
 * never install the same job twice.
 */
import { DeploymentPackageInstallJob } from "@platform-kit/schema"
import type { DeploymentPackageJobStatus } from "@platform-kit/schema"
import { Context, Effect, Layer, Option, Queue } from "effect"
import { nowIso } from "../platform/Ids.js"
import { installProblem } from "./installCheck.js"
import { type JobRef, PackageJobsRepo } from "./PackageJobsRepo.js"

export class PackageInstaller extends Context.Tag("@platform-kit/server/PackageInstaller")<PackageInstaller, {
  /** Queues a stored PENDING job for installation. */
  readonly submit: (job: JobRef) => Effect.Effect<void>
}>() {
  /** The installer running in this process. Needs `PackageJobsRepo`. */
  static readonly Live = Layer.scoped(
    PackageInstaller,
    Effect.gen(function*() {
      const repo = yield* PackageJobsRepo
      const queue = yield* Queue.unbounded<JobRef>()

      const move = (job: DeploymentPackageInstallJob, status: DeploymentPackageJobStatus, status_reason: string | null) =>
        Effect.flatMap(nowIso, (updated_at) =>
          repo.update(new DeploymentPackageInstallJob({ ...job, status, status_reason, updated_at })))

      /**
       * One job, in one transaction that holds its row (`repo.claim`): a job another instance is
       * installing, or has finished, is skipped, so no job is installed twice.
       */
      const install = (ref: JobRef) =>
        Effect.gen(function*() {
          const claimed = yield* repo.claim(ref)
          if (Option.isNone(claimed)) return
          yield* Effect.logDebug(`Installing deployment package job ${ref.id}`)
          const running = yield* move(claimed.value, "RUNNING", null)
          const problem = installProblem(running)
          yield* problem === undefined ? move(running, "SUCCEEDED", null) : move(running, "FAILED", problem)
        }).pipe(
          repo.transaction,
          Effect.catchAllCause((cause) =>
            Effect.logError(`Deployment package install job ${ref.id} stopped unexpectedly`, cause)
          )
        )

      yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(queue), install)))
      yield* Queue.offerAll(queue, yield* repo.unfinished)

      return { submit: (job) => Effect.asVoid(Queue.offer(queue, job)) }
    })
  )
}
