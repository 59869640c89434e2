/**
 * Test case results of v4 evaluations, their history and their annotation results
 * (docs/evaluations.md "v4 evaluations").
 *
 * Every write goes through this file, in one transaction that first locks the evaluation's row:
 * the results, their versions (version 1 as created, +1 per update: the history), their tasks
 * (./tasks.ts), the answers as annotation results (`human` from a person's `result`, `llm_auto`
 * from the judge: `recordJudgement`), the result's custom metrics (./customMetrics.ts) when it is
 * written with its output, then the evaluation's counts and status (`count`: moved by the write's
 * change, not counted again). A result posted to an archived evaluation is a 409.
 *
 * Used by ./http.ts and by the background work of ./workflow.ts (H-E): `createResults` (the build),
 * `recordJudgement` and `annotationsOf` (the judge). Keep these names stable.
 */
import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import {
  AnnotationResult,
  Conflict,
  CustomMetricValue,
  Id,
  type LabelStatus,
  LlmAutoEvalMetadata,
  NotFound,
  Nullable,
  type Question,
  type ResultAnswers,
  SelectedChoice,
  type SelectedChoiceValue,
  TestCase,
  TestCaseResultV4,
  type TestCaseOutputResultInput,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import { resultOf as outputResultOf } from "../applications/test-case-outputs/outputs.js"
import { DatasetVersionsRepo } from "../evaluation-datasets/DatasetVersionsRepo.js"
import { EvaluationDatasetsRepo } from "../evaluation-datasets/EvaluationDatasetsRepo.js"
import { TestCasesRepo } from "../evaluation-datasets/TestCasesRepo.js"
import { Ids, nowIso } from "../platform/Ids.js"
import { makeDocuments } from "../sql/documents.js"
import { makeRead } from "../sql/reads.js"
import { writesTogetherOn } from "../sql/writesTogether.js"
import {
  countsChange,
  countsOfResult,
  countsSum,
  EvaluationsV4Repo,
  needsPeople,
  type StoredEvaluationV4
} from "./EvaluationsV4Repo.js"
import { customMetricsOf } from "./customMetrics.js"
import { AnnotationTasks, defaultTaskPriority } from "./tasks.js"

/**
 * A result as stored: the answered result, its own version number, its position in its
 * evaluation (1 for the first result written, …: the order of lists and of the task queue), and
 * its custom metrics (the `CustomMetrics` view; none in a result stored before they were kept).
 */
export class StoredTestCaseResultV4 extends Schema.Class<StoredTestCaseResultV4>("StoredTestCaseResultV4")({
  ...TestCaseResultV4.fields,
  version: Schema.Int,
  position: Schema.Int,
  custom_metrics: Schema.optionalWith(Schema.Array(CustomMetricValue), { default: () => [] })
}) {}

/** The result as answered (its version, position and custom metrics left out). */
export const testCaseResultOf = ({ custom_metrics: _m, position: _p, version: _v, ...fields }: StoredTestCaseResultV4) =>
  new TestCaseResultV4(fields, true)

/** One version of a result: the result as that write left it. */
export class TestCaseResultVersion extends Schema.Class<TestCaseResultVersion>("TestCaseResultVersion")({
  id: Id,
  account_id: Id,
  evaluation_id: Id,
  test_case_result_id: Id,
  num: Schema.Int,
  created_at: Schema.String,
  result: StoredTestCaseResultV4
}) {}

/** An annotation result as stored: the answered one, whose result and evaluation, and who answered. */
export class StoredAnnotationResult extends Schema.Class<StoredAnnotationResult>("StoredAnnotationResult")({
  ...AnnotationResult.fields,
  account_id: Id,
  evaluation_id: Id,
  annotated_by_user_id: Nullable(Id),
  /** the order the evaluation's answers were written in: the latest of a kind wins */
  position: Schema.Int
}) {}

export const annotationResultOf = (
  { account_id: _a, annotated_by_user_id: _u, evaluation_id: _e, position: _p, ...fields }: StoredAnnotationResult
) => new AnnotationResult(fields, true)

const decodeTestCase = Schema.decodeUnknownSync(TestCase)

const byPosition = <A extends { readonly position: number }>(rows: ReadonlyArray<A>) => [...rows].sort((a, b) => a.position - b.position)

/** A result to store (a body's item, or one the build made from an application's output). */
export interface NewTestCaseResult {
  readonly test_case_id: string
  readonly application_spec_id: string
  readonly evaluation_dataset_version_num: string
  readonly test_case_evaluation_data: TestCaseOutputResultInput
  readonly application_test_case_output_id?: string | undefined
  readonly annotated_by_user_id?: string | undefined
  readonly audit_comment?: string | undefined
  readonly audit_required?: boolean | undefined
  readonly audit_status?: "UNAUDITED" | "FIXED" | "APPROVED" | undefined
  readonly label_status?: LabelStatus | undefined
  readonly result?: ResultAnswers | undefined
  readonly time_spent_labeling_s?: number | undefined
}

/** A partial update: a field left out keeps its value. */
export type TestCaseResultPatch = Partial<Omit<NewTestCaseResult, "application_test_case_output_id">>

/** One `llm_auto` answer of the judge. */
export interface JudgeAnswer {
  readonly question_id: string
  readonly selected_choice: SelectedChoiceValue
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly llm_reasoning: string
  readonly time_elapsed_s: number
  readonly cost?: number | null | undefined
}

type Loc = ReadonlyArray<string | number>

const invalid = (loc: Loc, msg: string, input: unknown) =>
  new ValidationError({ detail: [new ValidationIssue({ loc: [...loc], msg, type: "value_error", input })] })

/**
 * An answer as an annotation result's `selected_choice`: a categorical question's choice (its
 * label and `audit_required` from the question; several for a list), else the text or number as
 * given; a yes/no (boolean) answer is a choice labelled `true` / `false`.
 */
export const selectedChoiceOf = (value: ResultAnswers[string], question: Question | undefined): SelectedChoiceValue => {
  const choice = (v: string | number | boolean) => {
    const known = question?.choices?.find((c) => c.value === String(v))
    return new SelectedChoice({ label: known?.label ?? String(v), value: v, audit_required: known?.audit_required ?? null }, true)
  }
  if (Array.isArray(value)) return value.map(choice)
  if (typeof value === "boolean" || question?.type === "categorical") return choice(value as string | number | boolean)
  return value as string | number
}

export class TestCaseResultsRepo extends Effect.Service<TestCaseResultsRepo>()("@platform-kit/server/TestCaseResultsV4Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = yield* makeRead
    const results = yield* makeDocuments({
      table: "evaluation_v4_results",
      label: "Test case result",
      schema: StoredTestCaseResultV4,
      columns: (result) => ({
        id: result.id,
        account_id: result.account_id,
        created_at: result.created_at,
        evaluation_id: result.evaluation_id,
        test_case_id: result.test_case_id,
        label_status: result.label_status,
        annotated_by_user_id: result.annotated_by_user_id,
        archived_at: result.archived_at,
        version: result.version,
        position: result.position
      })
    })
    const versions = yield* makeDocuments({
      table: "evaluation_v4_result_versions",
      label: "Test case result version",
      schema: TestCaseResultVersion,
      columns: (version) => ({
        id: version.id,
        account_id: version.account_id,
        created_at: version.created_at,
        evaluation_id: version.evaluation_id,
        test_case_result_id: version.test_case_result_id,
        num: version.num,
        position: version.result.position
      })
    })
    const annotations = yield* makeDocuments({
      table: "evaluation_v4_annotation_results",
      label: "Annotation result",
      schema: StoredAnnotationResult,
      columns: (annotation) => ({
        id: annotation.id,
        account_id: annotation.account_id,
        created_at: annotation.created_at,
        evaluation_id: annotation.evaluation_id,
        test_case_result_id: annotation.test_case_result_lineage_id,
        annotation_type: annotation.annotation_type,
        question_id: annotation.question_id,
        position: annotation.position
      })
    })
    const evaluations = yield* EvaluationsV4Repo
    const tasks = yield* AnnotationTasks
    const testCases = yield* TestCasesRepo
    const datasets = yield* EvaluationDatasetsRepo
    const datasetVersions = yield* DatasetVersionsRepo
    const ids = yield* Ids

    /**
     * The questions found so far, by account and id. A question is never changed once created (the
     * API has no update or delete of one), so what was read stays true: each answer of a person
     * reads its questions from here, not from the database. Bounded (started over when full).
     */
    const knownQuestions = new Map<string, Question>()
    const questionKey = (accountId: string, questionId: string) => `${accountId}\u0000${questionId}`

    /** The v4 questions of `questionIds` stored in `accountId`, by id (answers to others are kept as given). */
    const questionsOf = (questionIds: ReadonlyArray<string>, accountId: string): Effect.Effect<ReadonlyMap<string, Question>> => {
      const found = new Map<string, Question>()
      const unknown: Array<string> = []
      for (const id of questionIds) {
        const known = knownQuestions.get(questionKey(accountId, id))
        if (known === undefined) unknown.push(id)
        else found.set(id, known)
      }
      return unknown.length === 0
        ? Effect.succeed(found)
        : read(sql<{ id: string; doc: string }>`SELECT id, doc FROM questions WHERE ${sql.in("id", unknown)} AND account_id = ${accountId}`)
          .pipe(
            Effect.orDie,
            Effect.map((rows) => {
              if (knownQuestions.size + rows.length > 10_000) knownQuestions.clear()
              for (const row of rows) {
                const question = JSON.parse(row.doc) as Question
                knownQuestions.set(questionKey(accountId, row.id), question)
                found.set(row.id, question)
              }
              return found
            })
          )
    }

    /** The test case (of the evaluation's account: 404 otherwise), its dataset and the data's schema. */
    const testCaseOf = (evaluation: StoredEvaluationV4, testCaseId: string) =>
      Effect.gen(function*() {
        const found = yield* testCases.findById(testCaseId, [evaluation.account_id])
        if (Option.isNone(found)) return yield* Effect.fail(new NotFound({ detail: `Test case ${testCaseId} not found` }))
        const testCase: TestCase = found.value
        const dataset = yield* datasets.findById(testCase.evaluation_dataset_id, [evaluation.account_id])
        const schemaType: "GENERATION" | "FLEXIBLE" = Option.match(dataset, {
          onNone: () => testCase.schema_type,
          onSome: (d) => (d.schema_type as string) === "FLEXIBLE" ? "FLEXIBLE" : "GENERATION"
        })
        return { testCase, schemaType } as const
      })

    /**
     * `testCaseOf` for many test cases at once (two queries, not two a test case: a batch, a
     * build's step), by id: those of the evaluation's account, each with its data's schema.
     */
    const testCasesFor = (evaluation: StoredEvaluationV4, testCaseIds: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const ids = [...new Set(testCaseIds)]
        const found = ids.length === 0 ? [] : yield* testCases.findNarrowed([evaluation.account_id], [sql.in("id", ids)])
        const datasetIds = [...new Set(found.map((testCase) => testCase.evaluation_dataset_id))]
        const owning = datasetIds.length === 0 ? [] : yield* datasets.findNarrowed([evaluation.account_id], [sql.in("id", datasetIds)])
        const schemaOf = new Map(owning.map((dataset) => [dataset.id, (dataset.schema_type as string) === "FLEXIBLE" ? "FLEXIBLE" as const : "GENERATION" as const]))
        return new Map(found.map((testCase: TestCase) => [
          testCase.id,
          { testCase, schemaType: schemaOf.get(testCase.evaluation_dataset_id) ?? testCase.schema_type }
        ] as const)) as ReadonlyMap<string, { readonly testCase: TestCase; readonly schemaType: "GENERATION" | "FLEXIBLE" }>
      })

    /**
     * The custom metrics of a result of `evaluation` (none when it has no metric config): its output
     * against its test case as the result's dataset version holds it, else as it is now (`current`).
     */
    const customMetricsFor = (
      evaluation: StoredEvaluationV4,
      result: Pick<StoredTestCaseResultV4, "evaluation_dataset_id" | "evaluation_dataset_version_num" | "test_case_id" | "test_case_evaluation_data">,
      current: TestCase
    ) =>
      Effect.gen(function*() {
        if ((evaluation.metric_config?.components.length ?? 0) === 0) return []
        const num = Number(result.evaluation_dataset_version_num)
        const atVersion = Number.isInteger(num)
          ? yield* datasetVersions.testCaseAt(result.evaluation_dataset_id, num, result.test_case_id)
          : Option.none()
        const testCase = Option.getOrElse(atVersion, () => current)
        return yield* customMetricsOf(
          evaluation.metric_config,
          { test_case_output: result.test_case_evaluation_data, test_case_data: testCase.test_case_data },
          ids.make
        )
      })

    /** The output as answered; a GENERATION dataset's output is text (422 at `loc` otherwise). */
    const evaluationDataOf = (data: TestCaseOutputResultInput, schemaType: "GENERATION" | "FLEXIBLE", loc: Loc) =>
      schemaType === "GENERATION" && typeof data.generation_output !== "string"
        ? Effect.fail(invalid([...loc, "generation_output"], "A result of a GENERATION dataset's test case has text as its generation_output", data.generation_output))
        : Effect.succeed(outputResultOf(data))

    /** The largest `position` of the evaluation's rows in `table` (0 when none); read with its row locked. */
    const lastPosition = (table: "evaluation_v4_results" | "evaluation_v4_annotation_results", evaluationId: string) =>
      Effect.map(
        sql<{ m: number | null }>`SELECT MAX(position) AS m FROM ${sql(table)} WHERE evaluation_id = ${evaluationId}`.pipe(Effect.orDie),
        (rows) => Number(rows[0]?.m ?? 0)
      )

    /** Stores annotation results after the evaluation's others, in the order given. */
    const insertAnnotations = (evaluationId: string, rows: ReadonlyArray<StoredAnnotationResult>) =>
      rows.length === 0 ? Effect.void : Effect.flatMap(lastPosition("evaluation_v4_annotation_results", evaluationId), (last) =>
        annotations.insertAll(rows.map((row, i) => new StoredAnnotationResult({ ...row, position: last + 1 + i }, true))))

    /** Stores the first version of `result` and its history row. */
    const versionRow = (result: StoredTestCaseResultV4, at: string) =>
      Effect.map(ids.make, (id) =>
        new TestCaseResultVersion({
          id,
          account_id: result.account_id,
          evaluation_id: result.evaluation_id,
          test_case_result_id: result.id,
          num: result.version,
          created_at: at,
          result
        }, true))

    /** The `human` annotation results of a person's answers. */
    const humanAnswers = (result: StoredTestCaseResultV4, answers: ResultAnswers, userId: string | null, at: string) =>
      Effect.gen(function*() {
        const questions = yield* questionsOf(Object.keys(answers), result.account_id)
        return yield* Effect.forEach(Object.entries(answers), ([questionId, value]) =>
          Effect.map(ids.make, (id) =>
            new StoredAnnotationResult({
              id,
              annotation_type: "human",
              question_id: questionId,
              selected_choice: selectedChoiceOf(value, questions.get(questionId)),
              test_case_result_lineage_id: result.id,
              llm_auto_eval_metadata: null,
              created_at: at,
              account_id: result.account_id,
              evaluation_id: result.evaluation_id,
              annotated_by_user_id: userId,
              position: 0
            }, true)))
      })

    /**
     * The evaluation `evaluationId` of `accountId`, row-locked for the rest of the transaction; an
     * archived one takes no result (409).
     */
    const lockOpen = (evaluationId: string, accountId: string) =>
      Effect.flatMap(evaluations.withConfig(evaluationId, [accountId]), (found) =>
        found.evaluation.archived_at !== null
          ? Effect.fail(new Conflict({ detail: `Evaluation ${evaluationId} is archived: restore it first` }))
          : Effect.succeed(found))

    /**
     * `lockOpen` without the config, for a write that does not depend on the evaluation's type (a
     * result's update): the evaluation `evaluationId` of `accountIds` (404 otherwise), row-locked,
     * 409 when archived.
     */
    const lockOpenEvaluation = (evaluationId: string, accountIds: ReadonlyArray<string>) =>
      Effect.flatMap(evaluations.get(evaluationId, accountIds), (evaluation) =>
        evaluation.archived_at !== null
          ? Effect.fail(new Conflict({ detail: `Evaluation ${evaluationId} is archived: restore it first` }))
          : Effect.succeed(evaluation))

    /**
     * A transaction of a request's write that only reads and writes its own rows (it waits on no
     * other work): on the standalone server's SQLite client it joins the group of writes that
     * arrived with it and shares its commit (sql/writesTogether.ts) instead of committing that
     * group first and paying a commit of its own; elsewhere `withTransaction`. A SQL failure is a
     * defect, as in `results.transaction`.
     */
    const writeTogether = <B, E, R>(effect: Effect.Effect<B, E, R>): Effect.Effect<B, E, R> =>
      writesTogetherOn(sql)(effect).pipe(
        Effect.catchIf((error): error is SqlError => error instanceof SqlError, Effect.die)
      ) as Effect.Effect<B, E, R>

    /**
     * Stores new results of `evaluation`, all or none: each of a test case of the evaluation's
     * account (404), its dataset from the test case, its schema from the dataset; version 1 in
     * the history; a task each when people annotate the evaluation; `human` annotation results for
     * the answers given; the evaluation's counts moved. `locOf(i)` is where item `i` is in the body.
     */
    const createResults = (
      evaluation: StoredEvaluationV4,
      items: ReadonlyArray<NewTestCaseResult>,
      createdByUserId: string,
      locOf: (index: number) => Loc = () => ["body"]
    ): Effect.Effect<Array<TestCaseResultV4>, NotFound | Conflict | ValidationError> =>
      Effect.gen(function*() {
        const known = yield* testCasesFor(evaluation, items.map((item) => item.test_case_id))
        const prepared = yield* Effect.forEach(items, (item, index) =>
          Effect.gen(function*() {
            const found = known.get(item.test_case_id)
            if (found === undefined) return yield* Effect.fail(new NotFound({ detail: `Test case ${item.test_case_id} not found` }))
            const { schemaType, testCase } = found
            const data = yield* evaluationDataOf(item.test_case_evaluation_data, schemaType, [...locOf(index), "test_case_evaluation_data"])
            return { item, testCase, schemaType, data } as const
          }))
        return yield* results.transaction(Effect.gen(function*() {
          const { evaluation: locked, evaluationType } = yield* lockOpen(evaluation.id, evaluation.account_id)
          const at = yield* nowIso
          const last = yield* lastPosition("evaluation_v4_results", locked.id)
          const stored = yield* Effect.forEach(prepared, ({ data, item, schemaType, testCase }, index) =>
            Effect.gen(function*() {
              const answered = item.result !== undefined
              const label_status: LabelStatus = item.label_status ?? (answered ? "COMPLETED" : "PENDING")
              const custom_metrics = yield* customMetricsFor(locked, {
                evaluation_dataset_id: testCase.evaluation_dataset_id,
                evaluation_dataset_version_num: item.evaluation_dataset_version_num,
                test_case_id: testCase.id,
                test_case_evaluation_data: data
              }, testCase)
              return new StoredTestCaseResultV4({
                id: yield* ids.make,
                account_id: locked.account_id,
                evaluation_id: locked.id,
                evaluation_dataset_id: testCase.evaluation_dataset_id,
                evaluation_dataset_version_num: item.evaluation_dataset_version_num,
                application_spec_id: item.application_spec_id,
                test_case_id: testCase.id,
                test_case_evaluation_data_schema: schemaType,
                test_case_evaluation_data: data,
                label_status,
                result: item.result ?? null,
                annotated_by_user_id: item.annotated_by_user_id ?? (answered ? createdByUserId : null),
                application_test_case_output_id: item.application_test_case_output_id ?? null,
                audit_comment: item.audit_comment ?? null,
                audit_required: item.audit_required ?? null,
                audit_status: item.audit_status ?? null,
                time_spent_labeling_s: item.time_spent_labeling_s ?? null,
                completed_at: label_status === "COMPLETED" ? at : null,
                archived_at: null,
                created_by_user_id: createdByUserId,
                created_at: at,
                version: 1,
                position: last + 1 + index,
                custom_metrics
              }, true)
            }))
          yield* results.insertAll(stored)
          yield* versions.insertAll(yield* Effect.forEach(stored, (result) => versionRow(result, at)))
          const answers = yield* Effect.forEach(
            stored.filter((result) => result.result !== null),
            (result) => humanAnswers(result, result.result!, result.annotated_by_user_id, at)
          )
          yield* insertAnnotations(locked.id, answers.flat())
          if (needsPeople(locked, evaluationType)) {
            yield* tasks.insertAll(yield* Effect.forEach(stored, (result) =>
              Effect.map(ids.make, (id) => ({
                id,
                account_id: result.account_id,
                evaluation_id: result.evaluation_id,
                test_case_result_id: result.id,
                status: result.label_status === "COMPLETED" ? "COMPLETED" as const : "PENDING" as const,
                priority: defaultTaskPriority,
                assigned_to: null,
                assignment_expires_at: null,
                created_at: result.created_at,
                position: result.position
              }))))
          }
          yield* evaluations.count(locked, countsSum(stored.map(countsOfResult)))
          return stored.map(testCaseResultOf)
        }))
      })

    /** The result `id` of `evaluation` (404 otherwise, also when it is another evaluation's). */
    const getIn = (evaluation: Pick<StoredEvaluationV4, "id" | "account_id">, id: string): Effect.Effect<StoredTestCaseResultV4, NotFound> =>
      Effect.flatMap(results.findById(id, [evaluation.account_id]), (found) =>
        Option.isSome(found) && found.value.evaluation_id === evaluation.id
          ? Effect.succeed(found.value)
          : Effect.fail(new NotFound({ detail: `Test case result ${id} not found` })))

    /**
     * Writes `next` as the result's next version (`current` the one it replaces), its task following
     * its label status, and moves the evaluation's counts by the change of its status.
     */
    const writeVersion = (locked: StoredEvaluationV4, current: StoredTestCaseResultV4, next: StoredTestCaseResultV4, at: string) =>
      Effect.gen(function*() {
        yield* results.update(next)
        yield* versions.insert(yield* versionRow(next, at))
        yield* tasks.followResult(next.id, next.label_status)
        yield* evaluations.count(locked, countsChange(countsOfResult(current), countsOfResult(next)))
        return next
      })

    const labelled = (current: StoredTestCaseResultV4, label_status: LabelStatus, at: string) => ({
      label_status,
      completed_at: label_status === "COMPLETED" ? current.completed_at ?? at : null
    })

    /**
     * A partial update of the result, recorded as its next version. Answering (`result`) marks it
     * COMPLETED unless `label_status` says otherwise (`PENDING` keeps it open), names the caller as
     * the annotator unless `annotated_by_user_id` is given, and stores the answers as `human`
     * annotation results. The evaluation is named by id and the accounts it may be in (a
     * request's path: read once, locked, inside the write) or as stored; its config is not read.
     */
    const updateResult = (
      evaluation: Pick<StoredEvaluationV4, "id" | "account_id"> | { readonly id: string; readonly accountIds: ReadonlyArray<string> },
      resultId: string,
      patch: TestCaseResultPatch,
      callerId: string
    ): Effect.Effect<TestCaseResultV4, NotFound | Conflict | ValidationError> =>
      writeTogether(Effect.gen(function*() {
        const locked = yield* lockOpenEvaluation(evaluation.id, "accountIds" in evaluation ? evaluation.accountIds : [evaluation.account_id])
        const current = yield* getIn(locked, resultId)
        const at = yield* nowIso
        const testCaseId = patch.test_case_id ?? current.test_case_id
        const moved = testCaseId !== current.test_case_id || patch.test_case_evaluation_data !== undefined
        const { schemaType, testCase } = moved
          ? yield* testCaseOf(locked, testCaseId)
          : { schemaType: current.test_case_evaluation_data_schema, testCase: undefined }
        const data = patch.test_case_evaluation_data === undefined
          ? current.test_case_evaluation_data
          : yield* evaluationDataOf(patch.test_case_evaluation_data, schemaType, ["body", "test_case_evaluation_data"])
        if (patch.test_case_evaluation_data === undefined && schemaType === "GENERATION" && typeof data.generation_output !== "string") {
          return yield* Effect.fail(invalid(["body", "test_case_id"], "The test case's dataset takes text outputs; this result's output is an object", testCaseId))
        }
        const answered = patch.result !== undefined
        const annotator = patch.annotated_by_user_id ?? (answered ? callerId : current.annotated_by_user_id)
        const evaluation_dataset_id = testCase?.evaluation_dataset_id ?? current.evaluation_dataset_id
        const evaluation_dataset_version_num = patch.evaluation_dataset_version_num ?? current.evaluation_dataset_version_num
        // the custom metrics again when what they compare may have changed: the output, the test case, its version
        const custom_metrics = moved || evaluation_dataset_version_num !== current.evaluation_dataset_version_num
          ? yield* customMetricsFor(
            locked,
            { evaluation_dataset_id, evaluation_dataset_version_num, test_case_id: testCaseId, test_case_evaluation_data: data },
            testCase ?? (yield* testCaseOf(locked, testCaseId)).testCase
          )
          : current.custom_metrics
        const next = new StoredTestCaseResultV4({
          ...current,
          test_case_id: testCaseId,
          evaluation_dataset_id,
          test_case_evaluation_data_schema: schemaType,
          test_case_evaluation_data: data,
          application_spec_id: patch.application_spec_id ?? current.application_spec_id,
          evaluation_dataset_version_num,
          result: patch.result ?? current.result,
          annotated_by_user_id: annotator,
          audit_comment: patch.audit_comment ?? current.audit_comment,
          audit_required: patch.audit_required ?? current.audit_required,
          audit_status: patch.audit_status ?? current.audit_status,
          time_spent_labeling_s: patch.time_spent_labeling_s ?? current.time_spent_labeling_s,
          ...labelled(current, patch.label_status ?? (answered ? "COMPLETED" : current.label_status), at),
          version: current.version + 1,
          custom_metrics
        }, true)
        if (answered) yield* insertAnnotations(locked.id, yield* humanAnswers(next, patch.result!, annotator, at))
        return testCaseResultOf(yield* writeVersion(locked, current, next, at))
      }))

    /**
     * The judge's answers to a result (H-E's ./workflow.ts): stores them as `llm_auto` annotation
     * results and, when `update` says so, merges `update.result` into the result's answers and
     * sets its label status (a new version; the task and the evaluation follow).
     */
    const recordJudgement = (
      evaluationId: string,
      accountId: string,
      resultId: string,
      answers: ReadonlyArray<JudgeAnswer>,
      update: { readonly result?: ResultAnswers; readonly label_status?: LabelStatus } = {}
    ): Effect.Effect<TestCaseResultV4, NotFound | Conflict> =>
      results.transaction(Effect.gen(function*() {
        const { evaluation: locked } = yield* lockOpen(evaluationId, accountId)
        const current = yield* getIn(locked, resultId)
        const at = yield* nowIso
        yield* insertAnnotations(current.evaluation_id, yield* Effect.forEach(answers, (answer) =>
          Effect.map(ids.make, (id) =>
            new StoredAnnotationResult({
              id,
              annotation_type: "llm_auto",
              question_id: answer.question_id,
              selected_choice: answer.selected_choice,
              test_case_result_lineage_id: current.id,
              llm_auto_eval_metadata: new LlmAutoEvalMetadata({
                annotation_result_id: id,
                prompt_tokens: answer.prompt_tokens,
                completion_tokens: answer.completion_tokens,
                llm_reasoning: answer.llm_reasoning,
                time_elapsed_s: answer.time_elapsed_s,
                cost: answer.cost ?? null
              }, true),
              created_at: at,
              account_id: current.account_id,
              evaluation_id: current.evaluation_id,
              annotated_by_user_id: null,
              position: 0
            }, true))))
        if (update.result === undefined && update.label_status === undefined) return testCaseResultOf(current)
        const next = new StoredTestCaseResultV4({
          ...current,
          result: update.result === undefined ? current.result : { ...current.result, ...update.result },
          ...labelled(current, update.label_status ?? current.label_status, at),
          version: current.version + 1
        }, true)
        return testCaseResultOf(yield* writeVersion(locked, current, next, at))
      }))

    /**
     * A task for each result of the evaluation that has none (an update made people annotate it),
     * following its result's label status.
     */
    const ensureTasks = (evaluation: StoredEvaluationV4) =>
      results.transaction(Effect.gen(function*() {
        yield* evaluations.get(evaluation.id, [evaluation.account_id]).pipe(Effect.orDie) // lock its row
        const untasked = yield* sql<{ id: string; label_status: string; created_at: string; position: number }>`SELECT r.id, r.label_status, r.created_at, r.position
          FROM evaluation_v4_results r WHERE r.evaluation_id = ${evaluation.id} AND r.archived_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM evaluation_v4_tasks t WHERE t.test_case_result_id = r.id)`.pipe(Effect.orDie)
        yield* tasks.insertAll(yield* Effect.forEach(untasked, (result) =>
          Effect.map(ids.make, (id) => ({
            id,
            account_id: evaluation.account_id,
            evaluation_id: evaluation.id,
            test_case_result_id: result.id,
            status: result.label_status === "COMPLETED" ? "COMPLETED" as const : "PENDING" as const,
            priority: defaultTaskPriority,
            assigned_to: null,
            assignment_expires_at: null,
            created_at: typeof result.created_at === "string" ? result.created_at : new Date(result.created_at).toISOString(),
            position: Number(result.position)
          }))))
      }))

    /** One v4 page of the evaluation's results, in the order they were written. */
    const pageIn = (evaluation: StoredEvaluationV4, page: { readonly page: number; readonly limit: number }, includeArchived: boolean) =>
      results.page({
        accountIds: [evaluation.account_id],
        ...page,
        where: [sql`evaluation_id = ${evaluation.id}`, ...results.unlessArchived(includeArchived)],
        orderBy: sql.literal("position ASC")
      })

    /** The version `num` of the result (a string of digits; anything else has no version). */
    const versionOf = (evaluation: StoredEvaluationV4, resultId: string, num: string) =>
      Effect.gen(function*() {
        const n = /^[1-9][0-9]{0,8}$/.test(num) ? Number(num) : undefined
        const found = n === undefined
          ? Option.none()
          : yield* versions.findFirst([evaluation.account_id], [sql`test_case_result_id = ${resultId}`, sql`num = ${n}`])
        if (Option.isNone(found) || found.value.evaluation_id !== evaluation.id) {
          return yield* Effect.fail(new NotFound({ detail: `Version ${num} of test case result ${resultId} not found` }))
        }
        return testCaseResultOf(found.value.result)
      })

    /** Version `num` of each result of the evaluation that has one, in the order the results were written. */
    const pageOfVersion = (evaluation: StoredEvaluationV4, num: string, page: { readonly page: number; readonly limit: number }) =>
      Effect.map(
        versions.page({
          accountIds: /^[1-9][0-9]{0,8}$/.test(num) ? [evaluation.account_id] : [],
          ...page,
          where: [sql`evaluation_id = ${evaluation.id}`, sql`num = ${Number(num)}`],
          orderBy: sql.literal("position ASC")
        }),
        (found) => ({ ...found, items: found.items.map((version) => testCaseResultOf(version.result)) })
      )

    // What a step of a build or of a judge run (./build.ts, ./judge.ts) reads and writes for its
    // test cases at once: one query for many, one transaction for the step's writes.

    /** The test cases among `testCaseIds` the evaluation has a result for (one query). */
    const testCasesWithResults = (evaluationId: string, testCaseIds: ReadonlyArray<string>): Effect.Effect<ReadonlySet<string>> =>
      testCaseIds.length === 0
        ? Effect.succeed(new Set<string>())
        : Effect.map(
          sql<{ test_case_id: string }>`SELECT test_case_id FROM evaluation_v4_results
            WHERE evaluation_id = ${evaluationId} AND ${sql.in("test_case_id", testCaseIds)}`.pipe(Effect.orDie),
          (rows) => new Set(rows.map((row) => row.test_case_id))
        )

    /**
     * The test cases among `testCaseIds` as version `num` of the dataset holds them (a published
     * version's copy, a draft's current test cases), by id; one query (the one-case read is
     * DatasetVersionsRepo's `testCaseAt`).
     */
    const testCasesAt = (
      datasetId: string,
      num: number,
      testCaseIds: ReadonlyArray<string>
    ): Effect.Effect<ReadonlyMap<string, TestCase>> =>
      Effect.gen(function*() {
        const version = testCaseIds.length === 0 ? Option.none() : yield* datasetVersions.find(datasetId, num)
        if (Option.isNone(version)) return new Map<string, TestCase>()
        const found: ReadonlyArray<TestCase> = version.value.draft
          ? yield* testCases.findNarrowed([version.value.account_id], [
            sql`evaluation_dataset_id = ${datasetId}`,
            sql`archived_at IS NULL`,
            sql.in("id", testCaseIds)
          ])
          : yield* Effect.map(
            sql<{ doc: string }>`SELECT doc FROM evaluation_test_case_versions
              WHERE evaluation_dataset_id = ${datasetId} AND num = ${num} AND ${sql.in("test_case_id", testCaseIds)}`.pipe(Effect.orDie),
            (rows) => rows.map((row) => decodeTestCase(JSON.parse(row.doc)))
          )
        return new Map(found.map((testCase) => [testCase.id, testCase]))
      })

    /**
     * The judge's answers to many results of the evaluation (a judge run's step), in one
     * transaction: as `recordJudgement` does for one (the `llm_auto` annotation results; with an
     * `update`, the result's next version, its task following), the evaluation's counts moved once.
     * Only the results of `resultIds` still waiting (`waiting`, read with the evaluation's row
     * locked) are written: a step run again writes nothing twice. Answers the ids written.
     */
    const recordJudgements = (
      evaluationId: string,
      accountId: string,
      judgements: ReadonlyArray<{
        readonly resultId: string
        readonly answers: ReadonlyArray<JudgeAnswer>
        readonly update: { readonly result?: ResultAnswers; readonly label_status?: LabelStatus }
      }>,
      waiting: (resultIds: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
    ): Effect.Effect<ReadonlyArray<string>, NotFound | Conflict> =>
      results.transaction(Effect.gen(function*() {
        const { evaluation: locked } = yield* lockOpen(evaluationId, accountId)
        const still = yield* waiting(judgements.map((judgement) => judgement.resultId))
        const open = judgements.map((judgement) => judgement.resultId).filter((id) => still.has(id))
        if (open.length === 0) return []
        const found = yield* results.findNarrowed([locked.account_id], [sql`evaluation_id = ${locked.id}`, sql.in("id", open)])
        const byId = new Map(found.map((result) => [result.id, result]))
        const written = judgements.filter((judgement) => still.has(judgement.resultId) && byId.has(judgement.resultId))
        const at = yield* nowIso
        const answers = yield* Effect.forEach(written, ({ answers, resultId }) =>
          Effect.forEach(answers, (answer) =>
            Effect.map(ids.make, (id) =>
              new StoredAnnotationResult({
                id,
                annotation_type: "llm_auto",
                question_id: answer.question_id,
                selected_choice: answer.selected_choice,
                test_case_result_lineage_id: resultId,
                llm_auto_eval_metadata: new LlmAutoEvalMetadata({
                  annotation_result_id: id,
                  prompt_tokens: answer.prompt_tokens,
                  completion_tokens: answer.completion_tokens,
                  llm_reasoning: answer.llm_reasoning,
                  time_elapsed_s: answer.time_elapsed_s,
                  cost: answer.cost ?? null
                }, true),
                created_at: at,
                account_id: locked.account_id,
                evaluation_id: locked.id,
                annotated_by_user_id: null,
                position: 0
              }, true))))
        yield* insertAnnotations(locked.id, answers.flat())
        const changed = written.flatMap(({ resultId, update }) => {
          if (update.result === undefined && update.label_status === undefined) return []
          const current = byId.get(resultId)!
          const next = new StoredTestCaseResultV4({
            ...current,
            result: update.result === undefined ? current.result : { ...current.result, ...update.result },
            ...labelled(current, update.label_status ?? current.label_status, at),
            version: current.version + 1
          }, true)
          return [{ current, next }]
        })
        yield* Effect.forEach(changed, ({ next }) => Effect.zipRight(results.update(next), tasks.followResult(next.id, next.label_status)), { discard: true })
        yield* versions.insertAll(yield* Effect.forEach(changed, ({ next }) => versionRow(next, at)))
        yield* evaluations.count(locked, countsSum(changed.map(({ current, next }) => countsChange(countsOfResult(current), countsOfResult(next)))))
        return written.map((judgement) => judgement.resultId)
      }))

    /** The annotation results of `resultIds`, by result, in the order they were written. */
    const annotationsOf = (accountId: string, resultIds: ReadonlyArray<string>) =>
      Effect.map(
        resultIds.length === 0 ? Effect.succeed([]) : annotations.findNarrowed([accountId], [sql.in("test_case_result_id", resultIds)]),
        (rows) => {
          const byResult = new Map<string, Array<StoredAnnotationResult>>()
          for (const row of byPosition(rows)) byResult.set(row.test_case_result_lineage_id, [...(byResult.get(row.test_case_result_lineage_id) ?? []), row])
          return byResult as ReadonlyMap<string, ReadonlyArray<StoredAnnotationResult>>
        }
      )

    /** Every annotation result of the evaluation (the hybrid metrics). */
    const annotationsOfEvaluation = (evaluation: StoredEvaluationV4) =>
      Effect.map(annotations.findNarrowed([evaluation.account_id], [sql`evaluation_id = ${evaluation.id}`]), byPosition)

    /** Every unarchived result of the evaluation (the metrics). */
    const allIn = (evaluation: StoredEvaluationV4) =>
      results.findNarrowed([evaluation.account_id], [sql`evaluation_id = ${evaluation.id}`, sql`archived_at IS NULL`])

    return {
      ...results,
      createResults,
      updateResult,
      ensureTasks,
      recordJudgement,
      getIn,
      pageIn,
      versionOf,
      pageOfVersion,
      annotationsOf,
      annotationsOfEvaluation,
      allIn,
      questionsOf,
      testCasesWithResults,
      testCasesAt,
      recordJudgements
    } as const
  }),
  dependencies: [
    EvaluationsV4Repo.Default,
    AnnotationTasks.Default,
    TestCasesRepo.Default,
    EvaluationDatasetsRepo.Default,
    DatasetVersionsRepo.Default
  ]
}) {}
