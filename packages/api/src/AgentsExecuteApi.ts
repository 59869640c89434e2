import { HttpApiGroup, OpenApi } from "@effect/platform"
import { AgentExecuteRequest, ExecuteAgentResponse } from "@platform-kit/schema"
import { modelRunEndpoint } from "./InferenceApi.js"
import { Authentication } from "./security.js"

/** One stateless step of an agent (docs/models.md "Agents: one step"). */
export class AgentsExecuteApi extends HttpApiGroup.make("agentsExecute")
  .middleware(Authentication)
  .add(
    modelRunEndpoint("execute", "/v4/agents/execute")
      .setPayload(AgentExecuteRequest)
      .addSuccess(ExecuteAgentResponse)
      .annotate(OpenApi.Summary, "Run one step of an agent")
      .annotate(
        OpenApi.Description,
        "One inference step over `messages` with `tools`: `action: \"tool_request\"` with the tool and its JSON arguments, or `action: \"content\"` with the answer. `model` runs as the account's model of that name (a model server alias, a model's name), else as the built-in model. A conversation over the model's context window is a 422 (`type: \"context_length_exceeded\"`)."
      )
  )
  .annotate(OpenApi.Title, "Agents: execute")
  .annotate(OpenApi.Description, "A stateless agent step: the caller keeps the history and runs the tools.")
{}
