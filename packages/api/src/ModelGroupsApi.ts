import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { CreateModelGroup, Id, ModelGroup, NotFound, V4ListQuery, V4Page } from "@platform-kit/schema"
import { OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./security.js"

export class ModelGroupsApi extends HttpApiGroup.make("modelGroups")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/model-groups")
      .setPayload(CreateModelGroup)
      .addSuccess(ModelGroup)
      .annotate(OpenApi.Summary, "Create a model group")
      .annotate(
        OpenApi.Description,
        "Creates a model group (`name`, optional `description`) in the body's `account_id`, which must be one of the caller's accounts (else 403)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/model-groups/:model_group_id")
      .setPath(Schema.Struct({ model_group_id: Id }))
      .addSuccess(ModelGroup)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a model group")
      .annotate(OpenApi.Description, "Answers the model group; 404 when it is missing or in none of the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/model-groups")
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(ModelGroup))
      .annotate(OpenApi.Summary, "List model groups")
      .annotate(
        OpenApi.Description,
        "Lists the model groups of the caller's accounts (`account_id` narrows to one), newest first, as a v4 page (`page`, `limit`)."
      )
  )
  .annotate(OpenApi.Title, "Model groups")
  .annotate(OpenApi.Description, "Named groups of an account's models: a model names its group by `model_group_id`.")
{}
