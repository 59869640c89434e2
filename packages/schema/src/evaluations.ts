/**
 * Evaluations (v5): resources and request bodies (docs/evaluations.md; docs/decisions.md
 * "Pagination and lists", "Lifecycle").
 */
import { Schema } from "effect"
import {
  DateTimeString,
  Id,
  Identity,
  JsonObject,
  NonEmptyString,
  Nullable,
  OnlyWithView,
  Optional,
  QueryArray,
  QueryBoolean,
  V5PageQuery
} from "./common.js"

const PositiveInt = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))
const NonNegativeInt = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))
const Penalty = Schema.Number.pipe(Schema.between(-2, 2))

// ---------------------------------------------------------------------------------------------
// Tasks

/**
 * The fields of a `chat_completion` configuration besides `model`. Ranges are the ones
 * every chat-completion provider shares: `temperature` 0–2, `top_p` 0–1, penalties −2–2, token
 * counts and `n` at least 1, `top_logprobs` at least 0.
 */
const configurationFields = {
  /** The conversation, or an item locator naming it (docs/evaluations.md "Running"). */
  messages: Schema.Union(Schema.Array(JsonObject), Schema.String),
  top_k: Schema.Number,
  frequency_penalty: Penalty,
  presence_penalty: Penalty,
  temperature: Schema.Number.pipe(Schema.between(0, 2)),
  top_p: Schema.Number.pipe(Schema.between(0, 1)),
  function_call: JsonObject,
  functions: Schema.Array(JsonObject),
  logit_bias: JsonObject,
  logprobs: Schema.Boolean,
  max_completion_tokens: PositiveInt,
  max_tokens: PositiveInt,
  n: PositiveInt,
  seed: Schema.Int,
  top_logprobs: NonNegativeInt,
  metadata: JsonObject,
  modalities: Schema.Array(Schema.String),
  parallel_tool_calls: Schema.Boolean,
  prediction: JsonObject,
  reasoning_effort: Schema.String,
  response_format: JsonObject,
  stop: Schema.String,
  store: Schema.Boolean,
  tool_choice: Schema.String,
  tools: Schema.Array(JsonObject),
  audio: JsonObject
}
type ConfigurationFields = typeof configurationFields

/** The optional configuration fields, by name. */
export const chatCompletionOptionalFields = Object.keys(configurationFields) as ReadonlyArray<keyof ConfigurationFields>

const mapFields = <T>(f: (schema: ConfigurationFields[keyof ConfigurationFields]) => unknown) =>
  Object.fromEntries(Object.entries(configurationFields).map(([name, schema]) => [name, f(schema)])) as T

/** A configuration as answered: `model`, and every other field `null` when it was left out. */
export const ChatCompletionConfiguration = Schema.Struct({
  model: NonEmptyString,
  ...mapFields<{ [K in keyof ConfigurationFields]: Schema.NullOr<ConfigurationFields[K]> }>(Nullable)
}).annotations({ identifier: "ChatCompletionConfiguration" })
export type ChatCompletionConfiguration = typeof ChatCompletionConfiguration.Type

/** A configuration as a create sends it: `model`, and any of the other fields. */
export const ChatCompletionConfigurationInput = Schema.Struct({
  model: NonEmptyString,
  ...mapFields<{ [K in keyof ConfigurationFields]: Schema.optionalWith<ConfigurationFields[K], { exact: true; nullable: true }> }>(
    Optional
  )
}).annotations({ identifier: "ChatCompletionConfigurationInput" })
export type ChatCompletionConfigurationInput = typeof ChatCompletionConfigurationInput.Type

/** A `chat_completion` task: the model answers each item's conversation. */
export const ChatCompletionTask = Schema.Struct({
  configuration: ChatCompletionConfiguration,
  task_type: Schema.Literal("chat_completion"),
  /** The name the task's output goes by (the item's results column); unique within an evaluation. */
  alias: Nullable(Schema.String)
}).annotations({ identifier: "ChatCompletionTask" })

