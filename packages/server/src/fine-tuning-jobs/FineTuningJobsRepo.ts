import { SqlClient } from "@effect/sql"
import { FineTuningJob, FineTuningJobEvent, type FineTuningJobStatus, type NotFound } from "@platform-kit/schema"
import { Clock, Effect, Option } from "effect"
import type { LifecycleEntity } from "../engine/Lifecycles.js"
import { makeDocuments } from "../sql/documents.js"

/** An entry to append to a job's log. */
export interface LogEntry {
  readonly level: FineTuningJobEvent["level"]
  readonly message: string
}

const unfinishedStatuses: ReadonlyArray<FineTuningJobStatus> = ["PENDING", "RUNNING"]

export class FineTuningJobsRepo extends Effect.Service<FineTuningJobsRepo>()("@platform-kit/server/FineTuningJobsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* makeDocuments({
      table: "fine_tuning_jobs",
      label: "Fine-tuning job",
      schema: FineTuningJob,
      columns: (job) => ({ id: job.id, account_id: job.account_id, created_at: job.created_at, status: job.status })
    })

    /** Appends `entries` to the log of job `jobId`, now: inside the transaction that holds the job's row. */
    const log = (jobId: string, entries: ReadonlyArray<LogEntry>) =>
      Effect.flatMap(Clock.currentTimeMillis, (at) =>
        Effect.forEach(entries, (entry) =>
          sql`INSERT INTO fine_tuning_job_events (job_id, position, level, message, at_ms)
            SELECT ${jobId}, COALESCE(MAX(position), 0) + 1, ${entry.level}, ${entry.message}, ${at}
            FROM fine_tuning_job_events WHERE job_id = ${jobId}`, { discard: true })).pipe(Effect.orDie)

    /** Stores a new job and the first entries of its log, as one change. */
    const create = (job: FineTuningJob, entries: ReadonlyArray<LogEntry>) =>
      documents.transaction(Effect.zipLeft(documents.insert(job), log(job.id, entries)))

    /**
     * Moves the job of a lifecycle as `change` says, logging its entries, in one transaction
     * holding the job's row, if the job is in `from.status` now (and, with `from.epochsDone`, has
     * finished exactly that many epochs: the change finishes one more): the job as written; none
     * when it is elsewhere (a step run again finds it moved on; a cancelled job, CANCELED) or gone.
     */
    const advance = <R>(
      job: LifecycleEntity,
      from: { readonly status: FineTuningJobStatus; readonly epochsDone?: number },
      change: (current: FineTuningJob) => Effect.Effect<{ readonly next: FineTuningJob; readonly log: ReadonlyArray<LogEntry> }, never, R>
    ): Effect.Effect<Option.Option<FineTuningJob>, never, R> =>
      documents.transaction(
        Effect.gen(function*() {
          const found = yield* documents.findById(job.id, [job.account_id])
          if (Option.isNone(found) || found.value.status !== from.status) return Option.none()
          if (from.epochsDone !== undefined) {
            const rows = yield* Effect.orDie(sql<{ done: number }>`SELECT epochs_done AS done FROM fine_tuning_jobs WHERE id = ${job.id}`)
            if (Number(rows[0]?.done) !== from.epochsDone) return Option.none()
            yield* Effect.orDie(sql`UPDATE fine_tuning_jobs SET epochs_done = ${from.epochsDone + 1} WHERE id = ${job.id}`)
          }
          const { log: entries, next } = yield* change(found.value)
          yield* documents.update(next)
          yield* log(job.id, entries)
          return Option.some(next)
        })
      )

    /**
     * What DELETE does to the job `id` of `accountIds` (404 naming it when none), in one
     * transaction holding its row: one still PENDING or RUNNING is cancelled (`CANCELED`, its log
     * saying so, kept); a finished one is deleted with its log.
     */
    const cancelOrDelete = (id: string, accountIds: ReadonlyArray<string>, canceled: LogEntry): Effect.Effect<void, NotFound> =>
      documents.transaction(
        Effect.gen(function*() {
          const job = yield* documents.get(id, accountIds)
          if (unfinishedStatuses.includes(job.status)) {
            yield* documents.update(new FineTuningJob({ ...job, status: "CANCELED" }, true))
            return yield* log(id, [canceled])
          }
          yield* Effect.orDie(sql`DELETE FROM fine_tuning_job_events WHERE job_id = ${id}`)
          yield* Effect.orDie(sql`DELETE FROM fine_tuning_jobs WHERE id = ${id}`)
        })
      )

    /** The log of the job `id` of `accountIds`, oldest first (404 naming the job when none). */
    const events = (id: string, accountIds: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<FineTuningJobEvent>, NotFound> =>
      Effect.zipRight(
        documents.getText(id, accountIds),
        sql<{ level: FineTuningJobEvent["level"]; message: string; at_ms: number }>`
          SELECT level, message, at_ms FROM fine_tuning_job_events WHERE job_id = ${id} ORDER BY position`.pipe(
          Effect.map((rows) =>
            rows.map((row) => new FineTuningJobEvent({ level: row.level, message: row.message, timestamp: Number(row.at_ms) / 1000 }))
          ),
          Effect.orDie
        )
      )

    /** Every job of every account still PENDING or RUNNING: the lifecycles to make sure of when the engine starts. */
    const unfinished: Effect.Effect<ReadonlyArray<LifecycleEntity>> = sql<{ id: string; account_id: string }>`
      SELECT id, account_id FROM fine_tuning_jobs WHERE ${sql.in("status", unfinishedStatuses)} ORDER BY created_at, id`
      .pipe(Effect.orDie)

    /**
     * The jobs of account `accountId` still PENDING or RUNNING that name training dataset
     * `datasetId` (to train or to validate on), oldest first: what keeps the dataset from being
     * deleted (training-datasets/http.ts).
     */
    const unfinishedNaming = (datasetId: string, accountId: string): Effect.Effect<ReadonlyArray<FineTuningJob>> =>
      Effect.map(
        documents.findAll([accountId], [sql.in("status", unfinishedStatuses)]),
        (jobs) => jobs.filter((job) => job.training_dataset_id === datasetId || job.validation_dataset_id === datasetId)
      )

    return { ...documents, create, advance, cancelOrDelete, events, unfinished, unfinishedNaming } as const
  })
}) {}
