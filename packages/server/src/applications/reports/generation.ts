/**
 * The steps of a report's generation (./workflow.ts), each safe to run again: what a step writes
 * is worked out from what is stored (the outputs of the report, the failed test cases its job
 * records), never added to it.
 *
 * The job's `job_metadata`: `test_case_count` (of every dataset), `failed_test_case_ids` and, once
 * one failed, `reason` (the first failure's). Its `progress`: `completed` (outputs stored),
 * `failed`, `pending` (the rest).
 */
import { SqlClient } from "@effect/sql"
import { ReportAsyncJob, ReportAsyncJobProgress, ReportDataset, type ReportStatus, type TestCase } from "@platform-kit/schema"
import { Cause, Effect, Option } from "effect"
import { TestCasesRepo } from "../../evaluation-datasets/TestCasesRepo.js"
import type { LifecycleEntity } from "../../engine/Lifecycles.js"
import { freshIdentity, nowIso } from "../../platform/Ids.js"
import { ApplicationRunner } from "../process/runner.js"
import { VariantsRepo } from "../specs/SpecsRepo.js"
import { processTestCase } from "../test-case-outputs/outputs.js"
import { OutputsRepo, StoredTestCaseOutput } from "../test-case-outputs/OutputsRepo.js"
import { judge, reportScores } from "./judge.js"
import { ReportsRepo, type StoredVariantReport } from "./ReportsRepo.js"

interface Metadata {
  readonly test_case_count: number
  readonly failed_test_case_ids: ReadonlyArray<string>
  readonly reason?: string
}

const metadataOf = (report: StoredVariantReport): Metadata => {
  const stored = report.async_job.job_metadata as Partial<Metadata> | null
  return {
    test_case_count: stored?.test_case_count ?? 0,
    failed_test_case_ids: stored?.failed_test_case_ids ?? [],
    ...(stored?.reason === undefined ? {} : { reason: stored.reason })
  }
}

const ended = (status: ReportStatus) => status === "Completed" || status === "Failed" || status === "Canceled"

