/**
 * v4 evaluations: a document table whose documents carry, beyond the answered evaluation, what
 * only the kit reads: the kind of evaluation (`builder` or `default`), the builder's dataset
 * fields, and the evaluation type an update set (`llm_benchmark`: a hybrid evaluation).
 *
 * Used by the handlers and by the background work of ./workflow.ts (H-E): `withConfig` reads an
 * evaluation with its config; `count` keeps the result counts and the status true, inside the
 * transaction that wrote the results: counters moved by what the write changed (O(1) a write),
 * not a count of the evaluation's results (which made a build of n results O(n²)).
 */
import { SqlClient } from "@effect/sql"
import { EvaluationConfig, EvaluationV4, EvaluationV4Status, Id, type LabelStatus, Nullable } from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import { EvaluationConfigsRepo } from "../evaluation-configs/EvaluationConfigsRepo.js"
import { nowIso } from "../platform/Ids.js"
import { makeDocuments } from "../sql/documents.js"

export class StoredEvaluationV4 extends Schema.Class<StoredEvaluationV4>("StoredEvaluationV4")({
  ...EvaluationV4.fields,
  type: Schema.Literal("builder", "default"),
  evaluation_dataset_id: Nullable(Id),
  evaluation_dataset_version: Nullable(Schema.Int),
  application_test_case_output_group_id: Nullable(Id),
  /** `llm_benchmark` once an update made the evaluation hybrid; else `null` (the config's type holds) */
  evaluation_type: Nullable(Schema.Literal("llm_benchmark")),
  /**
   * How many of its (unarchived) results are FAILED, next to the two answered counts: what the
   * status needs. Absent from evaluations stored before it was kept: their first result write
   * counts their results once (`count`), and keeps it from then on.
   */
  failed_test_case_result_count: Schema.optionalWith(Schema.Int, { exact: true })
}) {}

/** The evaluation as answered (the stored-only fields left out). */
export const evaluationOf = (stored: StoredEvaluationV4): EvaluationV4 => {
  const {
    application_test_case_output_group_id: _group,
    evaluation_dataset_id: _dataset,
    evaluation_dataset_version: _version,
    evaluation_type: _type,
    failed_test_case_result_count: _failed,
    type: _kind,
    ...fields
  } = stored
  return new EvaluationV4(fields, true)
}

/** The evaluation type that holds: the update's `llm_benchmark`, else the config's, else none. */
export const evaluationTypeOf = (stored: StoredEvaluationV4, config: Option.Option<EvaluationConfig>): string | null =>
  stored.evaluation_type ?? Option.getOrNull(Option.map(config, (found) => found.evaluation_type as string))

/**
 * Whether the evaluation's results are annotated by people (each gets a task): its type is
 * `human`, `studio` or `llm_benchmark`, or it has no config and an `annotation_config`.
 */
export const needsPeople = (stored: StoredEvaluationV4, type: string | null): boolean =>
  type === null ? stored.annotation_config !== null : type === "human" || type === "studio" || type === "llm_benchmark"

/** Whether the model judge answers the evaluation's results (`llm_auto`, `llm_benchmark`). */
export const needsJudge = (type: string | null): boolean => type === "llm_auto" || type === "llm_benchmark"

/** Counts of (unarchived) results: all, COMPLETED, FAILED. */
export interface ResultCounts {
  readonly total: number
  readonly completed: number
  readonly failed: number
}

/** What one result adds to its evaluation's counts (nothing when archived). */
export const countsOfResult = (result: { readonly label_status: LabelStatus; readonly archived_at: string | null }): ResultCounts =>
  result.archived_at !== null
    ? { total: 0, completed: 0, failed: 0 }
    : { total: 1, completed: result.label_status === "COMPLETED" ? 1 : 0, failed: result.label_status === "FAILED" ? 1 : 0 }

/** The change of the counts from `before` to `after` (results added: `before` all zeros). */
export const countsChange = (before: ResultCounts, after: ResultCounts): ResultCounts => ({
  total: after.total - before.total,
  completed: after.completed - before.completed,
  failed: after.failed - before.failed
})

/** The sum of counts. */
export const countsSum = (all: ReadonlyArray<ResultCounts>): ResultCounts =>
  all.reduce((sum, counts) => ({
    total: sum.total + counts.total,
    completed: sum.completed + counts.completed,
    failed: sum.failed + counts.failed
  }), { total: 0, completed: 0, failed: 0 })

/** A status and its completion time, from the counts of the evaluation's (unarchived) results. */
export const statusOf = (
  counts: ResultCounts,
  previous: StoredEvaluationV4,
  now: string
): { readonly status: EvaluationV4Status; readonly completed_at: string | null } => {
  if (counts.total > 0 && counts.completed === counts.total) {
    return { status: "COMPLETED", completed_at: previous.completed_at ?? now }
  }
  if (counts.total > 0 && counts.failed > 0 && counts.completed + counts.failed === counts.total) {
    return { status: "FAILED", completed_at: null }
  }
  return { status: "PENDING", completed_at: null }
}

