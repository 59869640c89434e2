/**
 * v4 evaluations (docs/evaluations.md "v4 evaluations"): an evaluation of an application spec, its
 * test case results (the outputs being judged, and the answers to its questions), the annotation
 * tasks people claim, and the metrics computed from the stored results. The v5 evaluations
 * (./evaluations.ts) are another flow.
 *
 * Every response field is present (`null` when it has no value); a field a view adds is present
 * only with that view. The test case result's `test_case_evaluation_data_schema` (GENERATION or
 * FLEXIBLE) is always sent: it is the union's tag.
 */
import { Schema } from "effect"
import { ApplicationInteraction } from "./applications.js"
import { ApplicationSpec } from "./application-specs.js"
import { EvaluationTraceSpan, TestCaseOutputResult, TestCaseOutputResultInput, TestCaseOutputSchemaType } from "./application-reports.js"
import {
  DateTimeString,
  Id,
  IdentityType,
  JsonObject,
  NonEmptyString,
  Nullable,
  OnlyWithView,
  Optional,
  QueryArray,
  QueryBoolean,
  SortKeys,
  V4PageQuery
} from "./common.js"
import { EvaluationDataset, TestCase } from "./evaluation-datasets.js"
import { QuestionSetWithQuestions } from "./question-sets.js"

// ---------------------------------------------------------------------------------------------
// Annotation and metric configs (as given, every field present in the answer)

const DataLoc = Schema.Array(Schema.String)

export class AnnotationComponent extends Schema.Class<AnnotationComponent>("AnnotationComponent")({
  data_loc: DataLoc,
  label: Nullable(Schema.String),
  optional: Nullable(Schema.Boolean)
}) {}

export class LlmPromptVariable extends Schema.Class<LlmPromptVariable>("LlmPromptVariable")({
  data_loc: DataLoc,
  name: Schema.String,
  optional: Nullable(Schema.Boolean)
}) {}

export class LlmPrompt extends Schema.Class<LlmPrompt>("LlmPrompt")({
  template: Schema.String,
  variables: Schema.Array(LlmPromptVariable)
}) {}

export const AnnotationConfigType = Schema.Literal("generation", "flexible", "summarization", "multiturn", "translation")
  .annotations({ identifier: "AnnotationConfigType" })

/** An annotation config as answered (`AnnotationConfig`): every request variant comes back as this shape. */
export class AnnotationConfig extends Schema.Class<AnnotationConfig>("AnnotationConfig")({
  annotation_config_type: Nullable(AnnotationConfigType),
  components: Nullable(Schema.Array(Schema.Array(AnnotationComponent))),
  direction: Nullable(Schema.Literal("col", "row")),
  llm_prompt: Nullable(LlmPrompt)
}) {}

const ComponentInput = Schema.Struct({ data_loc: DataLoc, label: Optional(Schema.String), optional: Optional(Schema.Boolean) })
const LlmPromptInput = Schema.Struct({
  template: Schema.String,
  variables: Schema.Array(Schema.Struct({ data_loc: DataLoc, name: Schema.String, optional: Optional(Schema.Boolean) }))
})

/**
 * An annotation config in a body: the request variants of the SDK (components and a layout, a
 * generation prompt template, multiturn, summarization, translation) are one open shape here, so
 * every problem is reported at its own field; what is kept is the answered shape's fields
 * (`llm_prompt_template` becomes `llm_prompt.template`).
 */
export const AnnotationConfigInput = Schema.Struct({
  annotation_config_type: Optional(AnnotationConfigType),
  components: Optional(Schema.Array(Schema.Array(ComponentInput))),
  direction: Optional(Schema.Literal("col", "row")),
  llm_prompt: Optional(LlmPromptInput),
  llm_prompt_template: Optional(Schema.String),
  messages_loc: Optional(DataLoc),
  document_loc: Optional(DataLoc),
  summary_loc: Optional(DataLoc),
  expected_summary_loc: Optional(DataLoc),
  original_text_loc: Optional(DataLoc),
  translation_loc: Optional(DataLoc),
  expected_translation_loc: Optional(DataLoc),
  language_loc: Optional(DataLoc)
}).annotations({ identifier: "AnnotationConfigInput" })
export type AnnotationConfigInput = typeof AnnotationConfigInput.Type