/** The metrics a `metric` task computes (docs/evaluations.md "Metrics"). */
export const MetricType = Schema.Literal("bleu", "meteor", "cosine_similarity", "f1", "rouge1", "rouge2", "rougeL").annotations({
  identifier: "MetricType"
})
export type MetricType = typeof MetricType.Type

/** A metric between two texts of an item, each named by an item locator (`item.answer`). */
export const MetricConfiguration = Schema.Struct({
  type: MetricType,
  candidate: NonEmptyString,
  reference: NonEmptyString
}).annotations({ identifier: "MetricConfiguration" })

export const MetricTask = Schema.Struct({
  configuration: MetricConfiguration,
  task_type: Schema.Literal("metric"),
  alias: Nullable(Schema.String)
}).annotations({ identifier: "MetricTask" })

/**
 * The task types of the real v5 SDK the kit stores but does not run yet (docs/evaluations.md
 * "Running"): their configuration is kept as given.
 */
export const StoredOnlyTaskType = Schema.Literal(
  "inference",
  "application_variant",
  "agentex_output",
  "auto_evaluation.question",
  "auto_evaluation.guided_decoding",
  "auto_evaluation.agent",
  "contributor_evaluation.question"
).annotations({ identifier: "StoredOnlyTaskType" })

export const StoredOnlyTask = Schema.Struct({
  configuration: JsonObject,
  task_type: StoredOnlyTaskType,
  alias: Nullable(Schema.String)
}).annotations({ identifier: "StoredOnlyTask" })

/** A task an evaluation runs on each of its items, by `task_type`. */
export const EvaluationTask = Schema.Union(ChatCompletionTask, MetricTask, StoredOnlyTask).annotations({
  identifier: "EvaluationTask"
})
export type EvaluationTask = typeof EvaluationTask.Type

export const EvaluationTaskInput = Schema.Union(
  Schema.Struct({ configuration: ChatCompletionConfigurationInput, task_type: Schema.Literal("chat_completion"), alias: Optional(Schema.String) }),
  Schema.Struct({ configuration: MetricConfiguration, task_type: Schema.Literal("metric"), alias: Optional(Schema.String) }),
  Schema.Struct({ configuration: JsonObject, task_type: StoredOnlyTaskType, alias: Optional(Schema.String) })
).annotations({ identifier: "EvaluationTaskInput" })
export type EvaluationTaskInput = typeof EvaluationTaskInput.Type

/**
 * The results column of a task: its `alias`, else the real SDK's default for its type (the
 * metric's `type` for a metric task, the `task_type` for the others).
 */
export const taskAlias = (task: { readonly alias?: string | null | undefined; readonly task_type: string; readonly configuration: unknown }) =>
  task.alias ?? (task.task_type === "metric" ? (task.configuration as { readonly type: string }).type : task.task_type)

/**
 * The tasks of a create: no two with the same results column (`taskAlias`: an alias given, or the
 * default of the task's type), each repeat reported at its `alias`.
 */
const TasksInput = Schema.Array(EvaluationTaskInput).pipe(
  Schema.filter((tasks) => {
    const seen = new Set<string>()
    const issues: Array<Schema.FilterIssue> = []
    tasks.forEach((task, i) => {
      const alias = taskAlias(task)
      if (seen.has(alias)) {
        issues.push({ path: [i, "alias"], message: `Duplicate task alias '${alias}'` })
      }
      seen.add(alias)
    })
    return issues
  })
)

// ---------------------------------------------------------------------------------------------
// Evaluation

/** An evaluation dataset as an evaluation lists it. */
export class EvaluationDatasetEntry extends Schema.Class<EvaluationDatasetEntry>("EvaluationDatasetEntry")({
  id: Id,
  name: Schema.String,
  created_by: Identity,
  created_at: DateTimeString,
  tags: Schema.Array(Schema.String),
  current_version_num: Schema.Int,
  object: Schema.Literal("dataset"),
  description: Nullable(Schema.String),
  archived_at: Nullable(DateTimeString)
}) {}

