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
      .annotate(OpenApi.Description, "Registers a model (the parent of deployments). `model_group_id` must name a model group of the account.")
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/models")
      .setUrlParams(ModelInstanceListQuery)
      .addSuccess(V4Page(ModelInstance))
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/models/:model_id")
      .setPath(ModelPath)
      .setUrlParams(ModelInstanceGetQuery)
      .addSuccess(ModelInstance)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.patch("update", "/v4/models/:model_id")
      .setPath(ModelPath)
      .setPayload(UpdateModelInstance)
      .addSuccess(ModelInstance)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/models/:model_id")
      .setPath(ModelPath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Description, "Deletes a model that has no deployments (409 while it has).")
  )
  .add(
    HttpApiEndpoint.post("createDeployment", "/v4/models/:model_instance_id/deployments")
      .setPath(InstancePath)
      .setPayload(CreateModelDeployment)
      .addSuccess(ModelDeployment)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listInstanceDeployments", "/v4/models/:model_instance_id/deployments")
      .setPath(InstancePath)
      .setUrlParams(ModelDeploymentListQuery)
      .addSuccess(V4Page(ModelDeployment))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("getInstanceDeployment", "/v4/models/:model_instance_id/deployments/:model_deployment_id")
      .setPath(InstanceDeploymentPath)
      .addSuccess(ModelDeployment)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.patch("updateDeployment", "/v4/models/:model_instance_id/deployments/:model_deployment_id")
      .setPath(InstanceDeploymentPath)
      .setPayload(UpdateModelDeployment)
      .addSuccess(ModelDeployment)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("deleteDeployment", "/v4/models/:model_instance_id/deployments/:model_deployment_id")
      .setPath(InstanceDeploymentPath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Description, "Deletes a deployment that no model server serves (409 while one does).")
  )
  .add(
    HttpApiEndpoint.get("getDeployment", "/v4/model-deployments/:model_deployment_id")
      .setPath(DeploymentPath)
      .addSuccess(ModelDeployment)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("deploymentUsage", "/v4/model-deployments/:model_deployment_id/usage-statistics")
      .setPath(DeploymentPath)
      .setUrlParams(ModelUsageQuery)
      .addSuccess(ModelUsage)
      .addError(NotFound)
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
      .annotate(OpenApi.Description, "The same for every deployment of a model, named by its id or its name.")
  )
  .add(
    HttpApiEndpoint.get("listDeployments", "/v4/model-deployments")
      .setUrlParams(ModelDeploymentListQuery)
      .addSuccess(V4Page(ModelDeployment))
  )
  .add(
    HttpApiEndpoint.post("createServer", "/v4/serving")
      .setPayload(CreateModelServer)
      .addSuccess(ModelServer)
      .addError(NotFound)
      .addError(Conflict)
  )
  .add(
    serverByAlias("getServerByAlias", "/v4/serving/a/:alias")
      .annotate(OpenApi.Description, "The model server with this alias (the path the platform's SDK calls: `alias.retrieve`).")
  )
  .add(
    serverByAlias("getServerByAliasLegacy", "/v4/serving/alias/:alias")
      .annotate(OpenApi.Description, "The same as `GET /v4/serving/a/{alias}`: the kit's earlier path, kept for its clients.")
      .annotate(OpenApi.Deprecated, true)
  )
  .add(
    HttpApiEndpoint.get("getServer", "/v4/serving/:model_server_id")
      .setPath(ServerPath)
      .addSuccess(ModelServer)
      .addError(NotFound)
  )
  .add(HttpApiEndpoint.get("listServers", "/v4/serving").setUrlParams(ModelServerListQuery).addSuccess(V4Page(ModelServer)))
  .add(
    HttpApiEndpoint.put("updateServerBackend", "/v4/serving/:model_server_id/backend")
      .setPath(ServerPath)
      .setPayload(UpdateModelServerBackend)
      .addSuccess(ModelServerUpdateBackendResponse)
      .addError(NotFound)
      .annotate(OpenApi.Description, "Serves another deployment of the server's account; the one it served is kept for a rollback.")
  )
  .add(
    HttpApiEndpoint.post("rollbackServer", "/v4/serving/:model_server_id/rollback")
      .setPath(ServerPath)
      .addSuccess(ModelServerRollbackResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Description, "Serves again the deployment the last backend change replaced (409 when there is none).")
  )
  .annotate(OpenApi.Title, "Models, their deployments and servers")
{}
