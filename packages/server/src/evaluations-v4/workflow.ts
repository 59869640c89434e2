/**
 * The background work of v4 evaluations as the handlers ask for it (docs/evaluations.md "Builder
 * evaluations and the judge"): `build` starts the generation of a `builder` evaluation's test case
 * results (./build.ts), `judge` the model judge's answers to the pending results of an `llm_auto` /
 * `llm_benchmark` evaluation (./judge.ts). Both record the work as an async job of the evaluation
 * (its `AsyncJobs` view, `asyncJobs`), start it on the engine and return.
 *
 * This module imports no engine (`@effect/workflow` loads lazily: docs/engine.md "Loading"); the
 * workflows are in ./build.ts, listed in ../workflows.ts.
 *
 * The jobs are documents of their own table (migration 0071): at most one of each `job_type` per
 * evaluation (`evaluation-build`, `evaluation-judge`), unique on (evaluation, type). A judge job
 * counts its requests (`job_metadata.runs`): each is one run of the judge workflow, which answers
 * every result of the evaluation still waiting for the judge; a run started again is a no-op.
 */
import { SqlClient } from "@effect/sql"
import { EvaluationAsyncJob, Id } from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import { Lifecycles } from "../engine/Lifecycles.js"
import { freshIdentity, Ids, nowIso } from "../platform/Ids.js"
import { forUpdate } from "../sql/dialect.js"
import { documentTable, makeDocuments } from "../sql/documents.js"

export const buildJobType = "evaluation-build"
export const judgeJobType = "evaluation-judge"
export type JobType = typeof buildJobType | typeof judgeJobType

/** Title-case, as the kit's other async jobs (application variant reports). */
export type JobStatus = "Pending" | "Running" | "Completed" | "Failed"
export const jobEnded = (status: string) => status === "Completed" || status === "Failed"

/** A job as stored: the answered job and what it belongs to. */
export class StoredEvaluationJob extends Schema.Class<StoredEvaluationJob>("StoredEvaluationJob")({
  ...EvaluationAsyncJob.fields,
  account_id: Id,
  evaluation_id: Id
}) {}

/** The job as the `AsyncJobs` view answers it. */
export const asyncJobOf = ({ account_id: _a, evaluation_id: _e, ...job }: StoredEvaluationJob) => new EvaluationAsyncJob(job, true)

const jobsTable = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("evaluation_v4_jobs", (t) => [
    `evaluation_id ${t.text} NOT NULL`,
    `job_type ${t.text} NOT NULL`,
    // 1 until the job has ended (what the engine's start goes on with)
    `unfinished ${t.integer} NOT NULL`
  ])
  yield* sql`CREATE UNIQUE INDEX evaluation_v4_jobs_evaluation_type ON evaluation_v4_jobs (evaluation_id, job_type)`
  yield* sql`CREATE INDEX evaluation_v4_jobs_unfinished ON evaluation_v4_jobs (unfinished, job_type)`
})

/** The migration of the jobs table, by id (listed in ../migrations.ts). */
export const evaluationJobsMigrations = {
  "0071_evaluation_v4_jobs": jobsTable
}

export class EvaluationJobsRepo extends Effect.Service<EvaluationJobsRepo>()("@platform-kit/server/EvaluationV4JobsRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "evaluation_v4_jobs",
      label: "Evaluation job",
      schema: StoredEvaluationJob,
      columns: (job) => ({
        id: job.id,
        account_id: job.account_id,
        created_at: job.created_at,
        evaluation_id: job.evaluation_id,
        job_type: job.job_type ?? "",
        unfinished: jobEnded(job.status) ? 0 : 1
      })
    })
    const sql = yield* SqlClient.SqlClient

    /** The evaluation's job of `type`, if it has one. */
    const find = (evaluationId: string, accountId: string, type: JobType) =>
      documents.findFirst([accountId], [sql`evaluation_id = ${evaluationId}`, sql`job_type = ${type}`])

    /** Every job of the evaluation, the build first. */
    const ofEvaluation = (evaluationId: string, accountId: string) =>
      Effect.map(
        documents.findNarrowed([accountId], [sql`evaluation_id = ${evaluationId}`]),
        (jobs) => [...jobs].sort((a, b) => (a.job_type === buildJobType ? -1 : b.job_type === buildJobType ? 1 : 0))
      )

    /** The jobs that have not ended, of `type`. */
    const unfinished = (type: JobType) =>
      Effect.map(
        sql<{ doc: string }>`SELECT doc FROM evaluation_v4_jobs WHERE unfinished = 1 AND job_type = ${type}`.pipe(Effect.orDie),
        (rows) => rows.map((row) => Schema.decodeUnknownSync(StoredEvaluationJob)(JSON.parse(row.doc)))
      )

    /**
     * Changes the evaluation's job of `type` (in a transaction, its row locked): `next` from the
     * stored job, or from none; `updated_at` set. Answers the job as written (or as it was, when
     * `next` answers it unchanged).
     */
    const change = <R>(
      evaluationId: string,
      accountId: string,
      type: JobType,
      next: (job: Option.Option<StoredEvaluationJob>) => Effect.Effect<Option.Option<StoredEvaluationJob>, never, R>
    ) =>
      documents.transaction(Effect.gen(function*() {
        // the evaluation's row locked first (on PostgreSQL; SQLite has one writer): two requests
        // that make the same job find it one after the other, never both insert it
        yield* sql`SELECT id FROM evaluations_v4 WHERE id = ${evaluationId} ${forUpdate(sql)}`.pipe(Effect.orDie)
        const found = yield* find(evaluationId, accountId, type)
        const changed = yield* next(found)
        if (Option.isNone(changed)) return found
        if (Option.isSome(found) && changed.value === found.value) return found
        const updated_at = yield* nowIso
        const job = new StoredEvaluationJob({ ...changed.value, updated_at }, true)
        yield* Option.isSome(found) ? documents.update(job) : documents.insert(job)
        return Option.some(job)
      }))

    return { ...documents, find, ofEvaluation, unfinished, change } as const
  })
}) {}

