/**
 * Test case outputs: a document table whose documents carry, beyond the answered output, what
 * only the kit reads (the report that produced it, the dataset version number it was recorded
 * for) and its trace spans (answered with `view=Trace`).
 */
import { SqlClient } from "@effect/sql"
import { ApplicationTestCaseOutput, EvaluationTraceSpan, Id, Nullable } from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import { makeDocuments } from "../../sql/documents.js"

export class StoredTestCaseOutput extends Schema.Class<StoredTestCaseOutput>("StoredTestCaseOutput")({
  ...ApplicationTestCaseOutput.fields,
  evaluation_dataset_version_num: Schema.Int,
  application_variant_report_id: Nullable(Id),
  trace_spans: Schema.Array(EvaluationTraceSpan)
}) {}

export class OutputsRepo extends Effect.Service<OutputsRepo>()("@platform-kit/server/ApplicationTestCaseOutputsRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "application_test_case_outputs",
      label: "Application test case output",
      schema: StoredTestCaseOutput,
      columns: (output) => ({
        id: output.id,
        account_id: output.account_id,
        created_at: output.created_at,
        application_variant_id: output.application_variant_id,
        evaluation_dataset_id: output.evaluation_dataset_id,
        evaluation_dataset_version_num: output.evaluation_dataset_version_num,
        test_case_id: output.test_case_id,
        application_variant_report_id: output.application_variant_report_id,
        application_test_case_output_group_id: output.application_test_case_output_group_id
      })
    })
    const sql = yield* SqlClient.SqlClient

    /** The output the report `reportId` stored for `testCaseId`, if it has. */
    const ofReport = (reportId: string, accountId: string, testCaseId: string) =>
      documents.findFirst([accountId], [sql`application_variant_report_id = ${reportId}`, sql`test_case_id = ${testCaseId}`])

    /** Every output the report `reportId` stored. */
    const allOfReport = (reportId: string, accountId: string) =>
      documents.findNarrowed([accountId], [sql`application_variant_report_id = ${reportId}`])

    /** Stores the report's output for its test case unless one is there (in one transaction). */
    const insertOnce = (output: StoredTestCaseOutput) =>
      documents.transaction(
        Effect.flatMap(ofReport(output.application_variant_report_id!, output.account_id, output.test_case_id), Option.match({
          onNone: () => Effect.asVoid(documents.insert(output)),
          onSome: () => Effect.void
        }))
      )

    return { ...documents, ofReport, allOfReport, insertOnce } as const
  })
}) {}