export const MetricComponentType = Schema.Literal("rouge", "bleu", "meteor", "cosine_similarity")
  .annotations({ identifier: "MetricComponentType" })

export class MetricComponent extends Schema.Class<MetricComponent>("MetricComponent")({
  name: Schema.String,
  type: MetricComponentType,
  mappings: Nullable(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) })),
  params: Nullable(JsonObject)
}) {}

export class MetricConfig extends Schema.Class<MetricConfig>("MetricConfig")({
  components: Schema.Array(MetricComponent)
}) {}

export const MetricConfigInput = Schema.Struct({
  components: Schema.Array(Schema.Struct({
    name: Schema.String,
    type: MetricComponentType,
    mappings: Optional(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) })),
    params: Optional(JsonObject)
  }))
}).annotations({ identifier: "MetricConfigInput" })

// ---------------------------------------------------------------------------------------------
// Evaluation

export const EvaluationV4Status = Schema.Literal("PENDING", "COMPLETED", "FAILED").annotations({ identifier: "EvaluationV4Status" })
export type EvaluationV4Status = typeof EvaluationV4Status.Type

/** The evaluation types of an evaluation config (and `llm_benchmark`, which an update turns an evaluation into). */
export const EvaluationV4Type = Schema.Literal("studio", "llm_auto", "human", "llm_benchmark").annotations({
  identifier: "EvaluationV4Type"
})

const EvaluationV4Fields = {
  id: Id,
  account_id: Id,
  application_spec_id: Id,
  application_variant_id: Nullable(Id),
  name: Schema.String,
  description: Schema.String,
  status: EvaluationV4Status,
  total_test_case_result_count: Schema.Int,
  completed_test_case_result_count: Schema.Int,
  completed_at: Nullable(DateTimeString),
  annotation_config: Nullable(AnnotationConfig),
  question_id_to_annotation_config: Nullable(Schema.Record({ key: Schema.String, value: AnnotationConfig })),
  evaluation_config: Nullable(JsonObject),
  evaluation_config_id: Nullable(Id),
  metric_config: Nullable(MetricConfig),
  tags: Nullable(JsonObject),
  created_by_user_id: Id,
  created_by_identity_type: IdentityType,
  created_at: DateTimeString,
  archived_at: Nullable(DateTimeString)
} as const

/** A v4 evaluation (`Evaluation`): what create and update answer. */
export class EvaluationV4 extends Schema.Class<EvaluationV4>("EvaluationV4")(EvaluationV4Fields) {}

/** An async job of an evaluation (view `AsyncJobs`): a builder evaluation's build. */
export class EvaluationAsyncJob extends Schema.Class<EvaluationAsyncJob>("EvaluationAsyncJob")({
  id: Id,
  created_at: DateTimeString,
  updated_at: DateTimeString,
  status: Schema.String,
  job_type: Nullable(Schema.String),
  job_metadata: Nullable(JsonObject),
  parent_job_id: Nullable(Id),
  progress: Nullable(JsonObject)
}) {}

/** The evaluation's config with its question set and its questions (view `EvaluationConfig`). */
export class EvaluationConfigExpanded extends Schema.Class<EvaluationConfigExpanded>("EvaluationConfigExpanded")({
  id: Id,
  account_id: Id,
  created_at: DateTimeString,
  created_by_user_id: Id,
  evaluation_type: Schema.String,
  question_set_id: Id,
  question_set: QuestionSetWithQuestions,
  auto_evaluation_model: Nullable(Schema.String),
  auto_evaluation_parameters: Nullable(Schema.Struct({ batch_size: Nullable(Schema.Int), temperature: Nullable(Schema.Number) })),
  studio_project_id: Nullable(Id)
}) {}

