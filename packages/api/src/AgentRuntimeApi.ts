import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  AgentRuntimeDeployment,
  AgentRuntimeDeploymentListQuery,
  CreateAgentRuntimeDeployment,
  Id,
  NotFound,
  V5List
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

export class AgentRuntimeApi extends HttpApiGroup.make("agentRuntime")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v5/agent-runtime/deployments")
      .setPayload(CreateAgentRuntimeDeployment)
      .addSuccess(AgentRuntimeDeployment)
      .annotate(OpenApi.Summary, "Create an agent runtime deployment")
      .annotate(
        OpenApi.Description,
        "Creates a deployment of `build_id`, answered `PENDING`; its simulated lifecycle then moves it to `DEPLOYING` and `READY`, recording each step in `deploy_events`."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v5/agent-runtime/deployments")
      .setUrlParams(AgentRuntimeDeploymentListQuery)
      .addSuccess(V5List(AgentRuntimeDeployment))
      .annotate(OpenApi.Summary, "List agent runtime deployments")
      .annotate(
        OpenApi.Description,
        "Lists the deployments of the caller's accounts (`account_id` narrows to one) with the v5 cursor; `build_id`, `agent_name` and `preview_label` filter by exact match."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v5/agent-runtime/deployments/:deployment_id")
      .setPath(Schema.Struct({ deployment_id: Id }))
      .addSuccess(AgentRuntimeDeployment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an agent runtime deployment")
      .annotate(
        OpenApi.Description,
        "Answers the deployment with its `deploy_events`; 404 when it is not in the caller's accounts."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v5/agent-runtime/deployments/:deployment_id")
      .setPath(Schema.Struct({ deployment_id: Id }))
      .addSuccess(AgentRuntimeDeployment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete an agent runtime deployment")
      .annotate(OpenApi.Description, "Takes the deployment down: DELETED, kept readable with its events.")
  )
  .annotate(OpenApi.Title, "Agent runtime deployments")
  .annotate(OpenApi.Description, "Agent runtime deployments (v5) of agent builds, their provisioning simulated.")
{}
