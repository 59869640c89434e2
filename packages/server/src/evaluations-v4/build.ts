/**
 * The build of a `builder` v4 evaluation and the runs of the judge, durable workflows (docs/engine.md,
 * docs/evaluations.md "Builder evaluations and the judge"), started by ./workflow.ts.
 *
 * The build (`EvaluationV4Build`, one per evaluation): a first step picks the dataset version (the
 * evaluation's `evaluation_dataset_version`, else the dataset's latest published one; none: the
 * build job `Failed` with the reason and the evaluation FAILED) and moves the job `Running`; then
 * steps of `stepSize` test cases of that version, one after the other, take each one's output (from the evaluation's
 * `application_test_case_output_group_id` when the group holds one, else by processing the
 * application variant on the test case's input, stored as an application test case output) and
 * store ONE test case result for it (a step run again after kill -9 finds the results of its test
 * cases and stores nothing for them); a last step ends the job (`Completed`, or `Failed` with the test cases
 * that failed) and, when a model judges the evaluation, starts a run of the judge.
 *
 * A judge run (`EvaluationV4Judge`, run n of an evaluation's judge job): each result waiting for the
 * judge is judged in steps of `stepSize` (./judge.ts, which writes a result's answers once, all or none).
 */
import { SqlClient } from "@effect/sql"
import type { TestCase } from "@platform-kit/schema"
import { Activity, Workflow } from "@effect/workflow"
import { Cause, Context, Effect, Layer, Option, Schema } from "effect"
import { ProcessLive } from "../applications/process/http.js"
import { ApplicationRunner } from "../applications/process/runner.js"
import { VariantsRepo } from "../applications/specs/SpecsRepo.js"
import { failureReason, processTestCase } from "../applications/test-case-outputs/outputs.js"
import { OutputsRepo, StoredTestCaseOutput } from "../applications/test-case-outputs/OutputsRepo.js"
import { type FamilyWorkflows, LifecycleEntity, lifecycleKey } from "../engine/Lifecycles.js"
import { retried } from "../engine/retried.js"
import { startOnBoot } from "../engine/startOnBoot.js"
import { DatasetVersionsRepo } from "../evaluation-datasets/DatasetVersionsRepo.js"
import { EvaluationDatasetsRepo } from "../evaluation-datasets/EvaluationDatasetsRepo.js"
import { TestCasesRepo } from "../evaluation-datasets/TestCasesRepo.js"
import { ModelResolver } from "../models/inference/ModelResolver.js"
import { ModelDeploymentsRepo } from "../models/deployments/ModelDeploymentsRepo.js"
import { ModelInstancesRepo } from "../models/registry/ModelInstancesRepo.js"
import { ModelServersRepo } from "../models/servers/ModelServersRepo.js"
import { freshIdentity } from "../platform/Ids.js"
import { QuestionSetsRepo } from "../question-sets/QuestionSetsRepo.js"
import { EvaluationConfigsRepo } from "../evaluation-configs/EvaluationConfigsRepo.js"
import { EvaluationsV4Repo, needsJudge, type StoredEvaluationV4 } from "./EvaluationsV4Repo.js"
import { EvaluationJudging, reasonOfCause } from "./judge.js"
import { AnnotationTasks } from "./tasks.js"
import { TestCaseResultsRepo } from "./TestCaseResultsRepo.js"
import {
  buildJobType,
  BuildWorkflowName,
  EvaluationJobsRepo,
  type JobStatus,
  jobEnded,
  judgeJobType,
  JudgeWorkflowName,
  newJob,
  StoredEvaluationJob
} from "./workflow.js"

/** The build job's `job_metadata`. */
interface BuildMetadata {
  readonly evaluation_dataset_id: string | null
  readonly evaluation_dataset_version_num: number | null
  readonly test_case_count: number
  readonly failed_test_case_ids: ReadonlyArray<string>
  readonly reason?: string
}

const buildMetadataOf = (job: StoredEvaluationJob): BuildMetadata => {
  const stored = (job.job_metadata ?? {}) as Partial<BuildMetadata>
  return {
    evaluation_dataset_id: stored.evaluation_dataset_id ?? null,
    evaluation_dataset_version_num: stored.evaluation_dataset_version_num ?? null,
    test_case_count: stored.test_case_count ?? 0,
    failed_test_case_ids: stored.failed_test_case_ids ?? [],
    ...(stored.reason === undefined ? {} : { reason: stored.reason })
  }
}