/** A v4 evaluation with the fields its views add (retrieve, list). */
export class EvaluationV4WithViews extends Schema.Class<EvaluationV4WithViews>("EvaluationV4WithViews")({
  ...EvaluationV4Fields,
  /** view `ApplicationSpec` */
  application_spec: OnlyWithView(Nullable(ApplicationSpec)),
  /** view `AsyncJobs`: a builder evaluation's build; none for a default one */
  async_jobs: OnlyWithView(Schema.Array(EvaluationAsyncJob)),
  /** view `EvaluationConfig`: `null` without a config, or when its question set is not stored */
  evaluation_config_expanded: OnlyWithView(Nullable(EvaluationConfigExpanded)),
  /** view `EvaluationDatasets`: the builder's dataset, or the datasets of the results' test cases */
  evaluation_datasets: OnlyWithView(Schema.Array(EvaluationDataset))
}) {}

export const EvaluationV4View = Schema.Literal("ApplicationSpec", "AsyncJobs", "EvaluationConfig", "EvaluationDatasets")
  .annotations({ identifier: "EvaluationV4View" })
const EvaluationV4Views = Schema.optionalWith(QueryArray(EvaluationV4View), { exact: true })

export const GetEvaluationV4Query = Schema.Struct({ view: EvaluationV4Views })

/** The `sort_by` fields the SDK lists; those that are not columns of the table are accepted and ignored. */
export const EvaluationV4SortFields = [
  "status", "application_spec_id", "application_spec", "application_variant_id", "application_variant",
  "evaluation_config_id", "completed_at", "total_test_case_result_count", "completed_test_case_result_count",
  "annotation_config", "question_id_to_annotation_config", "metric_config", "evaluation_config_expanded",
  "test_case_results", "async_jobs", "evaluation_datasets", "id", "created_at", "account_id", "created_by_user_id",
  "archived_at", "created_by_user", "name", "description", "tags", "evaluation_config"
] as const
export const EvaluationV4SortKey = SortKeys(EvaluationV4SortFields, "EvaluationV4SortKey")

export const ListEvaluationsV4Query = Schema.Struct({
  ...V4PageQuery,
  application_spec_id: Schema.optionalWith(Id, { exact: true }),
  include_archived: Schema.optionalWith(QueryBoolean, { exact: true }),
  view: EvaluationV4Views,
  sort_by: Schema.optionalWith(QueryArray(EvaluationV4SortKey), { exact: true })
})

const EvaluationV4CommonInput = {
  account_id: Id,
  application_spec_id: Id,
  description: Schema.String,
  name: NonEmptyString,
  annotation_config: Optional(AnnotationConfigInput),
  question_id_to_annotation_config: Optional(Schema.Record({ key: Schema.String, value: AnnotationConfigInput })),
  evaluation_config_id: Optional(Id),
  evaluation_config: Optional(JsonObject),
  metric_config: Optional(MetricConfigInput),
  tags: Optional(JsonObject)
} as const

/**
 * The create body: one shape for both variants. `type: "builder"` (the server builds the test
 * case results) needs `application_variant_id` and `evaluation_dataset_id` (422 at the missing
 * one, checked by the server); `default` (or no `type`) takes neither dataset field.
 */
export const CreateEvaluationV4 = Schema.Struct({
  ...EvaluationV4CommonInput,
  type: Optional(Schema.Literal("builder", "default")),
  application_variant_id: Optional(Id),
  evaluation_dataset_id: Optional(Id),
  evaluation_dataset_version: Optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
  application_test_case_output_group_id: Optional(Id)
}).annotations({ identifier: "CreateEvaluationV4" })
export type CreateEvaluationV4 = typeof CreateEvaluationV4.Type

/**
 * The update body: a partial update (a field left out or `null` keeps its value) or exactly
 * `{restore: true}`, which un-archives the evaluation (other fields sent with it are a 422).
 */
