/**
 * Variant reports: a document table whose documents carry, beyond the answered report, its job
 * (answered with `view=AsyncJobs`) and the output groups it was created with.
 */
import { SqlClient } from "@effect/sql"
import { ApplicationVariantReport, ReportAsyncJob, Id } from "@platform-kit/schema"
import { Effect, Schema } from "effect"
import { makeDocuments } from "../../sql/documents.js"

export class StoredVariantReport extends Schema.Class<StoredVariantReport>("StoredVariantReport")({
  ...ApplicationVariantReport.fields,
  async_job: ReportAsyncJob,
  application_test_case_output_group_ids: Schema.Array(Id)
}) {}

const ended = (report: StoredVariantReport) =>
  report.async_job.status === "Completed" || report.async_job.status === "Failed" || report.async_job.status === "Canceled"

export class ReportsRepo extends Effect.Service<ReportsRepo>()("@platform-kit/server/ApplicationVariantReportsRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "application_variant_reports",
      label: "Application variant report",
      schema: StoredVariantReport,
      columns: (report) => ({
        id: report.id,
        account_id: report.account_id,
        created_at: report.created_at,
        application_spec_id: report.application_spec_id,
        application_variant_id: report.application_variant_id,
        unfinished: ended(report) ? 0 : 1
      })
    })
    const sql = yield* SqlClient.SqlClient

    /** The reports whose job has not ended (what the engine's start goes on with). */
    const unfinished = Effect.orDie(
      sql<{ id: string; account_id: string }>`SELECT id, account_id FROM application_variant_reports WHERE unfinished = 1`
    )

    return { ...documents, unfinished } as const
  })
}) {}