export class EvaluationsV4Repo extends Effect.Service<EvaluationsV4Repo>()("@platform-kit/server/EvaluationsV4Repo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "evaluations_v4",
      label: "Evaluation",
      schema: StoredEvaluationV4,
      columns: (evaluation) => ({
        id: evaluation.id,
        account_id: evaluation.account_id,
        created_at: evaluation.created_at,
        archived_at: evaluation.archived_at,
        status: evaluation.status,
        name: evaluation.name,
        description: evaluation.description,
        application_spec_id: evaluation.application_spec_id,
        application_variant_id: evaluation.application_variant_id,
        evaluation_config_id: evaluation.evaluation_config_id,
        created_by_user_id: evaluation.created_by_user_id,
        completed_at: evaluation.completed_at,
        total_test_case_result_count: evaluation.total_test_case_result_count,
        completed_test_case_result_count: evaluation.completed_test_case_result_count
      })
    })
    const sql = yield* SqlClient.SqlClient
    const configs = yield* EvaluationConfigsRepo

    /** The evaluation's config, if it names one that is stored in its account. */
    const configOf = (stored: StoredEvaluationV4): Effect.Effect<Option.Option<EvaluationConfig>> =>
      stored.evaluation_config_id === null
        ? Effect.succeedNone
        : configs.findById(stored.evaluation_config_id, [stored.account_id])

    /**
     * The evaluation `id` of `accountIds` (404 otherwise) with its config and the evaluation type
     * that holds: what the judge and the build read.
     */
    const withConfig = (id: string, accountIds: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const evaluation = yield* documents.get(id, accountIds)
        const config = yield* configOf(evaluation)
        return { evaluation, config, evaluationType: evaluationTypeOf(evaluation, config) } as const
      })

    /** The counts of the evaluation's results as they are stored now (one scan of them). */
    const countedRows = (evaluationId: string): Effect.Effect<ResultCounts> =>
      Effect.map(
        sql<{ total: number; completed: number | null; failed: number | null }>`SELECT COUNT(*) AS total,
          SUM(CASE WHEN label_status = 'COMPLETED' THEN 1 ELSE 0 END) AS completed,
          SUM(CASE WHEN label_status = 'FAILED' THEN 1 ELSE 0 END) AS failed
          FROM evaluation_v4_results WHERE evaluation_id = ${evaluationId} AND archived_at IS NULL`.pipe(Effect.orDie),
        ([row]) => ({ total: Number(row!.total), completed: Number(row!.completed ?? 0), failed: Number(row!.failed ?? 0) })
      )

    /**
     * Moves the counts of `evaluation` by `change` (what the write did to its results) and sets its
     * status and `completed_at` from them: called inside the transaction that wrote the results,
     * with `evaluation` as read there (its row locked: `get` in the transaction), so two writers
     * never count past each other. An evaluation stored before the FAILED count was kept has its
     * results counted instead (once: the count is kept from then on).
     */
    const count = (evaluation: StoredEvaluationV4, change: ResultCounts): Effect.Effect<StoredEvaluationV4> =>
      Effect.gen(function*() {
        const counts = evaluation.failed_test_case_result_count === undefined
          ? yield* countedRows(evaluation.id)
          : {
            total: evaluation.total_test_case_result_count + change.total,
            completed: evaluation.completed_test_case_result_count + change.completed,
            failed: evaluation.failed_test_case_result_count + change.failed
          }
        const next = statusOf(counts, evaluation, yield* nowIso)
        if (
          counts.total === evaluation.total_test_case_result_count &&
          counts.completed === evaluation.completed_test_case_result_count &&
          counts.failed === evaluation.failed_test_case_result_count &&
          next.status === evaluation.status && next.completed_at === evaluation.completed_at
        ) return evaluation
        return yield* documents.update(
          new StoredEvaluationV4({
            ...evaluation,
            ...next,
            total_test_case_result_count: counts.total,
            completed_test_case_result_count: counts.completed,
            failed_test_case_result_count: counts.failed
          }, true)
        )
      })

    /** Sets the status (the build failed: FAILED), unless it already is. */
    const setStatus = (id: string, accountId: string, status: EvaluationV4Status) =>
      documents.transaction(Effect.gen(function*() {
        const evaluation = yield* documents.get(id, [accountId])
        if (evaluation.status === status) return evaluation
        return yield* documents.update(new StoredEvaluationV4({ ...evaluation, status }, true))
      }))

    return { ...documents, configOf, withConfig, count, setStatus } as const
  }),
  dependencies: [EvaluationConfigsRepo.Default]
}) {}