export const UpdateEvaluationV4 = Schema.Struct({
  annotation_config: Optional(AnnotationConfigInput),
  application_spec_id: Optional(Id),
  application_variant_id: Optional(Id),
  description: Optional(Schema.String),
  evaluation_config: Optional(JsonObject),
  evaluation_config_id: Optional(Id),
  evaluation_type: Optional(Schema.Literal("llm_benchmark")),
  name: Optional(NonEmptyString),
  question_id_to_annotation_config: Optional(Schema.Record({ key: Schema.String, value: AnnotationConfigInput })),
  tags: Optional(JsonObject),
  restore: Optional(Schema.Boolean)
}).annotations({ identifier: "UpdateEvaluationV4" })
export type UpdateEvaluationV4 = typeof UpdateEvaluationV4.Type

// ---------------------------------------------------------------------------------------------
// Tasks

export const EvaluationTaskStatus = Schema.Literal("PENDING", "COMPLETED").annotations({ identifier: "EvaluationTaskStatus" })

const TaskFields = {
  id: Id,
  account_id: Id,
  priority: Schema.Int,
  status: EvaluationTaskStatus,
  task_type: Schema.Literal("EVALUATION_ANNOTATION"),
  /** the test case result to annotate */
  task_entity_id: Id,
  /** its evaluation */
  task_entity_parent_id: Id,
  assignment_expires_at: Nullable(DateTimeString)
} as const

/** The user a task is assigned to, in the `Task` view of a result. */
export class TaskAssignee extends Schema.Class<TaskAssignee>("TaskAssignee")({
  id: Id,
  email: Schema.String,
  first_name: Nullable(Schema.String),
  last_name: Nullable(Schema.String),
  preferences: Nullable(JsonObject)
}) {}

/** The result view of a task: `assigned_to` is the user (`null` when unassigned). */
export class AnnotationTaskView extends Schema.Class<AnnotationTaskView>("AnnotationTaskView")({
  ...TaskFields,
  assigned_to: Nullable(TaskAssignee)
}) {}

export const ClaimTaskBody = Schema.Struct({ skip_current: Optional(Schema.Boolean) }).annotations({ identifier: "ClaimTaskBody" })
export const UpdateAnnotationTask = Schema.Struct({ assigned_to: Optional(Id) }).annotations({ identifier: "UpdateAnnotationTask" })

// ---------------------------------------------------------------------------------------------
// Test case results

export const LabelStatus = Schema.Literal("PENDING", "COMPLETED", "FAILED").annotations({ identifier: "LabelStatus" })
export type LabelStatus = typeof LabelStatus.Type
export const AuditStatus = Schema.Literal("UNAUDITED", "FIXED", "APPROVED").annotations({ identifier: "AuditStatus" })

const AnswerValue = Schema.Union(Schema.String, Schema.Boolean, Schema.Number)
/** The answers of a result, keyed by question id. */
export const ResultAnswers = Schema.Record({ key: Schema.String, value: Schema.Union(AnswerValue, Schema.Array(AnswerValue)) })
  .annotations({ identifier: "ResultAnswers" })
export type ResultAnswers = typeof ResultAnswers.Type

const TestCaseResultFields = {
  id: Id,
  account_id: Id,
  evaluation_id: Id,
  evaluation_dataset_id: Id,
  evaluation_dataset_version_num: Schema.String,
  application_spec_id: Id,
  test_case_id: Id,
  test_case_evaluation_data_schema: TestCaseOutputSchemaType,
  test_case_evaluation_data: TestCaseOutputResult,
  label_status: LabelStatus,
  result: Nullable(ResultAnswers),
  annotated_by_user_id: Nullable(Id),
  application_test_case_output_id: Nullable(Id),
  audit_comment: Nullable(Schema.String),
  audit_required: Nullable(Schema.Boolean),
  audit_status: Nullable(AuditStatus),
  time_spent_labeling_s: Nullable(Schema.Int),
  completed_at: Nullable(DateTimeString),
  archived_at: Nullable(DateTimeString),
  created_by_user_id: Id,
  created_at: DateTimeString
} as const

/** A test case result (`TestCaseResult`): what create, update, batch and history answer. */
export class TestCaseResultV4 extends Schema.Class<TestCaseResultV4>("TestCaseResultV4")(TestCaseResultFields) {}