export class ReportGeneration extends Effect.Service<ReportGeneration>()("@platform-kit/server/ReportGeneration", {
  effect: Effect.gen(function*() {
    const reports = yield* ReportsRepo
    const outputs = yield* OutputsRepo
    const testCases = yield* TestCasesRepo
    const variants = yield* VariantsRepo
    const runner = yield* ApplicationRunner
    const sql = yield* SqlClient.SqlClient

    /** The report's job and datasets with `metadata`, progress recounted from the stored outputs. */
    const recounted = (report: StoredVariantReport, metadata: Metadata, status?: ReportStatus) =>
      Effect.gen(function*() {
        const completed = (yield* outputs.allOfReport(report.id, report.account_id)).length
        const failed = metadata.failed_test_case_ids.length
        const updated_at = yield* nowIso
        const next = status ?? report.async_job.status
        return {
          ...report,
          updated_at,
          evaluation_datasets: status === undefined
            ? report.evaluation_datasets
            : report.evaluation_datasets.map((dataset) => new ReportDataset({ ...dataset, generation_status: next }, true)),
          async_job: new ReportAsyncJob({
            ...report.async_job,
            status: next,
            job_metadata: { ...metadata },
            progress: new ReportAsyncJobProgress({ completed, failed, pending: Math.max(0, metadata.test_case_count - completed - failed) }),
            updated_at
          }, true)
        } as StoredVariantReport
      })

    const change = (entity: LifecycleEntity, next: (report: StoredVariantReport) => Effect.Effect<StoredVariantReport>) =>
      reports.transaction(
        Effect.flatMap(reports.findById(entity.id, [entity.account_id]), Option.match({
          onNone: () => Effect.void,
          onSome: (report) => ended(report.async_job.status) ? Effect.void : Effect.asVoid(Effect.flatMap(next(report), reports.update))
        }))
      )

    /** The test cases of the report's datasets, in the order they were written. */
    const casesOf = (report: StoredVariantReport) =>
      Effect.map(
        Effect.forEach(report.evaluation_datasets, (dataset) =>
          testCases.findNarrowed([report.account_id], [sql`evaluation_dataset_id = ${dataset.evaluation_dataset.id}`])),
        (lists) => lists.flat().filter((testCase) => testCase.archived_at === null)
      )

    /** `Pending` → `Running`; answers the test cases to process (none for a report that has ended). */
    const start = (entity: LifecycleEntity) =>
      Effect.gen(function*() {
        const found = yield* reports.findById(entity.id, [entity.account_id])
        if (Option.isNone(found) || ended(found.value.async_job.status)) return [] as ReadonlyArray<string>
        const cases = yield* casesOf(found.value)
        yield* change(entity, (report) =>
          recounted(report, { ...metadataOf(report), test_case_count: cases.length }, "Running"))
        return cases.map((testCase) => testCase.id)
      })

    /** Records the test case as failed, with the first failure's reason. */
    const failCase = (entity: LifecycleEntity, testCaseId: string, reason: string) =>
      change(entity, (report) => {
        const metadata = metadataOf(report)
        if (metadata.failed_test_case_ids.includes(testCaseId)) return Effect.succeed(report)
        return recounted(report, {
          ...metadata,
          failed_test_case_ids: [...metadata.failed_test_case_ids, testCaseId],
          reason: metadata.reason ?? `Test case ${testCaseId}: ${reason}`
        })
      })

    const caseFailed = (entity: LifecycleEntity, testCaseId: string, cause: Cause.Cause<unknown>) =>
      Effect.orDie(failCase(entity, testCaseId, Cause.pretty(cause).split("\n")[0] ?? "the step failed"))

    /** The output of the variant for the test case, or why there is none. */
    const produce = (report: StoredVariantReport, testCase: TestCase) =>
      Effect.gen(function*() {
        if (report.application_test_case_output_group_ids.length > 0) {
          const grouped = yield* outputs.findFirst([report.account_id], [
            sql.in("application_test_case_output_group_id", report.application_test_case_output_group_ids),
            sql`application_variant_id = ${report.application_variant_id}`,
            sql`test_case_id = ${testCase.id}`
          ])
          if (Option.isSome(grouped)) {
            return { output: grouped.value.output, metrics: grouped.value.metrics, interaction: grouped.value.application_interaction_id }
          }
        }
        const variant = yield* variants.findById(report.application_variant_id, [report.account_id])
        if (Option.isNone(variant)) return yield* Effect.fail(`Application variant ${report.application_variant_id} no longer exists`)
        if (variant.value.version === "OFFLINE") {
          return yield* Effect.fail(`Application variant ${variant.value.id} is OFFLINE: the kit does not process it, and no output group of the report holds this test case's output`)
        }
        const { interaction, output } = yield* processTestCase(runner, variant.value, testCase, {
          identityId: report.created_by_user_id,
          identityType: report.created_by_identity_type
        })
        return { output, metrics: null, interaction }
      })

    /** Processes the test case unless the report has its output (or it failed before). */
    const processCase = (entity: LifecycleEntity, testCaseId: string) =>
      Effect.gen(function*() {
        const found = yield* reports.findById(entity.id, [entity.account_id])
        if (Option.isNone(found) || ended(found.value.async_job.status)) return
        const report = found.value
        if (metadataOf(report).failed_test_case_ids.includes(testCaseId)) return
        if (Option.isSome(yield* outputs.ofReport(report.id, report.account_id, testCaseId))) return
        const testCase = yield* testCases.findById(testCaseId, [report.account_id])
        if (Option.isNone(testCase)) return yield* failCase(entity, testCaseId, "the test case no longer exists")
        const produced = yield* Effect.either(produce(report, testCase.value))
        if (produced._tag === "Left") return yield* failCase(entity, testCaseId, produced.left)
        const dataset = report.evaluation_datasets.find((d) => d.evaluation_dataset.id === testCase.value.evaluation_dataset_id)
        const [id, created_at] = yield* freshIdentity
        const { interaction, metrics, output } = produced.right
        yield* outputs.insertOnce(
          new StoredTestCaseOutput({
            id,
            account_id: report.account_id,
            application_variant_id: report.application_variant_id,
            evaluation_dataset_id: testCase.value.evaluation_dataset_id,
            evaluation_dataset_version_num: dataset?.evaluation_dataset_version_num ?? 1,
            test_case_id: testCaseId,
            schema_type: typeof output.generation_output === "string" ? "GENERATION" : "FLEXIBLE",
            output,
            metrics,
            application_interaction_id: interaction,
            application_test_case_output_group_id: null,
            application_variant_report_id: report.id,
            trace_spans: [],
            created_at
          }, true)
        )
        yield* change(entity, (current) => recounted(current, metadataOf(current)))
      })

    /** Scores the outputs; `Completed`, or `Failed` with the reason when a test case failed. */
    const finish = (entity: LifecycleEntity) =>
      Effect.gen(function*() {
        const found = yield* reports.findById(entity.id, [entity.account_id])
        if (Option.isNone(found) || ended(found.value.async_job.status)) return
        const stored = yield* outputs.allOfReport(entity.id, entity.account_id)
        const judged = yield* Effect.forEach(stored, (output) =>
          Effect.map(testCases.findById(output.test_case_id, [entity.account_id]), (testCase) =>
            Option.isSome(testCase) ? judge(output.output, testCase.value) : []))
        const scores = reportScores(judged)
        yield* change(entity, (report) =>
          Effect.gen(function*() {
            const metadata = metadataOf(report)
            const status: ReportStatus = metadata.failed_test_case_ids.length > 0 ? "Failed" : "Completed"
            const next = yield* recounted(report, metadata, status)
            const failedDatasets = new Set(
              (yield* casesOf(report)).filter((testCase) => metadata.failed_test_case_ids.includes(testCase.id)).map((testCase) => testCase.evaluation_dataset_id)
            )
            return {
              ...next,
              category_scores: scores.category_scores,
              score: scores.score,
              evaluation_datasets: next.evaluation_datasets.map((dataset) =>
                new ReportDataset({
                  ...dataset,
                  generation_status: failedDatasets.has(dataset.evaluation_dataset.id) ? "Failed" : "Completed",
                  scored_test_case_count: stored.filter((output) => output.evaluation_dataset_id === dataset.evaluation_dataset.id).length
                }, true)
              )
            } as StoredVariantReport
          }))
      })

    /** The job `Failed`, with the cause that stopped it. */
    const giveUp = (entity: LifecycleEntity, cause: Cause.Cause<unknown>) =>
      Effect.orDie(change(entity, (report) =>
        recounted(report, { ...metadataOf(report), reason: Cause.pretty(cause).split("\n")[0] ?? "the job failed" }, "Failed")))

    return { start, processCase, caseFailed, finish, giveUp } as const
  })
}) {}
