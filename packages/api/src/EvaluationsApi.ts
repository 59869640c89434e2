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
 * Spec 2.14 / 4.13: v5 evaluations, and their items (the real v5 SDK's `evaluation_items`).
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
  )
  .add(
    HttpApiEndpoint.get("get", evaluation)
      .setPath(EvaluationPath)
      .setUrlParams(GetEvaluationQuery)
      .addSuccess(Evaluation)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.patch("update", evaluation)
      .setPath(EvaluationPath)
      .setPayload(UpdateEvaluation)
      .setUrlParams(EvaluationViewQuery)
      .addSuccess(Evaluation)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("archive", evaluation)
      .setPath(EvaluationPath)
      .setUrlParams(EvaluationViewQuery)
      .addSuccess(Evaluation)
      .addError(NotFound)
  )
  .add(HttpApiEndpoint.get("list", evaluations).setUrlParams(ListEvaluationsQuery).addSuccess(V5List(Evaluation)))
  .add(HttpApiEndpoint.get("listItems", items).setUrlParams(ListEvaluationItemsQuery).addSuccess(V5List(EvaluationItem)))
  .add(
    HttpApiEndpoint.get("getItem", `${items}/:evaluation_item_id`)
      .setPath(EvaluationItemPath)
      .setUrlParams(GetEvaluationItemQuery)
      .addSuccess(EvaluationItem)
      .addError(NotFound)
  )
  .annotate(OpenApi.Title, "Evaluations")
{}
