import { SqlClient } from "@effect/sql"
import { DeploymentPackageInstallJob } from "@platform-kit/schema"
import type { DeploymentPackageJobStatus } from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import { forUpdate } from "../sql/dialect.js"
import { makeDocuments } from "../sql/documents.js"

/** Where an install job is found again: its id and account. */
export interface JobRef {
  readonly id: string
  readonly account_id: string
}

const unfinishedStatuses: ReadonlyArray<DeploymentPackageJobStatus> = ["PENDING", "RUNNING"]

export class PackageJobsRepo extends Effect.Service<PackageJobsRepo>()("@platform-kit/server/PackageJobsRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "deployment_package_jobs",
      label: "Deployment package install job",
      schema: DeploymentPackageInstallJob,
      columns: (job) => ({ id: job.id, account_id: job.account_id, created_at: job.created_at, status: job.status })
    })
    const sql = yield* SqlClient.SqlClient
    const decode = Schema.decodeUnknownSync(Schema.parseJson(DeploymentPackageInstallJob))

    /** Jobs of every account not finished yet (PENDING or RUNNING), oldest first. */
    const unfinished: Effect.Effect<ReadonlyArray<JobRef>> = sql<JobRef>`
      SELECT id, account_id FROM deployment_package_jobs
      WHERE ${sql.in("status", unfinishedStatuses)}
      ORDER BY created_at, id`.pipe(Effect.orDie)

    /**
     * The job `ref` if it is in one of `statuses` (default: unfinished), locked until the calling
     * transaction ends: on PostgreSQL `FOR UPDATE`, so when two runs of one step claim the same job
     * (two instances during a shard handover, or a step run again), the second waits for the
     * first's transaction and then finds the job as it left it: moved on (nothing to do), or, when
     * the first rolled back, still there to claim. (`SKIP LOCKED` would let the second skip a job
     * the first then failed to move, and the step end with the job unmoved.) On SQLite the single
     * writer gives the same. Run it inside a transaction.
     */
    const claim = (
      ref: JobRef,
      statuses: ReadonlyArray<DeploymentPackageJobStatus> = unfinishedStatuses
    ): Effect.Effect<Option.Option<DeploymentPackageInstallJob>> =>
      sql<{ doc: string }>`SELECT doc FROM deployment_package_jobs WHERE id = ${ref.id} AND account_id = ${ref.account_id} AND ${
        sql.in("status", statuses)
      } ${forUpdate(sql)}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => decode(row.doc))),
        Effect.orDie
      )

    return { ...documents, unfinished, claim } as const
  })
}) {}
