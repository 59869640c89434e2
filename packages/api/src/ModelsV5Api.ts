import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  Conflict,
  CreateInferenceModel,
  Id,
  InferenceModel,
  InferenceModelDeleted,
  InferenceModelListQuery,
  NotFound,
  UpdateInferenceModel,
  V5List
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

/** The path of one v5 model (`{model_id}` on the wire; named apart from the v4 registry's `model_id`). */
const ModelPath = Schema.Struct({ inference_model_id: Id })

export class ModelsV5Api extends HttpApiGroup.make("modelsV5")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v5/models")
      .setPayload(CreateInferenceModel)
      .addSuccess(InferenceModel)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Create a v5 model")
      .annotate(
        OpenApi.Description,
        "Creates a `launch` or `llmengine` model, answered `deploying`; its lifecycle (simulated provisioning) makes it `ready` or `failed`. Names are unique per vendor per account: 409, unless `on_conflict: \"update\"` (the existing model takes the new configuration and deploys again)."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v5/models")
      .setUrlParams(InferenceModelListQuery)
      .addSuccess(V5List(InferenceModel))
      .annotate(OpenApi.Summary, "List v5 models")
      .annotate(
        OpenApi.Description,
        "Lists the v5 models of the caller's accounts (`account_id` narrows to one) with the v5 cursor; `model_vendor` (exact) and `name` (case-insensitive substring) filter."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v5/models/:inference_model_id")
      .setPath(ModelPath)
      .addSuccess(InferenceModel)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a v5 model")
      .annotate(OpenApi.Description, "Answers the model and its status; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v5/models/:inference_model_id")
      .setPath(ModelPath)
      .setPayload(UpdateInferenceModel)
      .addSuccess(InferenceModel)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Update a v5 model")
      .annotate(
        OpenApi.Description,
        "Changes `model_metadata` and `name` at once (a name taken is a 409, or swapped with `on_conflict: \"swap\"`); a `vendor_configuration` (merged into the current one) deploys the model again. A `deploying` model cannot be updated (409)."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v5/models/:inference_model_id")
      .setPath(ModelPath)
      .addSuccess(InferenceModelDeleted)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Delete a v5 model")
      .annotate(
        OpenApi.Description,
        "Deletes the model for good (`{id, deleted: true, object: \"model\"}`); a `deploying` model cannot be deleted (409)."
      )
  )
  .annotate(OpenApi.Title, "Models (v5)")
  .annotate(
    OpenApi.Description,
    "Managed inference models (v5): Launch and LLM Engine models the platform deploys, records of their own apart from the v4 model registry."
  )
{}
