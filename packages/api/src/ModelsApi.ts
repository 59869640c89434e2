import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  Conflict,
  CreateModelDeployment,
  CreateModelInstance,
  CreateModelServer,
  GenericDeleteResponse,
  Id,
  ModelDeployment,
  ModelDeploymentListQuery,
  ModelInstance,
  ModelInstanceGetQuery,
  ModelInstanceListQuery,
  ModelServer,
  ModelServerDeployment,
  ModelServerListQuery,
  ModelServerRollbackResponse,
  ModelServerUpdateBackendResponse,
  ModelUsage,
  ModelUsageQuery,
  NotFound,
  UpdateModelDeployment,
  UpdateModelServerBackend,
  UpdateModelInstance,
  V4Page
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const InstancePath = Schema.Struct({ model_instance_id: Id })
const DeploymentPath = Schema.Struct({ model_deployment_id: Id })
const ModelPath = Schema.Struct({ model_id: Id })
const ServerPath = Schema.Struct({ model_server_id: Id })
const InstanceDeploymentPath = Schema.Struct({ model_instance_id: Id, model_deployment_id: Id })

/**
 * A model server found by its alias, in the `account_id` query's account, else the selected
 * account, else every account of the caller.
 */
const serverByAlias = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path) =>
  HttpApiEndpoint.get(name, path)
    .setPath(Schema.Struct({ alias: Schema.String }))
    .setUrlParams(Schema.Struct({ account_id: Schema.optionalWith(Id, { exact: true }) }))
    .addSuccess(ModelServer)
    .addError(NotFound)

