import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  ClaimTaskBody,
  Conflict,
  ContributorMetrics,
  CreateEvaluationV4,
  CreateTestCaseResult,
  CreateTestCaseResultBatch,
  EvaluationV4,
  EvaluationV4Metrics,
  EvaluationV4WithViews,
  GenericDeleteResponse,
  GetEvaluationV4Query,
  GetTestCaseResultQuery,
  HybridEvaluationMetrics,
  Id,
  ListEvaluationsV4Query,
  ListTestCaseResultsQuery,
  NotFound,
  TaskV4,
  TestCaseResultV4,
  TestCaseResultV4WithViews,
  UpdateAnnotationTask,
  UpdateEvaluationV4,
  UpdateTestCaseResult,
  V4ListQuery,
  V4Page
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

/**
 * The path names the v4 evaluation `evaluation_v4_id` (the wire path is the spec's
 * `/v4/evaluations/{evaluation_id}`): `evaluation_id` already names a v5 evaluation in the API.
 */
const EvaluationPath = Schema.Struct({ evaluation_v4_id: Id })
const ResultPath = Schema.Struct({ evaluation_v4_id: Id, test_case_result_id: Id })
/** `num`: a result's own version number ("1" for its first write, +1 per update). */
const VersionNum = Schema.String
const base = "/v4/evaluations/:evaluation_v4_id"

const viewsOfEvaluations =
  "`view` adds `application_spec` (ApplicationSpec), `async_jobs` (AsyncJobs), `evaluation_config_expanded` (EvaluationConfig: the config with its question set and questions) and `evaluation_datasets` (EvaluationDatasets)."
const viewsOfResults =
  "`view` adds `annotation_results` (AnnotationResults), `metrics` (Metrics), `custom_metrics` (CustomMetrics), `task` (Task, `assigned_to` the user), `test_case_version` (TestCaseVersion: the test case at the result's dataset version) and `application_test_case_output` (Trace)."