export class TaskV4 extends Schema.Class<TaskV4>("TaskV4")({
  ...TaskFields,
  /** the user id the task is assigned to */
  assigned_to: Nullable(Id),
  /** the test case result the task is for */
  task_entity: Nullable(TestCaseResultV4)
}) {}

/** `llm_auto` answers: what the judge spent on them. */
export class LlmAutoEvalMetadata extends Schema.Class<LlmAutoEvalMetadata>("LlmAutoEvalMetadata")({
  annotation_result_id: Id,
  completion_tokens: Schema.Int,
  prompt_tokens: Schema.Int,
  llm_reasoning: Schema.String,
  time_elapsed_s: Schema.Int,
  cost: Nullable(Schema.Int)
}) {}

export class SelectedChoice extends Schema.Class<SelectedChoice>("SelectedChoice")({
  label: Schema.String,
  value: AnswerValue,
  audit_required: Nullable(Schema.Boolean)
}) {}

/** A categorical choice, several (multi-select), text (free text) or a number (number, rating). */
export const SelectedChoiceValue = Schema.Union(SelectedChoice, Schema.Array(SelectedChoice), Schema.String, Schema.Number)
export type SelectedChoiceValue = typeof SelectedChoiceValue.Type

/** One answer to one question of one result, by a person (`human`) or the model judge (`llm_auto`). */
export class AnnotationResult extends Schema.Class<AnnotationResult>("AnnotationResult")({
  id: Id,
  annotation_type: Schema.Literal("llm_auto", "human"),
  question_id: Id,
  selected_choice: SelectedChoiceValue,
  /** the result the answer is for (the same across the result's versions) */
  test_case_result_lineage_id: Id,
  llm_auto_eval_metadata: Nullable(LlmAutoEvalMetadata),
  created_at: DateTimeString
}) {}

export class CustomMetricValue extends Schema.Class<CustomMetricValue>("CustomMetricValue")({
  id: Id,
  name: Schema.String,
  output: Schema.Number,
  type: Schema.String
}) {}

/** The output a result was made from, with its interaction and spans (view `Trace`). */
export class ResultTestCaseOutputView extends Schema.Class<ResultTestCaseOutputView>("ResultTestCaseOutputView")({
  id: Id,
  account_id: Id,
  application_variant_id: Id,
  evaluation_dataset_id: Id,
  test_case_id: Id,
  schema_type: TestCaseOutputSchemaType,
  output: TestCaseOutputResult,
  application_interaction_id: Nullable(Id),
  application_test_case_output_group_id: Nullable(Id),
  created_at: DateTimeString,
  interaction: Nullable(ApplicationInteraction),
  trace_spans: Schema.Array(EvaluationTraceSpan)
}) {}

/** A test case result with the fields its views add (retrieve, list). */
export class TestCaseResultV4WithViews extends Schema.Class<TestCaseResultV4WithViews>("TestCaseResultV4WithViews")({
  ...TestCaseResultFields,
  annotation_results: OnlyWithView(Schema.Array(AnnotationResult)),
  metrics: OnlyWithView(Nullable(Schema.Record({ key: Schema.String, value: Schema.Number }))),
  custom_metrics: OnlyWithView(Schema.Array(CustomMetricValue)),
  task: OnlyWithView(Nullable(AnnotationTaskView)),
  test_case_version: OnlyWithView(Nullable(TestCase)),
  application_test_case_output: OnlyWithView(Nullable(ResultTestCaseOutputView))
}) {}

export const TestCaseResultView = Schema.Literal("AnnotationResults", "CustomMetrics", "Metrics", "Task", "TestCaseVersion", "Trace")
  .annotations({ identifier: "TestCaseResultView" })
const TestCaseResultViews = Schema.optionalWith(QueryArray(TestCaseResultView), { exact: true })

export const GetTestCaseResultQuery = Schema.Struct({ view: TestCaseResultViews })
export const ListTestCaseResultsQuery = Schema.Struct({
  ...V4PageQuery,
  include_archived: Schema.optionalWith(QueryBoolean, { exact: true }),
  view: TestCaseResultViews
})