export class ModelsApi extends HttpApiGroup.make("models")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/models")
      .setPayload(CreateModelInstance)
      .addSuccess(ModelInstance)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Register a model")
      .annotate(
        OpenApi.Description,
        "Registers a model (the parent of deployments). `model_group_id` must name a model group of the account; `model_template_id` a model template of the account, whose `model_type` and vendor (`LAUNCH`) are the defaults (`model_type` may then be left out) and whose parameter schema `model_creation_parameters` must satisfy (422 naming the parameter)."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/models")
      .setUrlParams(ModelInstanceListQuery)
      .addSuccess(V4Page(ModelInstance))
      .annotate(OpenApi.Summary, "List models")
      .annotate(
        OpenApi.Description,
        "Lists the models of the caller's accounts (`account_id` narrows to one) as a v4 page (`page`, `limit`), by `sort_by` then newest first; `model_group_id` and `model_type` filter, `view` adds fields."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/models/:model_id")
      .setPath(ModelPath)
      .setUrlParams(ModelInstanceGetQuery)
      .addSuccess(ModelInstance)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a model")
      .annotate(
        OpenApi.Description,
        "Answers the model; `view` `Deployments` adds its deployments and `ModelGroup` its model group. 404 when it is not in the caller's accounts."
      )
  )
  .add(
    HttpApiEndpoint.patch("update", "/v4/models/:model_id")
      .setPath(ModelPath)
      .setPayload(UpdateModelInstance)
      .addSuccess(ModelInstance)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a model")
      .annotate(
        OpenApi.Description,
        "Changes the fields given (`null` clears an optional one; `name` and `model_type` cannot be cleared); `account_id` cannot change."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/models/:model_id")
      .setPath(ModelPath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Delete a model")
      .annotate(OpenApi.Description, "Deletes a model that has no deployments (409 while it has).")
  )
  .add(
    HttpApiEndpoint.post("createDeployment", "/v4/models/:model_instance_id/deployments")
      .setPath(InstancePath)
      .setPayload(CreateModelDeployment)
      .addSuccess(ModelDeployment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Create a model deployment")
      .annotate(
        OpenApi.Description,
        "Creates a deployment of a model of its account (else 404), answered `PENDING`; its simulated provisioning then makes it `READY`. Provider settings in `model_creation_parameters` are checked (422)."
      )
  )
  .add(
    HttpApiEndpoint.get("listInstanceDeployments", "/v4/models/:model_instance_id/deployments")
      .setPath(InstancePath)
      .setUrlParams(ModelDeploymentListQuery)
      .addSuccess(V4Page(ModelDeployment))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List the deployments of a model")
      .annotate(
        OpenApi.Description,
        "Lists the model's deployments as a v4 page (`page`, `limit`), by `sort_by` then newest first."
      )
  )
  .add(
    HttpApiEndpoint.get("getInstanceDeployment", "/v4/models/:model_instance_id/deployments/:model_deployment_id")
      .setPath(InstanceDeploymentPath)
      .addSuccess(ModelDeployment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a deployment of a model")
      .annotate(
        OpenApi.Description,
        "Answers the deployment; 404 when it belongs to another model or is not in the caller's accounts."
      )
  )
  .add(
    HttpApiEndpoint.patch("updateDeployment", "/v4/models/:model_instance_id/deployments/:model_deployment_id")
      .setPath(InstanceDeploymentPath)
      .setPayload(UpdateModelDeployment)
      .addSuccess(ModelDeployment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a model deployment")
      .annotate(
        OpenApi.Description,
        "Changes `name`, `deployment_metadata`, `model_creation_parameters` and/or `vendor_configuration` (replaced whole); 404 for a deployment under another model's path."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteDeployment", "/v4/models/:model_instance_id/deployments/:model_deployment_id")
      .setPath(InstanceDeploymentPath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Delete a model deployment")
      .annotate(OpenApi.Description, "Deletes a deployment that no model server serves (409 while one does).")
  )
  .add(
    HttpApiEndpoint.get("getDeployment", "/v4/model-deployments/:model_deployment_id")
      .setPath(DeploymentPath)
      .addSuccess(ModelDeployment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a model deployment by its id")
      .annotate(
        OpenApi.Description,
        "Answers the model deployment, whatever its model; 404 when it is not in the caller's accounts."
      )
  )
  .add(
    HttpApiEndpoint.get("deploymentUsage", "/v4/model-deployments/:model_deployment_id/usage-statistics")
      .setPath(DeploymentPath)
      .setUrlParams(ModelUsageQuery)
      .addSuccess(ModelUsage)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get the usage statistics of a deployment")
      .annotate(
        OpenApi.Description,
        "What the deployment's executions used in `[start_date, end_date)`, in `chunks` equal chunks, oldest first (docs/models.md \"Usage\")."
      )
  )
  .add(
    HttpApiEndpoint.get("modelUsage", "/v4/models/:model_name/usage-statistics")
      .setPath(Schema.Struct({ model_name: Schema.String }))
      .setUrlParams(ModelUsageQuery)
      .addSuccess(ModelUsage)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get the usage statistics of a model")
      .annotate(OpenApi.Description, "The same for every deployment of a model, named by its id or its name.")
  )
  .add(
    HttpApiEndpoint.get("listDeployments", "/v4/model-deployments")
      .setUrlParams(ModelDeploymentListQuery)
      .addSuccess(V4Page(ModelDeployment))
      .annotate(OpenApi.Summary, "List model deployments")
      .annotate(
        OpenApi.Description,
        "Lists the model deployments of the caller's accounts (`account_id` narrows to one) as a v4 page (`page`, `limit`), by `sort_by` then newest first."
      )
  )
  .add(
    HttpApiEndpoint.post("createServer", "/v4/serving")
      .setPayload(CreateModelServer)
      .addSuccess(ModelServer)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Create a model server")
      .annotate(
        OpenApi.Description,
        "Creates a model server serving a deployment of its account (else 404); an `alias` must be unique in the account (else 409)."
      )
  )
  .add(
    serverByAlias("getServerByAlias", "/v4/serving/a/:alias")
      .annotate(OpenApi.Summary, "Get a model server by alias")
      .annotate(OpenApi.Description, "The model server with this alias (the path the platform's SDK calls: `alias.retrieve`).")
  )
  .add(
    serverByAlias("getServerByAliasLegacy", "/v4/serving/alias/:alias")
      .annotate(OpenApi.Summary, "Get a model server by alias (legacy path)")
      .annotate(OpenApi.Description, "The same as `GET /v4/serving/a/{alias}`: the kit's earlier path, kept for its clients.")
      .annotate(OpenApi.Deprecated, true)
  )
  .add(
    HttpApiEndpoint.get("getServer", "/v4/serving/:model_server_id")
      .setPath(ServerPath)
      .addSuccess(ModelServer)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a model server")
      .annotate(OpenApi.Description, "Answers the model server; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.get("getServerDeployment", "/v4/serving/:model_server_id/deployment")
      .setPath(ServerPath)
      .addSuccess(ModelServerDeployment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get the deployment a model server serves")
      .annotate(OpenApi.Description, "Answers `{model_deployment_id}` of the deployment the server serves now; 404 when the server is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.get("listServers", "/v4/serving")
      .setUrlParams(ModelServerListQuery)
      .addSuccess(V4Page(ModelServer))
      .annotate(OpenApi.Summary, "List model servers")
      .annotate(
        OpenApi.Description,
        "Lists the model servers of the caller's accounts (`account_id` narrows to one), newest first, as a v4 page (`page`, `limit`)."
      )
  )
  .add(
    HttpApiEndpoint.put("updateServerBackend", "/v4/serving/:model_server_id/backend")
      .setPath(ServerPath)
      .setPayload(UpdateModelServerBackend)
      .addSuccess(ModelServerUpdateBackendResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Change the deployment a model server serves")
      .annotate(OpenApi.Description, "Serves another deployment of the server's account; the one it served is kept for a rollback.")
  )
  .add(
    HttpApiEndpoint.post("rollbackServer", "/v4/serving/:model_server_id/rollback")
      .setPath(ServerPath)
      .addSuccess(ModelServerRollbackResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Roll back a model server's deployment")
      .annotate(OpenApi.Description, "Serves again the deployment the last backend change replaced (409 when there is none).")
  )
  .annotate(OpenApi.Title, "Models, their deployments and servers")
  .annotate(
    OpenApi.Description,
    "The model registry: models, their deployments with usage statistics, and the model servers that serve deployments."
  )
{}
