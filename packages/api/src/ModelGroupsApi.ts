import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import {
  CreateModelGroup,
  GenericDeleteResponse,
  Id,
  ModelGroup,
  ModelGroupUsageQuery,
  ModelInstance,
  ModelUsage,
  NotFound,
  UpdateModelGroup,
  V4ListQuery,
  V4Page
} from "@platform-kit/schema"
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
  .add(
    HttpApiEndpoint.patch("update", "/v4/model-groups/:model_group_id")
      .setPath(Schema.Struct({ model_group_id: Id }))
      .setPayload(UpdateModelGroup)
      .addSuccess(ModelGroup)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a model group")
      .annotate(OpenApi.Description, "Changes the fields given (`name`, `description`; `description: null` clears it) and answers the group.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/model-groups/:model_group_id")
      .setPath(Schema.Struct({ model_group_id: Id }))
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a model group")
      .annotate(
        OpenApi.Description,
        "Deletes the group; its models stay, out of any group (`model_group_id` null), in the same transaction."
      )
  )
  .add(
    HttpApiEndpoint.post("addModel", "/v4/model-groups/:model_group_id/models/:model_instance_id")
      .setPath(Schema.Struct({ model_group_id: Id, model_instance_id: Id }))
      .addSuccess(ModelInstance)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Add a model to a model group")
      .annotate(
        OpenApi.Description,
        "Puts the model in the group (its `model_group_id` set; a model is in one group at most, so it leaves any other) and answers the model. Both must be of the same account; 404 naming the one that is not."
      )
  )
  .add(
    HttpApiEndpoint.get("usage", "/v4/model-groups/:model_group_id/usage-statistics")
      .setPath(Schema.Struct({ model_group_id: Id }))
      .setUrlParams(ModelGroupUsageQuery)
      .addSuccess(ModelUsage)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get the usage statistics of a model group")
      .annotate(
        OpenApi.Description,
        "The recorded executions of the group's models (those in it now) over `[start_date, end_date)` in `chunks` equal chunks (all three required): tokens, requests, errors and latency per chunk, from the usage table."
      )
  )
  .annotate(OpenApi.Title, "Model groups")
  .annotate(OpenApi.Description, "Named groups of an account's models: a model names its group by `model_group_id`.")
{}