/** A dataset version number, as a string of digits (`"1"`). */
const VersionNum = Schema.String.pipe(Schema.pattern(/^[1-9][0-9]{0,8}$/, { message: () => "Expected a version number (\"1\", \"2\", …)" }))

const TestCaseResultWritable = {
  account_id: Optional(Id),
  annotated_by_user_id: Optional(Id),
  audit_comment: Optional(Schema.String),
  audit_required: Optional(Schema.Boolean),
  audit_status: Optional(AuditStatus),
  label_status: Optional(LabelStatus),
  result: Optional(ResultAnswers),
  time_spent_labeling_s: Optional(Schema.Int.pipe(Schema.nonNegative()))
} as const

/** A result to store: the output (`test_case_evaluation_data`) of a test case of the account. */
export const CreateTestCaseResult = Schema.Struct({
  application_spec_id: Id,
  evaluation_dataset_version_num: VersionNum,
  test_case_evaluation_data: TestCaseOutputResultInput,
  test_case_id: Id,
  ...TestCaseResultWritable
}).annotations({ identifier: "CreateTestCaseResult" })
export type CreateTestCaseResult = typeof CreateTestCaseResult.Type

/** Most results a batch takes (a larger one is a 422). */
export const testCaseResultBatchLimit = 1000

export const CreateTestCaseResultBatch = Schema.Array(CreateTestCaseResult).pipe(
  Schema.minItems(1),
  Schema.maxItems(testCaseResultBatchLimit)
)

/** Every field optional; one left out (or `null`) keeps its value. */
export const UpdateTestCaseResult = Schema.Struct({
  application_spec_id: Optional(Id),
  evaluation_dataset_version_num: Optional(VersionNum),
  test_case_evaluation_data: Optional(TestCaseOutputResultInput),
  test_case_id: Optional(Id),
  ...TestCaseResultWritable
}).annotations({ identifier: "UpdateTestCaseResult" })
export type UpdateTestCaseResult = typeof UpdateTestCaseResult.Type

// ---------------------------------------------------------------------------------------------
// Metrics (formulas: docs/evaluations.md "v4 metrics"; percentages from 0 to 100)

export class EvaluationV4Metrics extends Schema.Class<EvaluationV4Metrics>("EvaluationV4Metrics")({
  evaluation_id: Id,
  avg_labeling_time_per_test_case: Schema.Number,
  avg_num_test_cases_labeled_per_day: Schema.Number,
  num_total_test_cases: Schema.Int,
  num_test_cases_labeled: Schema.Int,
  num_test_cases_flagged: Schema.Int,
  num_test_cases_approved: Schema.Int,
  num_test_cases_fixed: Schema.Int,
  num_test_cases_unaudited: Schema.Int,
  percentage_test_cases_approved: Schema.Number,
  percentage_test_cases_fixed: Schema.Number,
  percentage_test_cases_unaudited: Schema.Number
}) {}

export class ContributorMetrics extends Schema.Class<ContributorMetrics>("ContributorMetrics")({
  evaluation_id: Id,
  annotated_by_user_id: Id,
  total_num_test_cases_labeled: Schema.Int,
  num_test_cases_fixed: Schema.Int,
  percentage_test_cases_fixed: Schema.Number,
  total_time_spent_labeling_sec: Schema.Int,
  avg_time_spent_labeling_sec: Schema.Number
}) {}

export class HybridQuestionInfo extends Schema.Class<HybridQuestionInfo>("HybridQuestionInfo")({
  question_title: Schema.String,
  question_type: Schema.String,
  evaluation_question: Schema.String,
  is_conditional_question: Schema.Boolean,
  choices: Nullable(Schema.Array(JsonObject)),
  agreement_rate: Schema.Number,
  num_correct: Schema.Int,
  num_wrong: Schema.Int,
  num_inconclusive: Schema.Int,
  num_free_text: Schema.Int,
  total_time: Schema.Number,
  total_tokens: Schema.Number
}) {}

export class HybridEvaluationMetrics extends Schema.Class<HybridEvaluationMetrics>("HybridEvaluationMetrics")({
  all_question_info: Schema.Record({ key: Schema.String, value: HybridQuestionInfo })
}) {}