export class EvaluationBuilding extends Effect.Service<EvaluationBuilding>()("@platform-kit/server/EvaluationV4Building", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const evaluations = yield* EvaluationsV4Repo
    const results = yield* TestCaseResultsRepo
    const versions = yield* DatasetVersionsRepo
    const outputs = yield* OutputsRepo
    const variants = yield* VariantsRepo
    const runner = yield* ApplicationRunner
    const jobs = yield* EvaluationJobsRepo

    /** The job's metadata with its progress recounted from the evaluation's results, as `status`. */
    const recounted = (job: StoredEvaluationJob, metadata: BuildMetadata, status?: JobStatus) =>
      Effect.gen(function*() {
        const [row] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM evaluation_v4_results WHERE evaluation_id = ${job.evaluation_id}`
          .pipe(Effect.orDie)
        const completed = Number(row?.n ?? 0)
        const failed = metadata.failed_test_case_ids.length
        return new StoredEvaluationJob({
          ...job,
          status: status ?? job.status,
          job_metadata: { ...metadata },
          progress: { completed, failed, pending: Math.max(0, metadata.test_case_count - completed - failed) }
        }, true)
      })

    /** Changes the build job unless it has ended (or is not there). */
    const change = (entity: LifecycleEntity, next: (job: StoredEvaluationJob) => Effect.Effect<StoredEvaluationJob>) =>
      jobs.change(entity.id, entity.account_id, buildJobType, (found) =>
        Option.isNone(found) || jobEnded(found.value.status) ? Effect.succeedNone : Effect.asSome(next(found.value)))

    /** The evaluation and its running build job (none when either is gone, or the job has ended). */
    const current = (entity: LifecycleEntity) =>
      Effect.gen(function*() {
        const evaluation = yield* Effect.option(evaluations.get(entity.id, [entity.account_id]))
        const job = yield* jobs.find(entity.id, entity.account_id, buildJobType)
        if (Option.isNone(evaluation) || Option.isNone(job) || jobEnded(job.value.status)) return Option.none()
        return Option.some({ evaluation: evaluation.value, job: job.value })
      })

    /** The build job `Failed` with `reason`, and the evaluation FAILED. */
    const fail = (entity: LifecycleEntity, reason: string) =>
      Effect.gen(function*() {
        yield* change(entity, (job) => recounted(job, { ...buildMetadataOf(job), reason }, "Failed"))
        yield* evaluations.setStatus(entity.id, entity.account_id, "FAILED").pipe(Effect.catchTag("NotFound", () => Effect.void))
      })

    /**
     * The dataset version to build from and its test cases; `Running`. Answers the test case ids
     * (none when the build has ended, or cannot start: then it is `Failed` with the reason).
     */
    const start = (entity: LifecycleEntity) =>
      Effect.gen(function*() {
        const found = yield* current(entity)
        if (Option.isNone(found)) return [] as ReadonlyArray<string>
        const { evaluation } = found.value
        const datasetId = evaluation.evaluation_dataset_id
        if (evaluation.type !== "builder" || datasetId === null) {
          yield* fail(entity, "Only a builder evaluation with an evaluation_dataset_id is built")
          return []
        }
        const num = evaluation.evaluation_dataset_version !== null
          ? Option.map(yield* versions.find(datasetId, evaluation.evaluation_dataset_version), (version) => version.num)
          : yield* versions.latestPublished(datasetId)
        if (Option.isNone(num)) {
          yield* fail(
            entity,
            evaluation.evaluation_dataset_version !== null
              ? `Evaluation dataset ${datasetId} has no version ${evaluation.evaluation_dataset_version}`
              : `Evaluation dataset ${datasetId} has no published version: publish it, or name an evaluation_dataset_version`
          )
          return []
        }
        const cases = yield* versions.testCasesAt(datasetId, num.value)
        if (cases.length === 0) {
          yield* fail(entity, `Version ${num.value} of evaluation dataset ${datasetId} holds no test case`)
          return []
        }
        yield* change(entity, (job) =>
          recounted(job, {
            ...buildMetadataOf(job),
            evaluation_dataset_id: datasetId,
            evaluation_dataset_version_num: num.value,
            test_case_count: cases.length
          }, "Running"))
        return cases.map((testCase) => testCase.id)
      })

    /** Records the test case as failed, with the first failure's reason. */
    const failCase = (entity: LifecycleEntity, testCaseId: string, reason: string) =>
      change(entity, (job) => {
        const metadata = buildMetadataOf(job)
        if (metadata.failed_test_case_ids.includes(testCaseId)) return Effect.succeed(job)
        return recounted(job, {
          ...metadata,
          failed_test_case_ids: [...metadata.failed_test_case_ids, testCaseId],
          reason: metadata.reason ?? `Test case ${testCaseId}: ${reason}`
        })
      })

    const caseFailed = (entity: LifecycleEntity, testCaseId: string, cause: Cause.Cause<unknown>) =>
      Effect.orDie(failCase(entity, testCaseId, reasonOfCause(cause)))

    /** The output of the evaluation's group for the test case, if the group holds one. */
    const grouped = (evaluation: StoredEvaluationV4, testCaseId: string) =>
      evaluation.application_test_case_output_group_id === null
        ? Effect.succeedNone
        : outputs.findFirst([evaluation.account_id], [
          sql`application_test_case_output_group_id = ${evaluation.application_test_case_output_group_id}`,
          sql`test_case_id = ${testCaseId}`
        ])

    /** The variant's output for the test case (a new application test case output, not stored yet), or why there is none. */
    const processed = (evaluation: StoredEvaluationV4, testCase: TestCase, num: number) =>
      Effect.gen(function*() {
        const variantId = evaluation.application_variant_id
        const variant = variantId === null ? Option.none() : yield* variants.findById(variantId, [evaluation.account_id])
        if (Option.isNone(variant)) return yield* Effect.fail(`Application variant ${variantId} not found`)
        if (variant.value.version === "OFFLINE") {
          return yield* Effect.fail(
            `Application variant ${variant.value.id} is OFFLINE: the kit does not process it, and the evaluation's output group holds no output for this test case`
          )
        }
        const { interaction, output } = yield* processTestCase(runner, variant.value, testCase, {
          identityId: evaluation.created_by_user_id,
          identityType: evaluation.created_by_identity_type
        })
        const [id, created_at] = yield* freshIdentity
        return new StoredTestCaseOutput({
          id,
          account_id: evaluation.account_id,
          application_variant_id: variant.value.id,
          evaluation_dataset_id: testCase.evaluation_dataset_id,
          evaluation_dataset_version_num: num,
          test_case_id: testCase.id,
          schema_type: typeof output.generation_output === "string" ? "GENERATION" : "FLEXIBLE",
          output,
          metrics: null,
          application_interaction_id: interaction,
          application_test_case_output_group_id: null,
          application_variant_report_id: null,
          trace_spans: [],
          created_at
        }, true)
      })

    /** Whether the evaluation has a result for the test case (what makes a step run again a no-op). */
    const hasResult = (evaluationId: string, testCaseId: string) =>
      Effect.map(
        sql<{ id: string }>`SELECT id FROM evaluation_v4_results WHERE evaluation_id = ${evaluationId} AND test_case_id = ${testCaseId}`
          .pipe(Effect.orDie),
        (rows) => rows.length > 0
      )

    /** One test case: its output, then its result (with the output, when new, in one transaction); once. */
    const processCase = (entity: LifecycleEntity, testCaseId: string) =>
      Effect.gen(function*() {
        const found = yield* current(entity)
        if (Option.isNone(found)) return
        const { evaluation, job } = found.value
        const metadata = buildMetadataOf(job)
        if (metadata.failed_test_case_ids.includes(testCaseId) || (yield* hasResult(evaluation.id, testCaseId))) return
        const num = metadata.evaluation_dataset_version_num!
        const testCase = yield* versions.testCaseAt(metadata.evaluation_dataset_id!, num, testCaseId)
        if (Option.isNone(testCase)) return yield* failCase(entity, testCaseId, "the test case is no longer in the dataset version")
        const reused = yield* grouped(evaluation, testCaseId)
        const produced = Option.isSome(reused)
          ? { output: reused.value, fresh: false }
          : yield* Effect.map(Effect.either(processed(evaluation, testCase.value, num)), (made) =>
            made._tag === "Left" ? made.left : { output: made.right, fresh: true })
        if (typeof produced === "string") return yield* failCase(entity, testCaseId, produced)
        const { fresh, output } = produced
        const extra = output.output.generation_extra_info
        const written = yield* sql.withTransaction(Effect.gen(function*() {
          // the evaluation's row locked first (as every write of its results does), then checked again
          yield* evaluations.get(entity.id, [entity.account_id])
          if (yield* hasResult(evaluation.id, testCaseId)) return
          if (fresh) yield* outputs.insert(output)
          yield* results.createResults(evaluation, [{
            test_case_id: testCaseId,
            application_spec_id: evaluation.application_spec_id,
            evaluation_dataset_version_num: String(num),
            test_case_evaluation_data: {
              generation_output: output.output.generation_output,
              ...(extra === null ? {} : { generation_extra_info: extra as any })
            },
            application_test_case_output_id: output.id
          }], evaluation.created_by_user_id)
        })).pipe(Effect.either)
        if (written._tag === "Left") return yield* failCase(entity, testCaseId, failureReason(written.left))
        yield* change(entity, (job) => recounted(job, buildMetadataOf(job)))
      })

    /**
     * The job `Completed`, or `Failed` (and the evaluation FAILED) when a test case failed. Answers
     * the run of the judge to start (the judge job's next), 0 when no model judges the evaluation.
     */
    const finish = (entity: LifecycleEntity) =>
      Effect.gen(function*() {
        const found = yield* current(entity)
        if (Option.isNone(found)) return 0
        const failed = buildMetadataOf(found.value.job).failed_test_case_ids.length > 0
        yield* change(entity, (job) => recounted(job, buildMetadataOf(job), failed ? "Failed" : "Completed"))
        if (failed) yield* evaluations.setStatus(entity.id, entity.account_id, "FAILED").pipe(Effect.catchTag("NotFound", () => Effect.void))
        const { evaluationType } = yield* evaluations.withConfig(entity.id, [entity.account_id]).pipe(Effect.orDie)
        if (!needsJudge(evaluationType)) return 0
        const judge = yield* jobs.change(entity.id, entity.account_id, judgeJobType, (job) =>
          Effect.gen(function*() {
            const stored = Option.isSome(job) ? job.value : yield* newJob(entity.id, entity.account_id, judgeJobType, { runs: 0 })
            const metadata = stored.job_metadata ?? {}
            return Option.some(new StoredEvaluationJob({ ...stored, status: "Pending", job_metadata: { ...metadata, runs: Number(metadata.runs ?? 0) + 1 } }, true))
          }))
        return Number(Option.getOrThrow(judge).job_metadata?.runs ?? 1)
      })

    /** The build stopped on an error: `Failed` with it. */
    const giveUp = (entity: LifecycleEntity, cause: Cause.Cause<unknown>) => Effect.orDie(fail(entity, reasonOfCause(cause)))

    return { start, processCase, caseFailed, finish, giveUp } as const
  })
}) {}

