/**
 * Application variant reports (docs/applications.md "Reports"): a create stores the report with
 * its job `Pending` and starts its generation on the engine (./workflow.ts); reads answer the job
 * with `view=AsyncJobs`.
 */
import { SqlClient } from "@effect/sql"
import {
  ApplicationVariantReport,
  ApplicationVariantReportWithViews,
  ReportAsyncJob,
  Conflict,
  NotFound,
  pageOf,
  ReportDataset
} from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../../auth/access.js"
import { Lifecycles } from "../../engine/Lifecycles.js"
import { EvaluationDatasetsRepo } from "../../evaluation-datasets/EvaluationDatasetsRepo.js"
import type { ImplementGroup } from "../../http/groups.js"
import { freshIdentity } from "../../platform/Ids.js"
import { VariantsRepo } from "../specs/SpecsRepo.js"
import { OutputsRepo } from "../test-case-outputs/OutputsRepo.js"
import { ReportsRepo, StoredVariantReport } from "./ReportsRepo.js"

/** The stored report as answered, with its job when `view=AsyncJobs`. */
const answeredWithViews = (stored: StoredVariantReport, views: ReadonlyArray<"AsyncJobs"> | undefined) => {
  const { application_test_case_output_group_ids: _, async_job, ...fields } = stored
  return new ApplicationVariantReportWithViews({ ...fields, ...(views?.includes("AsyncJobs") ? { async_jobs: [async_job] } : {}) }, true)
}

export const ApplicationVariantReportsHttp = (group: ImplementGroup) =>
  group("applicationVariantReports", (handlers) =>
    Effect.gen(function*() {
      const reports = yield* ReportsRepo
      const variants = yield* VariantsRepo
      const datasets = yield* EvaluationDatasetsRepo
      const outputs = yield* OutputsRepo
      const lifecycles = yield* Lifecycles
      const sql = yield* SqlClient.SqlClient
      return handlers
        .handle("create", ({ payload }) =>
          Effect.gen(function*() {
            const account_id = yield* accountForWrite(payload.account_id)
            const variant = yield* variants.get(payload.application_variant_id, [account_id])
            const found = yield* Effect.forEach([...new Set(payload.evaluation_dataset_ids)], (id) => datasets.get(id, [account_id]))
            const groupIds = [...new Set(payload.application_test_case_output_group_ids ?? [])]
            for (const groupId of groupIds) {
              const any = yield* outputs.findFirst([account_id], [sql`application_test_case_output_group_id = ${groupId}`])
              if (Option.isNone(any)) return yield* Effect.fail(new NotFound({ detail: `Application test case output group ${groupId} not found` }))
            }
            if (variant.version === "OFFLINE" && groupIds.length === 0) {
              return yield* Effect.fail(
                new Conflict({
                  detail: `Application variant ${variant.id} is OFFLINE: the kit does not process it; record its outputs with POST /v4/application-test-case-outputs/batch and name their groups in application_test_case_output_group_ids`
                })
              )
            }
            const [id, created_at] = yield* freshIdentity
            const [jobId] = yield* freshIdentity
            const stored = yield* reports.insert(
              new StoredVariantReport({
                id,
                account_id,
                application_spec_id: variant.application_spec_id,
                application_variant_id: variant.id,
                evaluation_datasets: found.map((evaluation_dataset) =>
                  new ReportDataset({ evaluation_dataset, evaluation_dataset_version_num: 1, generation_status: "Pending", scored_test_case_count: null }, true)
                ),
                category_scores: null,
                score: null,
                ...(yield* createdBy),
                created_at,
                updated_at: created_at,
                async_job: new ReportAsyncJob({
                  id: jobId,
                  job_type: "application-variant-report-generation",
                  status: "Pending",
                  job_metadata: null,
                  progress: null,
                  created_at,
                  updated_at: created_at
                }, true),
                application_test_case_output_group_ids: groupIds
              }, true)
            )
            yield* lifecycles.start({ workflow: "ApplicationVariantReport", id, account_id })
            const { application_test_case_output_group_ids: _, async_job: __, ...fields } = stored
            return new ApplicationVariantReport(fields, true)
          }))
        .handle("get", ({ path, urlParams }) =>
          Effect.map(
            Effect.flatMap(callerAccounts, (accounts) => reports.get(path.application_variant_report_id, accounts)),
            (stored) => answeredWithViews(stored, urlParams.view)
          ))
        .handle("list", ({ urlParams }) =>
          Effect.gen(function*() {
            const accountIds = yield* accountsForRead(urlParams.account_id)
            const where = [
              urlParams.application_spec_id === undefined ? [] : [sql`application_spec_id = ${urlParams.application_spec_id}`],
              urlParams.application_variant_id === undefined ? [] : [sql`application_variant_id = ${urlParams.application_variant_id}`]
            ].flat()
            const page = yield* reports.page({ accountIds, ...pageOf(urlParams), where })
            return { ...page, items: page.items.map((stored) => answeredWithViews(stored, urlParams.view)) }
          }))
    })
  ).pipe(Layer.provide([ReportsRepo.Default, VariantsRepo.Default, EvaluationDatasetsRepo.Default, OutputsRepo.Default]))