export class EvaluationsV4Api extends HttpApiGroup.make("evaluationsV4")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/evaluations")
      .setPayload(CreateEvaluationV4)
      .addSuccess(EvaluationV4)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Create a v4 evaluation")
      .annotate(
        OpenApi.Description,
        "`type: default` (or none): an evaluation whose test case results are posted; `type: builder` (needs `application_variant_id` and `evaluation_dataset_id`): the server builds the results from the variant's outputs. The spec, variant, dataset and config named must be of the account (else 404, nothing written)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${base}`)
      .setPath(EvaluationPath)
      .setUrlParams(GetEvaluationV4Query)
      .addSuccess(EvaluationV4WithViews)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a v4 evaluation")
      .annotate(OpenApi.Description, `The evaluation, archived or not; 404 when it is not in the caller's accounts. ${viewsOfEvaluations}`)
  )
  .add(
    HttpApiEndpoint.patch("update", `${base}`)
      .setPath(EvaluationPath)
      .setPayload(UpdateEvaluationV4)
      .addSuccess(EvaluationV4)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Update a v4 evaluation")
      .annotate(
        OpenApi.Description,
        "A partial update, or `{restore: true}` to un-archive it. `evaluation_type: llm_benchmark` makes it a hybrid evaluation (409 for a studio evaluation). An archived evaluation takes only a restore (409)."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/evaluations")
      .setUrlParams(ListEvaluationsV4Query)
      .addSuccess(V4Page(EvaluationV4WithViews))
      .annotate(OpenApi.Summary, "List v4 evaluations")
      .annotate(
        OpenApi.Description,
        `The evaluations of the caller's accounts (\`account_id\`, \`application_spec_id\` narrow), archived ones only with \`include_archived\`, newest first unless \`sort_by\` (\`<field>:asc|desc\`, in order; fields that are not stored as columns are ignored). ${viewsOfEvaluations}`
      )
  )
  .add(
    HttpApiEndpoint.del("delete", `${base}`)
      .setPath(EvaluationPath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Archive a v4 evaluation")
      .annotate(OpenApi.Description, "Archives the evaluation (`{count: 1, success: true}`; again: `count: 0`); `PATCH {restore: true}` brings it back.")
  )
  .add(
    HttpApiEndpoint.post("claimTask", `${base}/claim-task`)
      .setPath(EvaluationPath)
      .setPayload(ClaimTaskBody)
      .addSuccess(Schema.NullOr(TaskV4))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Claim an annotation task")
      .annotate(
        OpenApi.Description,
        "Assigns the next pending task (highest priority, then oldest) to the caller for `PLATFORM_EVALUATION_TASK_CLAIM_SECONDS` (default 1800); the caller's unexpired task is handed back again unless `skip_current`, which frees it and takes the next. `null` when there is none."
      )
  )
  .add(
    HttpApiEndpoint.patch("updateTask", `${base}/tasks/:evaluation_task_id`)
      .setPath(Schema.Struct({ evaluation_v4_id: Id, evaluation_task_id: Id }))
      .setPayload(UpdateAnnotationTask)
      .addSuccess(Schema.NullOr(TaskV4))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Reassign an annotation task")
      .annotate(
        OpenApi.Description,
        "Assigns the task to the user `assigned_to` (a member of the account, else 404) with a fresh claim time, or frees it (`assigned_to` absent or null); 404 when the evaluation has no such task. Typed `Task | null` as the SDK's `Optional[Task]`; the kit always answers the task."
      )
  )
  .add(
    HttpApiEndpoint.get("evaluationMetrics", `${base}/evaluation-metrics`)
      .setPath(EvaluationPath)
      .addSuccess(EvaluationV4Metrics)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get the metrics of a v4 evaluation")
      .annotate(OpenApi.Description, "Counts of the evaluation's results by label and audit status, and labelling times (docs/evaluations.md \"v4 metrics\").")
  )
  .add(
    HttpApiEndpoint.get("listContributorMetrics", `${base}/contributor-metrics`)
      .setPath(EvaluationPath)
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(ContributorMetrics))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List the contributor metrics of a v4 evaluation")
      .annotate(OpenApi.Description, "One item per user who annotated a result of the evaluation, by user id, as a v4 page.")
  )
  .add(
    HttpApiEndpoint.get("getContributorMetrics", `${base}/contributor-metrics/:contributor_id`)
      .setPath(Schema.Struct({ evaluation_v4_id: Id, contributor_id: Id }))
      .addSuccess(Schema.NullOr(ContributorMetrics))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a contributor's metrics")
      .annotate(OpenApi.Description, "The metrics of the user `contributor_id`; `null` when the user annotated nothing in the evaluation.")
  )
  .add(
    HttpApiEndpoint.get("hybridMetrics", `${base}/hybrid-eval-metrics`)
      .setPath(EvaluationPath)
      .addSuccess(HybridEvaluationMetrics)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get the hybrid metrics of a v4 evaluation")
      .annotate(OpenApi.Description, "Per question: how often the model judge's (`llm_auto`) answer agrees with the person's (`human`).")
  )
  .add(
    HttpApiEndpoint.post("createResult", `${base}/test-case-results`)
      .setPath(EvaluationPath)
      .setPayload(CreateTestCaseResult)
      .addSuccess(TestCaseResultV4)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Create a test case result")
      .annotate(
        OpenApi.Description,
        "Stores a result for a test case of the evaluation's account (else 404); its dataset comes from the test case, its schema from the dataset. 409 when the evaluation is archived."
      )
  )
  .add(
    HttpApiEndpoint.post("batchResults", `${base}/test-case-results/batch`)
      .setPayload(CreateTestCaseResultBatch)
      .setPath(EvaluationPath)
      .addSuccess(Schema.Array(TestCaseResultV4))
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Create test case results in a batch")
      .annotate(OpenApi.Description, "A bare array of 1 to 1000 results in, the stored results out in the same order; all or none are stored.")
  )
  .add(
    HttpApiEndpoint.get("getResult", `${base}/test-case-results/:test_case_result_id`)
      .setPath(ResultPath)
      .setUrlParams(GetTestCaseResultQuery)
      .addSuccess(TestCaseResultV4WithViews)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a test case result")
      .annotate(OpenApi.Description, `The result. ${viewsOfResults}`)
  )
  .add(
    HttpApiEndpoint.patch("updateResult", `${base}/test-case-results/:test_case_result_id`)
      .setPath(ResultPath)
      .setPayload(UpdateTestCaseResult)
      .addSuccess(TestCaseResultV4)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Update a test case result")
      .annotate(
        OpenApi.Description,
        "A partial update, recorded as the result's next version. Answering (`result`) marks it COMPLETED unless `label_status: PENDING` is sent, and stores the answers as `human` annotation results."
      )
  )
  .add(
    HttpApiEndpoint.get("listResults", `${base}/test-case-results`)
      .setPath(EvaluationPath)
      .setUrlParams(ListTestCaseResultsQuery)
      .addSuccess(V4Page(TestCaseResultV4WithViews))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List test case results")
      .annotate(OpenApi.Description, `The evaluation's results, oldest first, archived ones only with \`include_archived\`. ${viewsOfResults}`)
  )
  .add(
    HttpApiEndpoint.get("getResultVersion", `${base}/test-case-results/:test_case_result_id/history/:num`)
      .setPath(Schema.Struct({ evaluation_v4_id: Id, test_case_result_id: Id, num: VersionNum }))
      .addSuccess(TestCaseResultV4)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a version of a test case result")
      .annotate(OpenApi.Description, "The result as its version `num` left it (\"1\": as created; each update adds one); 404 when it has no such version.")
  )
  .add(
    HttpApiEndpoint.get("listResultVersions", `${base}/test-case-results/history/:num`)
      .setPath(Schema.Struct({ evaluation_v4_id: Id, num: VersionNum }))
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(TestCaseResultV4))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List a version of the test case results")
      .annotate(OpenApi.Description, "Version `num` of each result of the evaluation that has one, oldest result first.")
  )
  .annotate(OpenApi.Title, "Evaluations (v4)")
  .annotate(
    OpenApi.Description,
    "v4 evaluations: test case results judged by people (annotation tasks) and by the model judge, their history and metrics."
  )
{}