export const EvaluationV4Build = Workflow.make({ name: BuildWorkflowName, payload: LifecycleEntity, idempotencyKey: lifecycleKey })
export const EvaluationV4Judge = Workflow.make({ name: JudgeWorkflowName, payload: LifecycleEntity, idempotencyKey: lifecycleKey })

/** The steps' services and what they read (the application's services aside). */
const StepsLayer = Layer.mergeAll(EvaluationBuilding.Default, EvaluationJudging.Default).pipe(
  Layer.provideMerge(EvaluationJobsRepo.Default),
  Layer.provide(TestCaseResultsRepo.DefaultWithoutDependencies),
  Layer.provide([AnnotationTasks.Default, EvaluationsV4Repo.DefaultWithoutDependencies]),
  Layer.provide(DatasetVersionsRepo.DefaultWithoutDependencies),
  Layer.provide(ModelResolver.DefaultWithoutDependencies),
  Layer.provide([
    EvaluationConfigsRepo.Default,
    QuestionSetsRepo.Default,
    OutputsRepo.Default,
    TestCasesRepo.Default,
    EvaluationDatasetsRepo.Default,
    ModelDeploymentsRepo.Default,
    ModelInstancesRepo.Default,
    ModelServersRepo.Default,
    ProcessLive
  ])
)