const Count = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))

export class EvaluationWorkflowProgress extends Schema.Class<EvaluationWorkflowProgress>("EvaluationWorkflowProgress")({
  total: Count,
  completed: Count,
  failed: Count,
  pending: Count
}) {}

export class EvaluationItemProgress extends Schema.Class<EvaluationItemProgress>("EvaluationItemProgress")({
  total: Count,
  successful: Count,
  failed: Count,
  pending: Count,
  failed_items: Schema.Array(JsonObject)
}) {}

/** `total` is always the sum of the other counters. */
export class EvaluationProgress extends Schema.Class<EvaluationProgress>("EvaluationProgress")({
  workflows: EvaluationWorkflowProgress,
  items: EvaluationItemProgress
}) {}

/**
 * The status of an evaluation: the three values of the real v5 SDK. A new evaluation with work to
 * do (at least one task) is `running`; one with nothing to run is `completed`; `failed` when a unit
 * of its work failed.
 */
export const EvaluationStatus = Schema.Literal("running", "completed", "failed").annotations({
  identifier: "EvaluationStatus"
})
export type EvaluationStatus = typeof EvaluationStatus.Type

export class Evaluation extends Schema.Class<Evaluation>("Evaluation")({
  id: Id,
  name: Schema.String,
  description: Nullable(Schema.String),
  created_at: DateTimeString,
  archived_at: Nullable(DateTimeString),
  created_by: Identity,
  tags: Schema.Array(Schema.String),
  object: Schema.Literal("evaluation"),
  metadata: JsonObject,
  error_count: Count,
  status: EvaluationStatus,
  status_reason: Nullable(Schema.String),
  datasets: Schema.Array(EvaluationDatasetEntry),
  progress: EvaluationProgress,
  /** Only with the `tasks` view. */
  tasks: OnlyWithView(Schema.Array(EvaluationTask))
}) {}

// ---------------------------------------------------------------------------------------------
// Evaluation items

/**
 * One item of an evaluation: its `data` (what the create gave, or the test case's data), and once
 * the evaluation's tasks ran on it, each task's result under the task's alias. `archived_at` is its
 * evaluation's.
 */
export class EvaluationItem extends Schema.Class<EvaluationItem>("EvaluationItem")({
  id: Id,
  object: Schema.Literal("evaluation.item"),
  evaluation_id: Id,
  created_at: DateTimeString,
  created_by: Identity,
  archived_at: Nullable(DateTimeString),
  data: JsonObject,
  files: Schema.Record({ key: Schema.String, value: Schema.String }),
  /** The test case the item was made from (a create with `dataset_id`). */
  dataset_item_id: Nullable(Id),
  dataset_item_version_num: Nullable(Schema.Int)
}) {}

/** Query of `GET /v5/evaluation-items/{evaluation_item_id}`. */
export const GetEvaluationItemQuery = Schema.Struct({
  include_archived: Schema.optionalWith(QueryBoolean, { exact: true })
})

/** Query of `GET /v5/evaluation-items`: the items of one evaluation, or of every evaluation of the caller's accounts. */
export const ListEvaluationItemsQuery = Schema.Struct({
  evaluation_id: Schema.optionalWith(Id, { exact: true }),
  include_archived: Schema.optionalWith(QueryBoolean, { exact: true }),
  account_id: Schema.optionalWith(Id, { exact: true }),
  ...V5PageQuery(["created_at"])
})

// ---------------------------------------------------------------------------------------------
// Requests

/** A dataset an evaluation runs over: its id, or an object carrying it. */
export const EvaluationDatasetRef = Schema.Union(Id, Schema.Struct({ id: Id })).annotations({
  identifier: "EvaluationDatasetRef"
})

