import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  CreateEvaluation,
  Evaluation,
  EvaluationItem,
  EvaluationViewQuery,
  GetEvaluationItemQuery,
  GetEvaluationQuery,
  Id,
  ListEvaluationItemsQuery,
  ListEvaluationsQuery,
  NotFound,
  UpdateEvaluation,
  V5List
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const EvaluationPath = Schema.Struct({ evaluation_id: Id })

const EvaluationItemPath = Schema.Struct({ evaluation_item_id: Id })

const evaluations = "/v5/evaluations"
const items = "/v5/evaluation-items"
const evaluation = `${evaluations}/:evaluation_id` as const

/**
 * The v5 evaluations (docs/evaluations.md), and their items (the real v5 SDK's `evaluation_items`).
 * `DELETE` archives; `PATCH` with `restore: true` un-archives.
 */
export class EvaluationsApi extends HttpApiGroup.make("evaluations")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", evaluations)
      .setPayload(CreateEvaluation)
      .setUrlParams(EvaluationViewQuery)
      .addSuccess(Evaluation)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Create an evaluation")
      .annotate(
        OpenApi.Description,
        "Creates an evaluation of items (from `data`, or a dataset's test cases) and tasks; with a task that runs (`chat_completion`, `metric`) it starts `running` and runs in the background."
      )
  )
  .add(
    HttpApiEndpoint.get("get", evaluation)
      .setPath(EvaluationPath)
      .setUrlParams(GetEvaluationQuery)
      .addSuccess(Evaluation)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an evaluation")
      .annotate(
        OpenApi.Description,
        "Answers the evaluation (its tasks with `views=tasks`); an archived one is a 404 unless `include_archived=true`."
      )
  )
  .add(
    HttpApiEndpoint.patch("update", evaluation)
      .setPath(EvaluationPath)
      .setPayload(UpdateEvaluation)
      .setUrlParams(EvaluationViewQuery)
      .addSuccess(Evaluation)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update an evaluation")
      .annotate(
        OpenApi.Description,
        "Changes `name`, `description`, `tags` and/or `metadata`; `restore: true` un-archives it and resumes a run its archive stopped. Archived evaluations can be updated."
      )
  )
  .add(
    HttpApiEndpoint.del("archive", evaluation)
      .setPath(EvaluationPath)
      .setUrlParams(EvaluationViewQuery)
      .addSuccess(Evaluation)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Archive an evaluation")
      .annotate(
        OpenApi.Description,
        "Sets `archived_at` and answers the evaluation (an archived one unchanged); a running evaluation stops and ends `failed`."
      )
  )
  .add(
    HttpApiEndpoint.get("list", evaluations)
      .setUrlParams(ListEvaluationsQuery)
      .addSuccess(V5List(Evaluation))
      .annotate(OpenApi.Summary, "List evaluations")
      .annotate(
        OpenApi.Description,
        "Lists the evaluations of the caller's accounts (`account_id` narrows to one) with the v5 cursor (`limit`, `starting_after`, `ending_before`, `sort_order`, `sort_by`); `name` and `tags` filter, archived ones only with `include_archived=true`."
      )
  )
  .add(
    HttpApiEndpoint.get("listItems", items)
      .setUrlParams(ListEvaluationItemsQuery)
      .addSuccess(V5List(EvaluationItem))
      .annotate(OpenApi.Summary, "List evaluation items")
      .annotate(
        OpenApi.Description,
        "Lists the evaluation items of the caller's accounts (`account_id` narrows to one), of one evaluation with `evaluation_id`, with the v5 cursor; items of archived evaluations only with `include_archived=true`."
      )
  )
  .add(
    HttpApiEndpoint.get("getItem", `${items}/:evaluation_item_id`)
      .setPath(EvaluationItemPath)
      .setUrlParams(GetEvaluationItemQuery)
      .addSuccess(EvaluationItem)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an evaluation item")
      .annotate(
        OpenApi.Description,
        "Answers one evaluation item with its data and task results; an item of an archived evaluation is a 404 unless `include_archived=true`."
      )
  )
  .annotate(OpenApi.Title, "Evaluations")
  .annotate(
    OpenApi.Description,
    "Evaluations (v5): items run through tasks (chat completions, metrics) in the background, and their items with the results."
  )
{}
