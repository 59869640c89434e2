import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  BadGateway,
  ChatCompletionRequest,
  ChatCompletionsResponse,
  CompletionRequest,
  CompletionResponse,
  CompletionsResponse,
  Conflict,
  EmbeddingRequest,
  EmbeddingResponse,
  ExecuteRequest,
  GatewayTimeout,
  GenericModelResponse,
  Id,
  NotFound,
  RerankingRequest,
  RerankingResponse,
  TopLevelChatCompletionRequest,
  TopLevelCompletionRequest,
  UpstreamBadRequest,
  UpstreamRateLimited
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const DeploymentPath = Schema.Struct({ model_deployment_id: Id })

/** A POST that runs a model (an inference endpoint, a knowledge base's query): its errors are the deployment's (404, 409 not ready or not runnable) and its upstream's. */
export const modelRunEndpoint = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path) =>
  HttpApiEndpoint.post(name, path)
    .addError(NotFound)
    .addError(Conflict)
    .addError(UpstreamBadRequest)
    .addError(UpstreamRateLimited)
    .addError(BadGateway)
    .addError(GatewayTimeout)

/** An inference endpoint of one deployment. */
const inference = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path) =>
  modelRunEndpoint(name, path).setPath(DeploymentPath)

/** An execute: the body of the model's request, its answer beside `status` and `status_code`. */
const execute = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path) =>
  modelRunEndpoint(name, path).setPayload(ExecuteRequest).addSuccess(GenericModelResponse)

const AliasQuery = Schema.Struct({ account_id: Schema.optionalWith(Id, { exact: true }) })

/**
 * Running a deployment's model (docs/models.md "Execution"): the real v4 SDK's per-deployment
 * endpoints, the id in the path being the deployment's.
 */
export class InferenceApi extends HttpApiGroup.make("inference")
  .middleware(Authentication)
  .add(
    inference("chatCompletions", "/v4/models/:model_deployment_id/chat-completions")
      .setPayload(ChatCompletionRequest)
      .addSuccess(CompletionResponse)
      .annotate(OpenApi.Summary, "Run a chat completion on a deployment")
      .annotate(OpenApi.Description, "The model's reply to `prompt` (a user turn) after `chat_history`.")
  )
  .add(
    inference("completions", "/v4/models/:model_deployment_id/completions")
      .setPayload(CompletionRequest)
      .addSuccess(CompletionResponse)
      .annotate(OpenApi.Summary, "Run a completion on a deployment")
      .annotate(OpenApi.Description, "The model's continuation of `prompt`.")
  )
  .add(
    inference("embeddings", "/v4/models/:model_deployment_id/embeddings")
      .setPayload(EmbeddingRequest)
      .addSuccess(EmbeddingResponse)
      .annotate(OpenApi.Summary, "Embed texts with a deployment")
      .annotate(OpenApi.Description, "One vector per text: `embeddings` holds `[text, vector]` pairs, in order.")
  )
  .add(
    inference("rerankings", "/v4/models/:model_deployment_id/rerankings")
      .setPayload(RerankingRequest)
      .addSuccess(RerankingResponse)
      .annotate(OpenApi.Summary, "Rerank chunks with a deployment")
      .annotate(OpenApi.Description, "How well each chunk answers `query` (cosine similarity of their embeddings), in the chunks' order.")
  )
  .add(
    modelRunEndpoint("chatCompletionsByModel", "/v4/chat-completions")
      .setPayload(TopLevelChatCompletionRequest)
      .addSuccess(ChatCompletionsResponse)
      .annotate(OpenApi.Summary, "Run a chat completion by model name")
      .annotate(OpenApi.Description, "A chat completion by the model `model` names (a model server alias, a deployment id, a model's id or name, or `builtin`).")
  )
  .add(
    modelRunEndpoint("completionsByModel", "/v4/completions")
      .setPayload(TopLevelCompletionRequest)
      .addSuccess(CompletionsResponse)
      .annotate(OpenApi.Summary, "Run a completion by model name")
      .annotate(OpenApi.Description, "A completion by the model `model` names (as for chat completions).")
  )
  .add(
    execute("executeDeployment", "/v4/models/:model_instance_id/deployments/:model_deployment_id/execute")
      .setPath(Schema.Struct({ model_instance_id: Id, model_deployment_id: Id }))
      .annotate(OpenApi.Summary, "Execute a model deployment")
      .annotate(
        OpenApi.Description,
        "Runs the request in the body on the deployment (the request its model's type takes, or the one its fields tell) and answers the result beside `status` and `status_code`; 404 when the deployment is not this model's."
      )
  )
  .add(
    execute("executeServer", "/v4/serving/:model_server_id/execute")
      .setPath(Schema.Struct({ model_server_id: Id }))
      .annotate(OpenApi.Summary, "Execute a model server")
      .annotate(
        OpenApi.Description,
        "Runs the request in the body on the deployment the model server serves, as an execute of that deployment does."
      )
  )
  .add(
    execute("executeAlias", "/v4/serving/a/:alias/execute")
      .setPath(Schema.Struct({ alias: Schema.String }))
      .setUrlParams(AliasQuery)
      .annotate(OpenApi.Summary, "Execute a model server by alias")
      .annotate(
        OpenApi.Description,
        "Runs the request in the body on the deployment of the model server with this alias, looked for in the `account_id` query's account, else the selected account, else every account of the caller."
      )
  )
  .add(
    execute("executeAliasUnversioned", "/models/server/alias/:alias/execute")
      .setPath(Schema.Struct({ alias: Schema.String }))
      .setUrlParams(AliasQuery)
      .annotate(OpenApi.Summary, "Execute a model server by alias (unversioned path)")
      .annotate(OpenApi.Description, "The same as `POST /v4/serving/a/{alias}/execute`: the path the seed names for a server with an alias.")
  )
  .annotate(OpenApi.Title, "Model inference")
  .annotate(
    OpenApi.Description,
    "Running models: a deployment's chat completions, completions, embeddings and rerankings, completions by model name, and executes."
  )
{}