/**
 * The steps' services, built on their first use rather than with the engine: each repository
 * reads the database once as it is made, and the engine's start (`GET /admin/engine` says
 * `running`) waits for every family's layer, so a family's layer makes nothing it does not need yet.
 */
class Steps extends Context.Tag("@platform-kit/server/EvaluationV4Steps")<
  Steps,
  Effect.Effect<{ readonly building: EvaluationBuilding; readonly judging: EvaluationJudging; readonly jobs: EvaluationJobsRepo }>
>() {}

const StepsLive = Layer.scoped(
  Steps,
  Effect.gen(function*() {
    const context = yield* Effect.context<Layer.Layer.Context<typeof StepsLayer>>()
    const scope = yield* Effect.scope
    return yield* Effect.cached(
      Layer.buildWithScope(StepsLayer, scope).pipe(
        Effect.provide(context),
        Effect.map((built) => ({
          building: Context.get(built, EvaluationBuilding),
          judging: Context.get(built, EvaluationJudging),
          jobs: Context.get(built, EvaluationJobsRepo)
        })),
        Effect.orDie
      )
    )
  })
)

const steps = Effect.flatten(Steps)

/**
 * Test cases (results, for the judge) one engine step takes, one after the other: a step costs the
 * engine some milliseconds of its own (docs/engine.md), so one test case a step made a build of
 * 1,000 take 33 s, 64 a step 17.6 s (8 at once within a step only 15.5 s: the work is CPU, and
 * one at a time keeps a kill -9's repeat to the one test case in flight). A step run again after
 * kill -9 skips what has its result already.
 */
