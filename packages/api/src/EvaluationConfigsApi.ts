import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { CreateEvaluationConfig, EvaluationConfig, Id, NotFound, V4ListQuery, V4Page } from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

export class EvaluationConfigsApi extends HttpApiGroup.make("evaluationConfigs")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/evaluation-configs").setPayload(CreateEvaluationConfig).addSuccess(
      EvaluationConfig
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/evaluation-configs/:evaluation_config_id")
      .setPath(Schema.Struct({ evaluation_config_id: Id }))
      .addSuccess(EvaluationConfig)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/evaluation-configs").setUrlParams(V4ListQuery).addSuccess(
      V4Page(EvaluationConfig)
    )
  )
  .annotate(OpenApi.Title, "Evaluation configs")
{}
