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
 * store ONE test case result for it, the step's outputs, results and interactions in one
 * transaction (a step run again after kill -9 finds the results of its test cases and stores
 * nothing for them); a last step ends the job (`Completed`, or `Failed` with the test cases
 * that failed) and, when a model judges the evaluation, starts a run of the judge.
 *
 * A judge run (`EvaluationV4Judge`, run n of an evaluation's judge job): each result waiting for the
 * judge is judged in steps of `stepSize` (./judge.ts, which writes a result's answers once, all or none,
 * a step's in one transaction).
 */
import { SqlClient } from "@effect/sql"
import type { ApplicationInteraction, ApplicationVariant, MessageSpan, TestCase } from "@platform-kit/schema"
import { Activity, Workflow } from "@effect/workflow"
import { Cause, Context, Effect, Either, Layer, Option, Schema } from "effect"
import { InteractionsDeferred, InteractionsRepo } from "../applications/InteractionsRepo.js"
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

/** A test case's output, ready to store with its result (`fresh`: a new output, stored with it). */
interface Made {
  readonly testCaseId: string
  readonly output: StoredTestCaseOutput
  readonly fresh: boolean
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
    const interactions = yield* InteractionsRepo
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

    /**
     * Records the test cases as failed (each with its reason; the job's first reason kept), the
     * job's progress recounted: one change of the job for all of them.
     */
    const failCases = (entity: LifecycleEntity, failures: ReadonlyArray<readonly [testCaseId: string, reason: string]>) =>
      change(entity, (job) => {
        const metadata = buildMetadataOf(job)
        const newly = failures.filter(([testCaseId], i) =>
          !metadata.failed_test_case_ids.includes(testCaseId) && failures.findIndex(([id]) => id === testCaseId) === i)
        const reason = metadata.reason ?? (newly.length === 0 ? undefined : `Test case ${newly[0]![0]}: ${newly[0]![1]}`)
        return recounted(job, {
          ...metadata,
          failed_test_case_ids: [...metadata.failed_test_case_ids, ...newly.map(([testCaseId]) => testCaseId)],
          ...(reason === undefined ? {} : { reason })
        })
      })

    /** A step that kept failing (`retried`): its test cases without a result failed, with the cause. */
    const casesFailed = (entity: LifecycleEntity, testCaseIds: ReadonlyArray<string>, cause: Cause.Cause<unknown>) =>
      Effect.orDie(Effect.gen(function*() {
        const stored = yield* results.testCasesWithResults(entity.id, testCaseIds)
        const reason = reasonOfCause(cause)
        yield* failCases(entity, testCaseIds.filter((id) => !stored.has(id)).map((id) => [id, reason] as const))
      }))

    /** The outputs of the evaluation's group for the test cases, by test case (the first of each), if it names a group. */
    const grouped = (evaluation: StoredEvaluationV4, testCaseIds: ReadonlyArray<string>) =>
      evaluation.application_test_case_output_group_id === null
        ? Effect.succeed(new Map<string, StoredTestCaseOutput>())
        : Effect.map(
          outputs.findNarrowed([evaluation.account_id], [
            sql`application_test_case_output_group_id = ${evaluation.application_test_case_output_group_id}`,
            sql.in("test_case_id", testCaseIds)
          ]),
          (found) => {
            const byCase = new Map<string, StoredTestCaseOutput>()
            for (const output of found) if (!byCase.has(output.test_case_id)) byCase.set(output.test_case_id, output)
            return byCase
          }
        )

    /** The variant the evaluation processes, or why it processes none (read once a step). */
    const variantOf = (evaluation: StoredEvaluationV4) =>
      Effect.gen(function*() {
        const variantId = evaluation.application_variant_id
        const variant = variantId === null ? Option.none() : yield* variants.findById(variantId, [evaluation.account_id])
        if (Option.isNone(variant)) return Either.left(`Application variant ${variantId} not found`)
        if (variant.value.version === "OFFLINE") {
          return Either.left(
            `Application variant ${variant.value.id} is OFFLINE: the kit does not process it, and the evaluation's output group holds no output for this test case`
          )
        }
        return Either.right(variant.value)
      })

    /** The variant's output for the test case (a new application test case output, not stored yet), or why there is none. */
    const processed = (evaluation: StoredEvaluationV4, variant: ApplicationVariant, testCase: TestCase, num: number) =>
      Effect.gen(function*() {
        const { interaction, output } = yield* processTestCase(runner, variant, testCase, {
          identityId: evaluation.created_by_user_id,
          identityType: evaluation.created_by_identity_type
        })
        const [id, created_at] = yield* freshIdentity
        return new StoredTestCaseOutput({
          id,
          account_id: evaluation.account_id,
          application_variant_id: variant.id,
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

    /**
     * Stores the outputs (when new) and the results of `made` in one transaction, the evaluation's
     * row locked first (as every write of its results does) and, under that lock, only for the test
     * cases that still have no result: a step run again stores nothing twice.
     */
    const store = (evaluation: StoredEvaluationV4, num: number, made: ReadonlyArray<Made>) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* evaluations.get(evaluation.id, [evaluation.account_id])
        const stored = yield* results.testCasesWithResults(evaluation.id, made.map((one) => one.testCaseId))
        const storing = made.filter((one) => !stored.has(one.testCaseId))
        if (storing.length === 0) return
        yield* outputs.insertAll(storing.filter((one) => one.fresh).map((one) => one.output))
        yield* results.createResults(evaluation, storing.map(({ output, testCaseId }) => {
          const extra = output.output.generation_extra_info
          return {
            test_case_id: testCaseId,
            application_spec_id: evaluation.application_spec_id,
            evaluation_dataset_version_num: String(num),
            test_case_evaluation_data: {
              generation_output: output.output.generation_output,
              ...(extra === null ? {} : { generation_extra_info: extra as any })
            },
            application_test_case_output_id: output.id
          }
        }), evaluation.created_by_user_id)
      }))

    /**
     * A step's test cases, once each: which already have a result (one query) and their test cases
     * at the build's dataset version (one query) read once; each one's output taken from the
     * evaluation's group or made by processing the variant (read once), one after the other; then
     * every new output and result in ONE transaction (`store`), and the job's progress moved once.
     * A test case that fails (its output cannot be made, or its result cannot be stored: then the
     * step's are stored one by one) fails alone, its reason recorded; the others are stored.
     */
    const processCases = (entity: LifecycleEntity, testCaseIds: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const found = yield* current(entity)
        if (Option.isNone(found)) return
        const { evaluation, job } = found.value
        const metadata = buildMetadataOf(job)
        const stored = yield* results.testCasesWithResults(evaluation.id, testCaseIds)
        const todo = testCaseIds.filter((id) => !metadata.failed_test_case_ids.includes(id) && !stored.has(id))
        if (todo.length === 0) return
        const num = metadata.evaluation_dataset_version_num!
        const cases = yield* results.testCasesAt(metadata.evaluation_dataset_id!, num, todo)
        const reused = yield* grouped(evaluation, todo)
        const variant = todo.some((id) => !reused.has(id)) ? yield* variantOf(evaluation) : Either.left("no variant needed")
        const failures: Array<readonly [string, string]> = []
        const made: Array<Made> = []
        // the runs' interactions, written with the step's results (one commit a step, not one a test case)
        const interactionsMade: Array<readonly [ApplicationInteraction, ReadonlyArray<MessageSpan>]> = []
        const deferred = { defer: (interaction: ApplicationInteraction, spans: ReadonlyArray<MessageSpan>) => interactionsMade.push([interaction, spans]) }
        yield* Effect.forEach(todo, (testCaseId) =>
          Effect.gen(function*() {
            const testCase = cases.get(testCaseId)
            const group = reused.get(testCaseId)
            if (testCase === undefined) return failures.push([testCaseId, "the test case is no longer in the dataset version"])
            if (group !== undefined) return made.push({ testCaseId, output: group, fresh: false })
            if (Either.isLeft(variant)) return failures.push([testCaseId, variant.left])
            // a failure of the run is the test case's; an error of the kit (the database) is tried again first
            const output = yield* retried(
              Effect.either(Effect.provideService(processed(evaluation, variant.right, testCase, num), InteractionsDeferred, deferred)),
              (cause) => Effect.succeed(Either.left(reasonOfCause(cause)))
            )
            return Either.isLeft(output) ? failures.push([testCaseId, output.left]) : made.push({ testCaseId, output: output.right, fresh: true })
          }), { discard: true })
        const written = yield* sql.withTransaction(Effect.gen(function*() {
          yield* Effect.forEach(interactionsMade, ([interaction, spans]) => interactions.insert(interaction, spans), { discard: true })
          return made.length === 0 ? Either.right(undefined) : yield* Effect.either(store(evaluation, num, made))
        }))
        if (Either.isLeft(written)) {
          // one of them cannot be stored: each alone, so that only it fails
          yield* Effect.forEach(made, (one) =>
            Effect.either(store(evaluation, num, [one])).pipe(
              Effect.map((written) => Either.isLeft(written) && failures.push([one.testCaseId, failureReason(written.left)]))
            ), { discard: true })
        }
        yield* failCases(entity, failures)
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

    return { start, processCases, casesFailed, finish, giveUp } as const
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
 * Test cases (results, for the judge) one engine step takes: a step costs the engine some
 * milliseconds of its own (docs/engine.md), so one test case a step made a build of 1,000 take
 * 33 s, 64 a step 17.6 s. Within a step the test cases run one after the other (the work is CPU)
 * and their writes are the step's: read once, written in one transaction (its interactions, outputs
 * and results; the judge's answers), one commit a step rather than several a test case (a build
 * of 1,000 judged by the built-in judge: 15.4 s with a transaction per test case). A step run
 * again after kill -9 skips what has its result already, and processes again the rest of its test
 * cases (up to 64 sent twice to a model).
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
        execute: retried(
          building.processCases(evaluation, cases.slice(from, from + stepSize)),
          (cause) => building.casesFailed(evaluation, cases.slice(from, from + stepSize), cause)
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
        execute: retried(
          judging.judgeResults(evaluation, waiting.slice(from, from + stepSize)),
          (cause) => judging.resultsFailed(evaluation, waiting.slice(from, from + stepSize), cause)
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
