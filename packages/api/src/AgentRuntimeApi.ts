import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./security.js"

export class AgentRuntimeApi extends HttpApiGroup.make("agentRuntime")
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Agent runtime deployments")
{}
