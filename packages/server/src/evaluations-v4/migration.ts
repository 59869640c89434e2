import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"
import { countRows } from "../sql/documentCounts.js"
import { documentTable } from "../sql/documents.js"

/**
 * The tables of v4 evaluations: the evaluations (archived in place, counted, with the columns
 * `sort_by` orders on), their test case results (listed per evaluation; `version` is the result's
 * own version number, `position` the order they were written in), every version of each result (the history), the answers to each result's
 * questions (annotation results, by a person or the model judge), and the annotation tasks: plain
 * columns, not a document, so that a claim is one compare-and-set UPDATE on both databases.
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* documentTable("evaluations_v4", [
    `archived_at ${t.timestamp}`,
    `status ${t.text} NOT NULL`,
    `name ${t.text} NOT NULL`,
    `description ${t.text} NOT NULL`,
    `application_spec_id ${t.text} NOT NULL`,
    `application_variant_id ${t.text}`,
    `evaluation_config_id ${t.text}`,
    `created_by_user_id ${t.text} NOT NULL`,
    `completed_at ${t.timestamp}`,
    `total_test_case_result_count ${t.integer} NOT NULL`,
    `completed_test_case_result_count ${t.integer} NOT NULL`
  ])
  yield* countRows("evaluations_v4", { archived: true })
  yield* documentTable("evaluation_v4_results", [
    `evaluation_id ${t.text} NOT NULL`,
    `test_case_id ${t.text} NOT NULL`,
    `label_status ${t.text} NOT NULL`,
    `annotated_by_user_id ${t.text}`,
    `archived_at ${t.timestamp}`,
    `version ${t.integer} NOT NULL`,
    // the order the evaluation's results were written in (1, 2, …): lists, and the queue's ties
    `position ${t.integer} NOT NULL`
  ])
  yield* sql`CREATE INDEX evaluation_v4_results_evaluation ON evaluation_v4_results (evaluation_id, position)`
  yield* documentTable("evaluation_v4_result_versions", [
    `evaluation_id ${t.text} NOT NULL`,
    `test_case_result_id ${t.text} NOT NULL`,
    `num ${t.integer} NOT NULL`,
    `position ${t.integer} NOT NULL`
  ])
  yield* sql`CREATE UNIQUE INDEX evaluation_v4_result_versions_num ON evaluation_v4_result_versions (test_case_result_id, num)`
  yield* sql`CREATE INDEX evaluation_v4_result_versions_evaluation ON evaluation_v4_result_versions (evaluation_id, num, position)`
  yield* documentTable("evaluation_v4_annotation_results", [
    `evaluation_id ${t.text} NOT NULL`,
    `test_case_result_id ${t.text} NOT NULL`,
    `annotation_type ${t.text} NOT NULL`,
    `question_id ${t.text} NOT NULL`,
    // the order the evaluation's answers were written in (1, 2, …): the latest answer wins
    `position ${t.integer} NOT NULL`
  ])
  yield* sql`CREATE INDEX evaluation_v4_annotation_results_result ON evaluation_v4_annotation_results (test_case_result_id, position)`
  yield* sql`CREATE INDEX evaluation_v4_annotation_results_evaluation ON evaluation_v4_annotation_results (evaluation_id, annotation_type)`
  // `assignment_expires_at` and `created_at` as ISO-8601 text: one format, so they compare as text on both databases
  yield* sql.unsafe(`CREATE TABLE evaluation_v4_tasks (
    id ${t.text} PRIMARY KEY,
    account_id ${t.text} NOT NULL,
    evaluation_id ${t.text} NOT NULL,
    test_case_result_id ${t.text} NOT NULL UNIQUE,
    status ${t.text} NOT NULL,
    priority ${t.integer} NOT NULL,
    assigned_to ${t.text},
    assignment_expires_at ${t.text},
    created_at ${t.text} NOT NULL,
    position ${t.integer} NOT NULL
  )`)
  yield* sql`CREATE INDEX evaluation_v4_tasks_queue ON evaluation_v4_tasks (evaluation_id, status, priority, position)`
})

/**
 * The lookups a build and a judge run make once a test case: whether the evaluation has a result
 * for a test case (a step run again skips it), and the evaluation's last answer's position (the
 * next answers go after it). Without these each read every row of the evaluation: O(n) a test
 * case, O(n²) a build.
 */
const lookups = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX evaluation_v4_results_test_case ON evaluation_v4_results (evaluation_id, test_case_id)`
  yield* sql`CREATE INDEX evaluation_v4_annotation_results_position ON evaluation_v4_annotation_results (evaluation_id, position)`
})

/**
 * The claim's indexes (./tasks.ts): the queue in its own order (`priority DESC, position, id`), so
 * the first free pending task is the first index entry after the few held ones rather than a sort
 * of the evaluation's pending tasks at each claim; and the tasks a person holds. The queue index
 * of 0070 (its prefix) is replaced.
 */
const claimIndexes = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX evaluation_v4_tasks_claim ON evaluation_v4_tasks (evaluation_id, status, priority DESC, position ASC, id ASC)`
  yield* sql`CREATE INDEX evaluation_v4_tasks_assignee ON evaluation_v4_tasks (evaluation_id, assigned_to, status)`
  yield* sql`DROP INDEX evaluation_v4_tasks_queue`
})

/** The v4 evaluations migrations, by id (listed in ../migrations.ts). */
export const evaluationsV4Migrations = {
  "0070_evaluations_v4": created,
  "0072_evaluations_v4_lookups": lookups,
  "0075_evaluation_v4_tasks_claim": claimIndexes
}