/** A new job of the evaluation, `Pending`. */
export const newJob = (evaluationId: string, accountId: string, type: JobType, job_metadata: Record<string, unknown>) =>
  Effect.map(freshIdentity, ([id, created_at]) =>
    new StoredEvaluationJob({
      id,
      account_id: accountId,
      evaluation_id: evaluationId,
      created_at,
      updated_at: created_at,
      status: "Pending",
      job_type: type,
      job_metadata,
      parent_job_id: null,
      progress: { completed: 0, failed: 0, pending: 0 }
    }, true))

/** The workflows' names (./build.ts). */
export const BuildWorkflowName = "EvaluationV4Build"
export const JudgeWorkflowName = "EvaluationV4Judge"

export class EvaluationsV4Work extends Effect.Service<EvaluationsV4Work>()("@platform-kit/server/EvaluationsV4Work", {
  effect: Effect.gen(function*() {
    const jobs = yield* EvaluationJobsRepo
    const lifecycles = yield* Lifecycles
    const sql = yield* SqlClient.SqlClient
    const ids = yield* Ids

    const accountOf = (evaluationId: string) =>
      Effect.map(
        sql<{ account_id: string }>`SELECT account_id FROM evaluations_v4 WHERE id = ${evaluationId}`.pipe(Effect.orDie),
        (rows) => Option.fromNullable(rows[0]?.account_id)
      )

    /**
     * Records the build job (`Pending`) of a `builder` evaluation and starts its build; once per
     * evaluation (a second call finds the job and starts nothing new).
     */
    const build = (evaluationId: string): Effect.Effect<void> =>
      Effect.gen(function*() {
        const account = yield* accountOf(evaluationId)
        if (Option.isNone(account)) return yield* Effect.logWarning(`v4 evaluation ${evaluationId} not found: nothing to build`)
        const account_id = account.value
        yield* jobs.change(evaluationId, account_id, buildJobType, (found) =>
          Option.isSome(found) ? Effect.succeedNone : Effect.asSome(newJob(evaluationId, account_id, buildJobType, {})))
        yield* lifecycles.start({ workflow: BuildWorkflowName, id: evaluationId, account_id })
      }).pipe(Effect.provideService(Ids, ids))

    /**
     * Asks the judge for the evaluation's results waiting for it (`resultIds`: those just written;
     * the run answers every result still waiting): the judge job counts one run more and that run
     * starts.
     */
    const judge = (evaluationId: string, resultIds: ReadonlyArray<string>): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (resultIds.length === 0) return
        const account = yield* accountOf(evaluationId)
        if (Option.isNone(account)) return yield* Effect.logWarning(`v4 evaluation ${evaluationId} not found: nothing to judge`)
        const account_id = account.value
        const written = yield* jobs.change(evaluationId, account_id, judgeJobType, (found) =>
          Effect.gen(function*() {
            const job = Option.isSome(found) ? found.value : yield* newJob(evaluationId, account_id, judgeJobType, { runs: 0 })
            const metadata = job.job_metadata ?? {}
            const progress = (job.progress ?? {}) as { completed?: number; failed?: number; pending?: number }
            return Option.some(
              new StoredEvaluationJob({
                ...job,
                status: jobEnded(job.status) ? "Pending" : job.status,
                job_metadata: { ...metadata, runs: Number(metadata.runs ?? 0) + 1 },
                progress: { completed: progress.completed ?? 0, failed: progress.failed ?? 0, pending: (progress.pending ?? 0) + resultIds.length }
              }, true)
            )
          }))
        const run = Number(Option.getOrThrow(written).job_metadata?.runs ?? 1)
        yield* lifecycles.start({ workflow: JudgeWorkflowName, id: evaluationId, account_id, run })
      }).pipe(Effect.provideService(Ids, ids))

    /** The evaluation's jobs as its `AsyncJobs` view answers them (the build first). */
    const asyncJobs = (evaluationId: string, accountId: string): Effect.Effect<ReadonlyArray<EvaluationAsyncJob>> =>
      Effect.map(jobs.ofEvaluation(evaluationId, accountId), (found) => found.map(asyncJobOf))

    return { build, judge, asyncJobs } as const
  }),
  dependencies: [EvaluationJobsRepo.Default]
}) {}
