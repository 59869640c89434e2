import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { CreateModelGroup, Id, ModelGroup, NotFound, V4ListQuery, V4Page } from "@platform-kit/schema"
import { OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./security.js"

export class ModelGroupsApi extends HttpApiGroup.make("modelGroups")
  .middleware(Authentication)
  .add(HttpApiEndpoint.post("create", "/v4/model-groups").setPayload(CreateModelGroup).addSuccess(ModelGroup))
  .add(
    HttpApiEndpoint.get("get", "/v4/model-groups/:model_group_id")
      .setPath(Schema.Struct({ model_group_id: Id }))
      .addSuccess(ModelGroup)
      .addError(NotFound)
  )
  .add(HttpApiEndpoint.get("list", "/v4/model-groups").setUrlParams(V4ListQuery).addSuccess(V4Page(ModelGroup)))
  .annotate(OpenApi.Title, "Model groups")
{}