const Tag = NonEmptyString

/**
 * The evaluation dataset a create makes of its `data` (the SDK's third create variant): one test
 * case per entry, holding the entry's `keys` (all of them by default). The kit's evaluation
 * datasets carry no tags: `tags` is accepted and not kept (docs/evaluations.md "Create").
 */
export class EvaluationDatasetInput extends Schema.Class<EvaluationDatasetInput>("EvaluationDatasetInput")({
  name: NonEmptyString,
  description: Optional(Schema.String),
  keys: Optional(Schema.Array(NonEmptyString)),
  tags: Optional(Schema.Array(Tag))
}) {}

export class CreateEvaluation extends Schema.Class<CreateEvaluation>("CreateEvaluation")({
  name: NonEmptyString,
  description: Optional(Schema.String),
  tags: Optional(Schema.Array(Tag)),
  metadata: Optional(JsonObject),
  /** Evaluation datasets of the same account (404 naming one that is not). */
  datasets: Optional(Schema.Array(EvaluationDatasetRef)),
  /**
   * The items to evaluate, one object each. With `dataset_id`, an entry may name a test case of
   * that dataset by `dataset_item_id` (its other fields are added to the test case's data).
   */
  data: Optional(Schema.Array(JsonObject).pipe(Schema.maxItems(100_000))),
  /** Files of each item of `data`, by position: name → URL. */
  files: Optional(Schema.Array(Schema.Record({ key: Schema.String, value: Schema.String }))),
  /** An evaluation dataset whose test cases are the items (all of them, or those `data` names). */
  dataset_id: Optional(Id),
  /** A new evaluation dataset made of `data` (not with `dataset_id`). */
  dataset: Optional(EvaluationDatasetInput),
  tasks: Optional(TasksInput),
  account_id: Optional(Id)
}) {}

export class UpdateEvaluation extends Schema.Class<UpdateEvaluation>("UpdateEvaluation")({
  name: Optional(NonEmptyString),
  description: Optional(Schema.String),
  /** Replaces the tags. */
  tags: Optional(Schema.Array(Tag)),
  /** Replaces the metadata. */
  metadata: Optional(JsonObject),
  /** `true` un-archives the evaluation; `false` changes nothing. */
  restore: Optional(Schema.Boolean)
}) {}

/** The views an evaluation can be answered with. */
export const EvaluationView = Schema.Literal("tasks").annotations({ identifier: "EvaluationView" })
export type EvaluationView = typeof EvaluationView.Type

const views = Schema.optionalWith(QueryArray(EvaluationView), { exact: true })
const includeArchived = Schema.optionalWith(QueryBoolean, { exact: true })

// Query schemas are Structs without an identifier (not Classes): the OpenAPI document lists the
// fields of such a Struct as parameters.

/** Query of every endpoint that answers one evaluation: `views=tasks` adds the tasks. */
export const EvaluationViewQuery = Schema.Struct({ views })

/** Query of a read by id: an archived evaluation is a 404 unless `include_archived=true`. */
export const GetEvaluationQuery = Schema.Struct({
  views,
  include_archived: includeArchived
})

/** The fields `GET /v5/evaluations` sorts on. */
export const EvaluationSortFields = ["created_at", "name"] as const

/**
 * Query of `GET /v5/evaluations` (docs/decisions.md "Pagination and lists"): `name`
 * (case-insensitive substring), `tags` (any of, case-insensitive), `include_archived`, `views`,
 * `account_id`, and the v5 cursor.
 */
export const ListEvaluationsQuery = Schema.Struct({
  name: Schema.optionalWith(Schema.String, { exact: true }),
  tags: Schema.optionalWith(QueryArray(Schema.String), { exact: true }),
  include_archived: includeArchived,
  views,
  account_id: Schema.optionalWith(Id, { exact: true }),
  ...V5PageQuery(EvaluationSortFields)
})
