import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { CreateEvaluationConfig, EvaluationConfig, GenericDeleteResponse, Id, NotFound, V4ListQuery, V4Page } from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

export class EvaluationConfigsApi extends HttpApiGroup.make("evaluationConfigs")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/evaluation-configs")
      .setPayload(CreateEvaluationConfig)
      .addSuccess(EvaluationConfig)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Create an evaluation config")
      .annotate(
        OpenApi.Description,
        "Creates an evaluation config (`evaluation_type` `studio`, `human`, `llm_auto` or `llm_benchmark`, `question_set_id`, optional Studio project, auto-evaluation model and parameters); the question set and Studio project must be the account's (else 404 naming it)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/evaluation-configs/:evaluation_config_id")
      .setPath(Schema.Struct({ evaluation_config_id: Id }))
      .addSuccess(EvaluationConfig)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an evaluation config")
      .annotate(OpenApi.Description, "Answers the evaluation config; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/evaluation-configs")
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(EvaluationConfig))
      .annotate(OpenApi.Summary, "List evaluation configs")
      .annotate(
        OpenApi.Description,
        "Lists the evaluation configs of the caller's accounts (`account_id` narrows to one), newest first, as a v4 page (`page`, `limit`)."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/evaluation-configs/:evaluation_config_id")
      .setPath(Schema.Struct({ evaluation_config_id: Id }))
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete an evaluation config")
      .annotate(OpenApi.Description, "Deletes the evaluation config for good (`{count: 1, success: true}`); evaluations that name it keep the id and read no expanded config; 404 when it is not in the caller's accounts.")
  )
  .annotate(OpenApi.Title, "Evaluation configs")
  .annotate(
    OpenApi.Description,
    "Evaluation configs: the evaluation type, question set and auto-evaluation settings of an evaluation."
  )
{}
