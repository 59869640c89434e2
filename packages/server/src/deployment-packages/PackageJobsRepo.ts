import { DeploymentPackageInstallJob } from "@platform-kit/schema"
import { Effect } from "effect"
import { makeDocuments } from "../sql/documents.js"

/** Where an install job is found again: its id and account. */
export interface JobRef {
  readonly id: string
  readonly account_id: string
}

export class PackageJobsRepo extends Effect.Service<PackageJobsRepo>()("@platform-kit/server/PackageJobsRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "deployment_package_jobs",
      label: "Deployment package install job",
      schema: DeploymentPackageInstallJob,
      columns: (job) => ({ id: job.id, account_id: job.account_id, created_at: job.created_at, status: job.status })
    })
    const sql = documents.sql

    /** Jobs of every account not finished yet (PENDING or RUNNING), oldest first. */
    const unfinished: Effect.Effect<ReadonlyArray<JobRef>> = sql<JobRef>`
      SELECT id, account_id FROM deployment_package_jobs
      WHERE ${sql.in("status", ["PENDING", "RUNNING"])}
      ORDER BY created_at, id`.pipe(Effect.orDie)

    return { ...documents, unfinished } as const
  })
}) {}
