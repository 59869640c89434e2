/**
 * The v4 evaluations' part of removing an evaluation dataset for good (evaluation-datasets/
 * removal.ts, the SDK's `remove`: "the dataset, and all other entities associated with the
 * dataset, such as test cases, evaluations and results"): every v4 evaluation of the dataset
 * (named by it, or holding a result of one of its test cases) with its results, their versions,
 * answers, annotation tasks and async jobs. Run inside the removal's transaction.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { jsonFieldText } from "../sql/dialect.js"

export const removeEvaluationsOfDataset = (datasetId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const evaluations = yield* sql<{ id: string }>`
      SELECT id FROM evaluations_v4 WHERE ${jsonFieldText(sql, "doc", "evaluation_dataset_id")} = ${datasetId}
      UNION SELECT DISTINCT evaluation_id AS id FROM evaluation_v4_results
        WHERE test_case_id IN (SELECT id FROM evaluation_test_cases WHERE evaluation_dataset_id = ${datasetId})`
    if (evaluations.length === 0) return
    const ids = evaluations.map((row) => row.id)
    for (const table of ["evaluation_v4_tasks", "evaluation_v4_annotation_results", "evaluation_v4_result_versions", "evaluation_v4_results", "evaluation_v4_jobs"]) {
      yield* sql`DELETE FROM ${sql(table)} WHERE ${sql.in("evaluation_id", ids)}`
    }
    yield* sql`DELETE FROM evaluations_v4 WHERE ${sql.in("id", ids)}`
  })
