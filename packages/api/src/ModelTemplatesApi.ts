import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Conflict, CreateModelTemplate, GenericDeleteResponse, Id, ModelTemplate, NotFound, V4ListQuery, V4Page } from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const TemplatePath = Schema.Struct({ model_template_id: Id })

export class ModelTemplatesApi extends HttpApiGroup.make("modelTemplates")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/model-templates")
      .setPayload(CreateModelTemplate)
      .addSuccess(ModelTemplate)
      .annotate(OpenApi.Summary, "Create a model template")
      .annotate(
        OpenApi.Description,
        "Creates a model template (`name`, `model_type`, `endpoint_type`, the `LAUNCH` `vendor_configuration` with its `bundle_config`, optional `endpoint_protocol` and parameter schemas) in the body's `account_id`."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/model-templates/:model_template_id")
      .setPath(TemplatePath)
      .addSuccess(ModelTemplate)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a model template")
      .annotate(OpenApi.Description, "Answers the model template; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/model-templates")
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(ModelTemplate))
      .annotate(OpenApi.Summary, "List model templates")
      .annotate(
        OpenApi.Description,
        "Lists the model templates of every account of the caller (`account_id` narrows to one), newest first, as a v4 page (`page`, `limit`)."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/model-templates/:model_template_id")
      .setPath(TemplatePath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Delete a model template")
      .annotate(
        OpenApi.Description,
        "Deletes the model template (`{count: 1, success: true}`); 404 when it is not in the caller's accounts, 409 while models name it (delete them, or clear their `model_template_id`, first)."
      )
  )
  .annotate(OpenApi.Title, "Model templates")
  .annotate(
    OpenApi.Description,
    "Model templates: how a LAUNCH model is built and served, and the parameters its models take. A model created with `model_template_id` takes the template's defaults."
  )
{}
