/**
 * v4 evaluations (docs/evaluations.md "v4 evaluations"): the evaluations, their test case results
 * with history and views, the annotation tasks people claim, and the metrics.
 *
 * Writes of results go through TestCaseResultsRepo (one transaction with the evaluation's counts);
 * the model judge and a builder's build are background work (./workflow.ts): a builder evaluation
 * is built once stored, and results written to an `llm_auto` / `llm_benchmark` evaluation are
 * handed to the judge once committed.
 */
import { SqlClient } from "@effect/sql"
import { CurrentCaller } from "@platform-kit/api"
import {
  AnnotationComponent,
  AnnotationConfig,
  type AnnotationConfigInput,
  AnnotationTaskView,
  Conflict,
  EvaluationConfigExpanded,
  EvaluationV4WithViews,
  GenericDeleteResponse,
  LlmPrompt,
  LlmPromptVariable,
  MetricComponent,
  MetricConfig,
  NotFound,
  pageOf,
  ResultTestCaseOutputView,
  TaskAssignee,
  TaskV4,
  TestCaseResultV4WithViews,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import type { MetricConfigInput } from "@platform-kit/schema"
import { DateTime, Duration, Effect, Layer, Option } from "effect"
import { Accounts } from "../auth/Accounts.js"
import { accountForWrite, accountsForRead, callerAccounts, createdBy, requireAccount } from "../auth/access.js"
import { InteractionsRepo } from "../applications/InteractionsRepo.js"
import { SpecsRepo } from "../applications/specs/SpecsRepo.js"
import { OutputsRepo } from "../applications/test-case-outputs/OutputsRepo.js"
import { DatasetVersionsRepo } from "../evaluation-datasets/DatasetVersionsRepo.js"
import { EvaluationDatasetsRepo } from "../evaluation-datasets/EvaluationDatasetsRepo.js"
import { TestCasesRepo } from "../evaluation-datasets/TestCasesRepo.js"
import type { ImplementGroup } from "../http/groups.js"
import { freshIdentity, nowIso } from "../platform/Ids.js"
import { QuestionSetsRepo } from "../question-sets/QuestionSetsRepo.js"
import { ensureReference } from "../sql/documents.js"
import { EvaluationsV4Repo, evaluationOf, needsJudge, needsPeople, StoredEvaluationV4 } from "./EvaluationsV4Repo.js"
import { metricConfigIssues } from "./customMetrics.js"
import { contributorMetricsOf, evaluationMetricsOf, hybridMetrics } from "./metrics.js"
import { AnnotationTasks, TaskClaimSeconds, type TaskRow } from "./tasks.js"
import { annotationResultOf, type StoredTestCaseResultV4, testCaseResultOf, TestCaseResultsRepo } from "./TestCaseResultsRepo.js"
import { EvaluationsV4Work } from "./workflow.js"

type EvaluationView = "ApplicationSpec" | "AsyncJobs" | "EvaluationConfig" | "EvaluationDatasets"
type ResultView = "AnnotationResults" | "CustomMetrics" | "Metrics" | "Task" | "TestCaseVersion" | "Trace"

/** The `sort_by` fields that are columns of `evaluations_v4`; the SDK's other fields are ignored. */
const sortColumns = new Set([
  "status", "application_spec_id", "application_variant_id", "evaluation_config_id", "completed_at",
  "total_test_case_result_count", "completed_test_case_result_count", "id", "created_at", "account_id",
  "created_by_user_id", "archived_at", "name", "description"
])

const missing = (field: string) =>
  new ValidationError({
    detail: [new ValidationIssue({ loc: ["body", field], msg: "Field required for a builder evaluation", type: "missing", input: null })]
  })

/**
 * An annotation config as answered. The request's variants become the one answered shape: a
 * generation template is `llm_prompt.template`; the multiturn, summarization and translation
 * variants' data locations become one row of components, labelled by what they locate.
 */
export const annotationConfigOf = (input: AnnotationConfigInput): AnnotationConfig => {
  const located: Array<[string, ReadonlyArray<string> | undefined]> = [
    ["messages", input.messages_loc],
    ["document", input.document_loc],
    ["summary", input.summary_loc],
    ["expected_summary", input.expected_summary_loc],
    ["original_text", input.original_text_loc],
    ["translation", input.translation_loc],
    ["expected_translation", input.expected_translation_loc],
    ["language", input.language_loc]
  ]
  const fromLocs = located.flatMap(([label, loc]) =>
    loc === undefined ? [] : [new AnnotationComponent({ data_loc: loc, label, optional: null }, true)])
  const type = input.annotation_config_type ??
    (input.messages_loc !== undefined
      ? "multiturn"
      : input.summary_loc !== undefined
      ? "summarization"
      : input.translation_loc !== undefined
      ? "translation"
      : input.llm_prompt_template !== undefined
      ? "generation"
      : null)
  const prompt = input.llm_prompt ??
    (input.llm_prompt_template === undefined ? undefined : { template: input.llm_prompt_template, variables: [] })
  return new AnnotationConfig({
    annotation_config_type: type,
    components: input.components !== undefined
      ? input.components.map((row) =>
        row.map((c) => new AnnotationComponent({ data_loc: c.data_loc, label: c.label ?? null, optional: c.optional ?? null }, true))
      )
      : fromLocs.length > 0
      ? [fromLocs]
      : null,
    direction: input.direction ?? null,
    llm_prompt: prompt === undefined ? null : new LlmPrompt({
      template: prompt.template,
      variables: prompt.variables.map((v) => new LlmPromptVariable({ data_loc: v.data_loc, name: v.name, optional: v.optional ?? null }, true))
    }, true)
  }, true)
}

const annotationConfigsOf = (input: Readonly<Record<string, AnnotationConfigInput>>) =>
  Object.fromEntries(Object.entries(input).map(([questionId, config]) => [questionId, annotationConfigOf(config)]))

const metricConfigOf = (input: typeof MetricConfigInput.Type) =>
  new MetricConfig({
    components: input.components.map((c) =>
      new MetricComponent({ name: c.name, type: c.type, mappings: c.mappings ?? null, params: c.params ?? null }, true)
    )
  }, true)

export const EvaluationsV4Http = (group: ImplementGroup) =>
  group("evaluationsV4", (handlers) =>
    Effect.gen(function*() {
      const evaluations = yield* EvaluationsV4Repo
      const results = yield* TestCaseResultsRepo
      const tasks = yield* AnnotationTasks
      const work = yield* EvaluationsV4Work
      const specs = yield* SpecsRepo
      const datasets = yield* EvaluationDatasetsRepo
      const testCases = yield* TestCasesRepo
      const versions = yield* DatasetVersionsRepo
      const outputs = yield* OutputsRepo
      const interactions = yield* InteractionsRepo
      const questionSets = yield* QuestionSetsRepo
      const accounts = yield* Accounts
      const sql = yield* SqlClient.SqlClient

      /** The evaluation of a path, looked for in `accountIds` (404 otherwise). */
      const evaluationIn = (id: string, accountIds: ReadonlyArray<string>) => evaluations.get(id, accountIds)
      const evaluationOfPath = (id: string) => Effect.flatMap(callerAccounts, (accountIds) => evaluationIn(id, accountIds))

      /** Each id the body names of something the kit stores must be of the evaluation's account (404 naming it). */
      const ensureReferences = (accountId: string, refs: {
        readonly application_spec_id?: string | undefined
        readonly application_variant_id?: string | undefined
        readonly evaluation_dataset_id?: string | undefined
        readonly evaluation_config_id?: string | undefined
      }) =>
        Effect.forEach(
          [
            ["application_specs", refs.application_spec_id, "Application spec"],
            ["application_variants", refs.application_variant_id, "Application variant"],
            ["evaluation_datasets", refs.evaluation_dataset_id, "Evaluation dataset"],
            ["evaluation_configs", refs.evaluation_config_id, "Evaluation config"]
          ] as const,
          ([table, id, label]) => id === undefined ? Effect.void : ensureReference({ table, id, accountIds: [accountId], label }),
          { discard: true }
        )

      /** The evaluation with the fields of `views`. */
      const withViews = (stored: StoredEvaluationV4, views: ReadonlyArray<EvaluationView>) =>
        Effect.gen(function*() {
          const fields: Record<string, unknown> = {}
          if (views.includes("ApplicationSpec")) {
            fields.application_spec = Option.getOrNull(yield* specs.findById(stored.application_spec_id, [stored.account_id]))
          }
          if (views.includes("AsyncJobs")) fields.async_jobs = yield* work.asyncJobs(stored.id, stored.account_id)
          if (views.includes("EvaluationConfig")) {
            const config = yield* evaluations.configOf(stored)
            const set = Option.isNone(config)
              ? Option.none()
              : yield* Effect.option(questionSets.withQuestions(config.value.question_set_id, [stored.account_id]))
            fields.evaluation_config_expanded = Option.isSome(config) && Option.isSome(set)
              ? new EvaluationConfigExpanded({
                id: config.value.id,
                account_id: config.value.account_id,
                created_at: config.value.created_at,
                created_by_user_id: config.value.created_by_user_id,
                evaluation_type: stored.evaluation_type ?? config.value.evaluation_type,
                question_set_id: config.value.question_set_id,
                question_set: set.value,
                auto_evaluation_model: config.value.auto_evaluation_model,
                auto_evaluation_parameters: config.value.auto_evaluation_parameters === null
                  ? null
                  : { ...config.value.auto_evaluation_parameters },
                studio_project_id: config.value.studio_project_id
              }, true)
              : null
          }
          if (views.includes("EvaluationDatasets")) {
            const ids = stored.evaluation_dataset_id !== null
              ? [stored.evaluation_dataset_id]
              : [...new Set((yield* results.allIn(stored)).map((result) => result.evaluation_dataset_id))]
            fields.evaluation_datasets = (yield* Effect.forEach(ids, (id) => datasets.findById(id, [stored.account_id])))
              .flatMap((found) => Option.isSome(found) ? [found.value] : [])
          }
          return new EvaluationV4WithViews({ ...evaluationOf(stored), ...fields }, true)
        })

      /** The user a task is assigned to, as the result's `Task` view answers it. */
      const assigneeOf = (userId: string) =>
        Effect.map(accounts.findIdentity(userId), (identity) =>
          new TaskAssignee({
            id: userId,
            email: Option.match(identity, { onNone: () => "", onSome: (found) => found.email ?? "" }),
            first_name: null,
            last_name: null,
            preferences: null
          }, true))

      const taskFields = (row: TaskRow) => ({
        id: row.id,
        account_id: row.account_id,
        priority: row.priority,
        status: row.status,
        task_type: "EVALUATION_ANNOTATION" as const,
        task_entity_id: row.test_case_result_id,
        task_entity_parent_id: row.evaluation_id,
        assignment_expires_at: row.assignment_expires_at
      })

      /** A task as claim and reassign answer it: `assigned_to` the user id, `task_entity` its result. */
      const taskOf = (stored: Pick<StoredEvaluationV4, "id" | "account_id">, row: TaskRow) =>
        Effect.map(Effect.option(results.getIn(stored, row.test_case_result_id)), (result) =>
          new TaskV4({
            ...taskFields(row),
            assigned_to: row.assigned_to,
            task_entity: Option.getOrNull(Option.map(result, testCaseResultOf))
          }, true))

      /** The test case as the result's dataset version holds it, else as it is now (`null` when gone). */
      const testCaseVersionOf = (result: StoredTestCaseResultV4) =>
        Effect.gen(function*() {
          const num = Number(result.evaluation_dataset_version_num)
          const atVersion = yield* versions.testCaseAt(result.evaluation_dataset_id, num, result.test_case_id)
          if (Option.isSome(atVersion)) return atVersion.value
          return Option.getOrNull(yield* testCases.findById(result.test_case_id, [result.account_id]))
        })

      /** The application output the result was made from, with its interaction and spans (`null` when none). */
      const traceOf = (result: StoredTestCaseResultV4) =>
        Effect.gen(function*() {
          if (result.application_test_case_output_id === null) return null
          const found = yield* outputs.findById(result.application_test_case_output_id, [result.account_id])
          if (Option.isNone(found)) return null
          const output = found.value
          const interaction = output.application_interaction_id === null
            ? Option.none()
            : yield* interactions.findById(output.application_interaction_id, [output.account_id])
          return new ResultTestCaseOutputView({
            id: output.id,
            account_id: output.account_id,
            application_variant_id: output.application_variant_id,
            evaluation_dataset_id: output.evaluation_dataset_id,
            test_case_id: output.test_case_id,
            schema_type: output.schema_type,
            output: output.output,
            application_interaction_id: output.application_interaction_id,
            application_test_case_output_group_id: output.application_test_case_output_group_id,
            created_at: output.created_at,
            interaction: Option.getOrNull(interaction),
            trace_spans: output.trace_spans
          }, true)
        })

      /** Results with the fields of `views` (the annotation results and tasks read once for all). */
      const resultsWithViews = (stored: StoredEvaluationV4, items: ReadonlyArray<StoredTestCaseResultV4>, views: ReadonlyArray<ResultView>) =>
        Effect.gen(function*() {
          const ids = items.map((item) => item.id)
          const annotations = views.includes("AnnotationResults") ? yield* results.annotationsOf(stored.account_id, ids) : new Map()
          const taskRows = views.includes("Task") ? yield* tasks.ofResults(ids) : new Map<string, TaskRow>()
          return yield* Effect.forEach(items, (item) =>
            Effect.gen(function*() {
              const fields: Record<string, unknown> = {}
              if (views.includes("AnnotationResults")) fields.annotation_results = (annotations.get(item.id) ?? []).map(annotationResultOf)
              if (views.includes("CustomMetrics")) fields.custom_metrics = item.custom_metrics
              if (views.includes("Metrics")) {
                const output = item.application_test_case_output_id === null
                  ? Option.none()
                  : yield* outputs.findById(item.application_test_case_output_id, [item.account_id])
                fields.metrics = Option.match(output, { onNone: () => null, onSome: (found) => found.metrics })
              }
              if (views.includes("Task")) {
                const row = taskRows.get(item.id)
                fields.task = row === undefined ? null : new AnnotationTaskView({
                  ...taskFields(row),
                  assigned_to: row.assigned_to === null ? null : yield* assigneeOf(row.assigned_to)
                }, true)
              }
              if (views.includes("TestCaseVersion")) fields.test_case_version = yield* testCaseVersionOf(item)
              if (views.includes("Trace")) fields.application_test_case_output = yield* traceOf(item)
              return new TestCaseResultV4WithViews({ ...testCaseResultOf(item), ...fields }, true)
            }))
        })

      /** A body's `account_id`, when given, must be one of the caller's accounts (403). */
      const checkAccounts = (items: ReadonlyArray<{ readonly account_id?: string | undefined }>) =>
        Effect.forEach(items, (item) => item.account_id === undefined ? Effect.void : requireAccount(item.account_id), { discard: true })

      /** Hands results just written to the judge, when the model judges the evaluation. */
      const judgeIfJudged = (stored: StoredEvaluationV4, resultIds: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const { evaluationType } = yield* evaluations.withConfig(stored.id, [stored.account_id])
          if (needsJudge(evaluationType)) yield* work.judge(stored.id, resultIds)
        }).pipe(Effect.orDie)

      /** How long a claim holds a task, from now. */
      const claimUntil = Effect.gen(function*() {
        const seconds = yield* Effect.orDie(TaskClaimSeconds)
        const now = yield* DateTime.now
        return { now: DateTime.formatIso(now), expiresAt: DateTime.formatIso(DateTime.addDuration(now, Duration.seconds(seconds))) }
      })

      return handlers
        .handle("create", ({ payload }) =>
          Effect.gen(function*() {
            const account_id = yield* accountForWrite(payload.account_id)
            const builder = payload.type === "builder"
            if (builder && payload.application_variant_id === undefined) return yield* Effect.fail(missing("application_variant_id"))
            if (builder && payload.evaluation_dataset_id === undefined) return yield* Effect.fail(missing("evaluation_dataset_id"))
            const metricIssues = payload.metric_config === undefined ? [] : metricConfigIssues(payload.metric_config)
            if (metricIssues.length > 0) return yield* Effect.fail(new ValidationError({ detail: metricIssues }))
            yield* ensureReferences(account_id, {
              application_spec_id: payload.application_spec_id,
              application_variant_id: payload.application_variant_id,
              evaluation_dataset_id: builder ? payload.evaluation_dataset_id : undefined,
              evaluation_config_id: payload.evaluation_config_id
            })
            const [id, created_at] = yield* freshIdentity
            const stored = yield* evaluations.insert(
              new StoredEvaluationV4({
                id,
                account_id,
                application_spec_id: payload.application_spec_id,
                application_variant_id: payload.application_variant_id ?? null,
                name: payload.name,
                description: payload.description,
                status: "PENDING",
                total_test_case_result_count: 0,
                completed_test_case_result_count: 0,
                failed_test_case_result_count: 0,
                completed_at: null,
                annotation_config: payload.annotation_config === undefined ? null : annotationConfigOf(payload.annotation_config),
                question_id_to_annotation_config: payload.question_id_to_annotation_config === undefined
                  ? null
                  : annotationConfigsOf(payload.question_id_to_annotation_config),
                evaluation_config: payload.evaluation_config ?? null,
                evaluation_config_id: payload.evaluation_config_id ?? null,
                metric_config: payload.metric_config === undefined ? null : metricConfigOf(payload.metric_config),
                tags: payload.tags ?? null,
                ...(yield* createdBy),
                created_at,
                archived_at: null,
                type: builder ? "builder" : "default",
                evaluation_dataset_id: builder ? payload.evaluation_dataset_id ?? null : null,
                evaluation_dataset_version: builder ? payload.evaluation_dataset_version ?? null : null,
                application_test_case_output_group_id: builder ? payload.application_test_case_output_group_id ?? null : null,
                evaluation_type: null
              }, true)
            )
            if (builder) yield* work.build(stored.id)
            return evaluationOf(stored)
          }))
        .handle("get", ({ path, urlParams }) =>
          Effect.flatMap(evaluationOfPath(path.evaluation_v4_id), (stored) => withViews(stored, urlParams.view ?? [])))
        .handle("update", ({ path, payload }) =>
          Effect.gen(function*() {
            const { restore, ...changes } = payload
            const given = Object.entries(changes).filter(([, value]) => value !== undefined).map(([field]) => field)
            if (restore === true && given.length > 0) {
              return yield* Effect.fail(
                new ValidationError({
                  detail: given.map((field) =>
                    new ValidationIssue({ loc: ["body", field], msg: "A restore takes no other field", type: "extra_forbidden", input: (changes as any)[field] })
                  )
                })
              )
            }
            const accountIds = yield* callerAccounts
            const updated = yield* evaluations.transaction(Effect.gen(function*() {
              const current = yield* evaluationIn(path.evaluation_v4_id, accountIds)
              if (restore === true) {
                return current.archived_at === null ? current : yield* evaluations.update(new StoredEvaluationV4({ ...current, archived_at: null }, true))
              }
              if (current.archived_at !== null) {
                return yield* Effect.fail(new Conflict({ detail: `Evaluation ${current.id} is archived: restore it first` }))
              }
              yield* ensureReferences(current.account_id, changes)
              const next = new StoredEvaluationV4({
                ...current,
                application_spec_id: changes.application_spec_id ?? current.application_spec_id,
                application_variant_id: changes.application_variant_id ?? current.application_variant_id,
                name: changes.name ?? current.name,
                description: changes.description ?? current.description,
                annotation_config: changes.annotation_config === undefined ? current.annotation_config : annotationConfigOf(changes.annotation_config),
                question_id_to_annotation_config: changes.question_id_to_annotation_config === undefined
                  ? current.question_id_to_annotation_config
                  : annotationConfigsOf(changes.question_id_to_annotation_config),
                evaluation_config: changes.evaluation_config ?? current.evaluation_config,
                evaluation_config_id: changes.evaluation_config_id ?? current.evaluation_config_id,
                tags: changes.tags ?? current.tags
              }, true)
              const config = yield* evaluations.configOf(next)
              if (changes.evaluation_type === "llm_benchmark" && next.evaluation_type === null) {
                // a studio evaluation cannot be made hybrid; a hybrid one stays as it is (no-op)
                if (Option.isSome(config) && (config.value.evaluation_type as string) === "studio") {
                  return yield* Effect.fail(new Conflict({ detail: "A studio evaluation cannot be made an llm_benchmark (hybrid) evaluation" }))
                }
                if (!(Option.isSome(config) && (config.value.evaluation_type as string) === "llm_benchmark")) {
                  return yield* evaluations.update(new StoredEvaluationV4({ ...next, evaluation_type: "llm_benchmark" }, true))
                }
              }
              return yield* evaluations.update(next)
            }))
            // the results already there get the tasks and the judge a new type asks for
            const { evaluationType } = yield* evaluations.withConfig(updated.id, [updated.account_id])
            if (needsPeople(updated, evaluationType)) yield* results.ensureTasks(updated)
            if (needsJudge(evaluationType)) {
              const ids = (yield* results.allIn(updated)).map((result) => result.id)
              yield* work.judge(updated.id, ids)
            }
            return evaluationOf(updated)
          }))
        .handle("list", ({ urlParams }) =>
          Effect.gen(function*() {
            const accountIds = yield* accountsForRead(urlParams.account_id)
            const sorts = (urlParams.sort_by ?? []).flatMap((key) => {
              const [field, direction] = key.split(":") as [string, string]
              return sortColumns.has(field) ? [`${field} ${direction === "asc" ? "ASC" : "DESC"}`] : []
            })
            const page = yield* evaluations.page({
              accountIds,
              ...pageOf(urlParams),
              where: [
                ...evaluations.unlessArchived(urlParams.include_archived),
                ...(urlParams.application_spec_id === undefined ? [] : [sql`application_spec_id = ${urlParams.application_spec_id}`])
              ],
              orderBy: sql.literal([...sorts, "created_at DESC", "id DESC"].join(", "))
            })
            const items = yield* Effect.forEach(page.items, (item) => withViews(item, urlParams.view ?? []))
            return { ...page, items }
          }))
        .handle("delete", ({ path }) =>
          Effect.gen(function*() {
            const accountIds = yield* callerAccounts
            return yield* evaluations.transaction(Effect.gen(function*() {
              const current = yield* evaluationIn(path.evaluation_v4_id, accountIds)
              if (current.archived_at !== null) return new GenericDeleteResponse({ count: 0, success: true })
              yield* evaluations.update(new StoredEvaluationV4({ ...current, archived_at: yield* nowIso }, true))
              return new GenericDeleteResponse({ count: 1, success: true })
            }))
          }))
        .handle("claimTask", ({ path, payload }) =>
          Effect.gen(function*() {
            const accountIds = yield* callerAccounts
            // what the claim needs of the evaluation and its config, without decoding either
            const found = yield* tasks.annotatedEvaluation(path.evaluation_v4_id, accountIds)
            if (Option.isNone(found)) return yield* Effect.fail(new NotFound({ detail: `Evaluation ${path.evaluation_v4_id} not found` }))
            const evaluation = found.value
            if (!evaluation.people) return null
            const caller = yield* CurrentCaller
            const { expiresAt, now } = yield* claimUntil
            const claimed = yield* tasks.claim({
              evaluationId: evaluation.id,
              userId: caller.identityId,
              skipCurrent: payload.skip_current ?? false,
              now,
              expiresAt
            })
            return Option.isNone(claimed) ? null : yield* taskOf(evaluation, claimed.value)
          }))
        .handle("updateTask", ({ path, payload }) =>
          Effect.gen(function*() {
            const evaluation = yield* evaluationOfPath(path.evaluation_v4_id)
            const userId = payload.assigned_to
            if (userId !== undefined && (yield* accounts.membershipsOf(userId, [evaluation.account_id])).length === 0) {
              return yield* Effect.fail(new NotFound({ detail: `User ${userId} not found` }))
            }
            const { expiresAt } = yield* claimUntil
            const assigned = yield* tasks.assign(evaluation.id, path.evaluation_task_id, userId ?? null, userId === undefined ? null : expiresAt)
            // an id that is not one of the evaluation's tasks is a 404, as every id in a path
            if (Option.isNone(assigned)) return yield* Effect.fail(new NotFound({ detail: `Task ${path.evaluation_task_id} not found` }))
            return yield* taskOf(evaluation, assigned.value)
          }))
        .handle("evaluationMetrics", ({ path }) =>
          Effect.flatMap(evaluationOfPath(path.evaluation_v4_id), (stored) =>
            Effect.map(results.allIn(stored), (all) => evaluationMetricsOf(stored, all))))
        .handle("listContributorMetrics", ({ path, urlParams }) =>
          Effect.gen(function*() {
            const stored = yield* Effect.flatMap(accountsForRead(urlParams.account_id), (ids) => evaluationIn(path.evaluation_v4_id, ids))
            const all = contributorMetricsOf(stored, yield* results.allIn(stored))
            const { limit, page } = pageOf(urlParams)
            const from = Math.min((page - 1) * limit, all.length)
            return { items: all.slice(from, from + limit), total_item_count: all.length, current_page: page, items_per_page: limit }
          }))
        .handle("getContributorMetrics", ({ path }) =>
          Effect.flatMap(evaluationOfPath(path.evaluation_v4_id), (stored) =>
            Effect.map(results.allIn(stored), (all) =>
              contributorMetricsOf(stored, all).find((item) => item.annotated_by_user_id === path.contributor_id) ?? null)))
        .handle("hybridMetrics", ({ path }) =>
          Effect.gen(function*() {
            const stored = yield* evaluationOfPath(path.evaluation_v4_id)
            const config = yield* evaluations.configOf(stored)
            return yield* hybridMetrics(stored, Option.getOrNull(Option.map(config, (found) => found.question_set_id)))
          }))
        .handle("createResult", ({ path, payload }) =>
          Effect.gen(function*() {
            yield* checkAccounts([payload])
            const stored = yield* evaluationOfPath(path.evaluation_v4_id)
            const caller = yield* CurrentCaller
            const [created] = yield* results.createResults(stored, [payload], caller.identityId)
            yield* judgeIfJudged(stored, [created!.id])
            return created!
          }))
        .handle("batchResults", ({ path, payload }) =>
          Effect.gen(function*() {
            yield* checkAccounts(payload)
            const stored = yield* evaluationOfPath(path.evaluation_v4_id)
            const caller = yield* CurrentCaller
            const created = yield* results.createResults(stored, payload, caller.identityId, (index) => ["body", index])
            yield* judgeIfJudged(stored, created.map((result) => result.id))
            return created
          }))
        .handle("getResult", ({ path, urlParams }) =>
          Effect.gen(function*() {
            const stored = yield* evaluationOfPath(path.evaluation_v4_id)
            const result = yield* results.getIn(stored, path.test_case_result_id)
            const [answered] = yield* resultsWithViews(stored, [result], urlParams.view ?? [])
            return answered!
          }))
        .handle("updateResult", ({ path, payload }) =>
          Effect.gen(function*() {
            yield* checkAccounts([payload])
            const caller = yield* CurrentCaller
            // the evaluation is read (and locked) once, inside the update's transaction
            const accountIds = yield* callerAccounts
            return yield* results.updateResult({ id: path.evaluation_v4_id, accountIds }, path.test_case_result_id, payload, caller.identityId)
          }))
        .handle("listResults", ({ path, urlParams }) =>
          Effect.gen(function*() {
            const stored = yield* Effect.flatMap(accountsForRead(urlParams.account_id), (ids) => evaluationIn(path.evaluation_v4_id, ids))
            const page = yield* results.pageIn(stored, pageOf(urlParams), urlParams.include_archived ?? false)
            return { ...page, items: yield* resultsWithViews(stored, page.items, urlParams.view ?? []) }
          }))
        .handle("getResultVersion", ({ path }) =>
          Effect.flatMap(evaluationOfPath(path.evaluation_v4_id), (stored) =>
            results.versionOf(stored, path.test_case_result_id, path.num)))
        .handle("listResultVersions", ({ path, urlParams }) =>
          Effect.gen(function*() {
            const stored = yield* Effect.flatMap(accountsForRead(urlParams.account_id), (ids) => evaluationIn(path.evaluation_v4_id, ids))
            return yield* results.pageOfVersion(stored, path.num, pageOf(urlParams))
          }))
    })
  ).pipe(
    Layer.provide([
      TestCaseResultsRepo.Default,
      EvaluationsV4Repo.Default,
      AnnotationTasks.Default,
      EvaluationsV4Work.Default,
      SpecsRepo.Default,
      EvaluationDatasetsRepo.Default,
      TestCasesRepo.Default,
      DatasetVersionsRepo.Default,
      OutputsRepo.Default,
      InteractionsRepo.Default,
      QuestionSetsRepo.Default
    ])
  )
