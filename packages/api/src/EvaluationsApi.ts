import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  CreateEvaluation,
  Evaluation,
  EvaluationViewQuery,
  GetEvaluationQuery,
  Id,
  ListEvaluationsQuery,
  NotFound,
  UpdateEvaluation,
  V5List
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const EvaluationPath = Schema.Struct({ evaluation_id: Id })

const evaluations = "/v5/evaluations"
const evaluation = `${evaluations}/:evaluation_id` as const

/** Spec 2.14 / 4.13: v5 evaluations. `DELETE` archives; `PATCH` with `restore: true` un-archives. */
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
  .annotate(OpenApi.Title, "Evaluations")
{}