const stepSize = 64

const BuildLive = EvaluationV4Build.toLayer(
  Effect.fn("EvaluationV4Build")(function*(evaluation) {
    const { building } = yield* steps
    const cases = yield* Activity.make({
      name: "start",
      success: Schema.Array(Schema.String),
      execute: retried(building.start(evaluation), (cause) => Effect.as(building.giveUp(evaluation, cause), []))
    })
    for (let from = 0; from < cases.length; from += stepSize) {
      yield* Activity.make({
        name: `cases-${from}`,
        execute: Effect.forEach(
          cases.slice(from, from + stepSize),
          (testCaseId) => retried(building.processCase(evaluation, testCaseId), (cause) => building.caseFailed(evaluation, testCaseId, cause)),
          { discard: true }
        )
      })
    }
    const run = yield* Activity.make({
      name: "finish",
      success: Schema.Number,
      execute: retried(building.finish(evaluation), (cause) => Effect.as(building.giveUp(evaluation, cause), 0))
    })
    if (run > 0) yield* EvaluationV4Judge.execute({ id: evaluation.id, account_id: evaluation.account_id, run }, { discard: true })
  })
)

const JudgeLive = EvaluationV4Judge.toLayer(
  Effect.fn("EvaluationV4Judge")(function*(evaluation) {
    const { judging } = yield* steps
    const waiting = yield* Activity.make({
      name: "start",
      success: Schema.Array(Schema.String),
      execute: retried(judging.start(evaluation), (cause) => Effect.as(judging.giveUp(evaluation, cause), []))
    })
    for (let from = 0; from < waiting.length; from += stepSize) {
      yield* Activity.make({
        name: `results-${from}`,
        execute: Effect.forEach(
          waiting.slice(from, from + stepSize),
          (resultId) => retried(judging.judgeResult(evaluation, resultId), (cause) => judging.resultFailed(evaluation, resultId, cause)),
          { discard: true }
        )
      })
    }
    yield* Activity.make({ name: "finish", execute: retried(judging.finish(evaluation), (cause) => judging.giveUp(evaluation, cause)) })
  })
)

/** The builds and judge runs that have not ended, each started again when the engine starts. */
const unfinishedBuilds = Effect.map(
  Effect.flatMap(steps, ({ jobs }) => jobs.unfinished(buildJobType)),
  (jobs) => jobs.map((job) => ({ id: job.evaluation_id, account_id: job.account_id }))
)
const unfinishedJudges = Effect.map(
  Effect.flatMap(steps, ({ jobs }) => jobs.unfinished(judgeJobType)),
  (jobs) => jobs.map((job) => ({ id: job.evaluation_id, account_id: job.account_id, run: Number(job.job_metadata?.runs ?? 1) }))
)

const Live = Layer.mergeAll(
  startOnBoot("v4 evaluation builds", unfinishedBuilds, (entity) => EvaluationV4Build.execute(entity, { discard: true })),
  startOnBoot("v4 evaluation judge runs", unfinishedJudges, (entity) => EvaluationV4Judge.execute(entity, { discard: true }))
).pipe(Layer.provideMerge(Layer.mergeAll(BuildLive, JudgeLive)))

/** The family's workflows, for the engine (../workflows.ts). */
export const EvaluationsV4Workflows = {
  workflows: { [BuildWorkflowName]: EvaluationV4Build, [JudgeWorkflowName]: EvaluationV4Judge },
  layer: Live.pipe(Layer.provide(StepsLive))
} satisfies FamilyWorkflows
