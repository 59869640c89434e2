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
  )
  .add(
    HttpApiEndpoint.get("list", "/v5/agent-runtime/deployments")
      .setUrlParams(AgentRuntimeDeploymentListQuery)
      .addSuccess(V5List(AgentRuntimeDeployment))
  )
  .add(
    HttpApiEndpoint.get("get", "/v5/agent-runtime/deployments/:deployment_id")
      .setPath(Schema.Struct({ deployment_id: Id }))
      .addSuccess(AgentRuntimeDeployment)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("delete", "/v5/agent-runtime/deployments/:deployment_id")
      .setPath(Schema.Struct({ deployment_id: Id }))
      .addSuccess(AgentRuntimeDeployment)
      .addError(NotFound)
      .annotate(OpenApi.Description, "Takes the deployment down: DELETED, kept readable with its events.")
  )
  .annotate(OpenApi.Title, "Agent runtime deployments")
{}
