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
      .annotate(OpenApi.Description, "The model's reply to `prompt` (a user turn) after `chat_history`.")
  )
  .add(
    inference("completions", "/v4/models/:model_deployment_id/completions")
      .setPayload(CompletionRequest)
      .addSuccess(CompletionResponse)
      .annotate(OpenApi.Description, "The model's continuation of `prompt`.")
  )
  .add(
    inference("embeddings", "/v4/models/:model_deployment_id/embeddings")
      .setPayload(EmbeddingRequest)
      .addSuccess(EmbeddingResponse)
      .annotate(OpenApi.Description, "One vector per text: `embeddings` holds `[text, vector]` pairs, in order.")
  )
  .add(
    inference("rerankings", "/v4/models/:model_deployment_id/rerankings")
      .setPayload(RerankingRequest)
      .addSuccess(RerankingResponse)
      .annotate(OpenApi.Description, "How well each chunk answers `query` (cosine similarity of their embeddings), in the chunks' order.")
  )
  .add(
    modelRunEndpoint("chatCompletionsByModel", "/v4/chat-completions")
      .setPayload(TopLevelChatCompletionRequest)
      .addSuccess(ChatCompletionsResponse)
      .annotate(OpenApi.Description, "A chat completion by the model `model` names (a model server alias, a deployment id, a model's id or name, or `builtin`).")
  )
  .add(
    modelRunEndpoint("completionsByModel", "/v4/completions")
      .setPayload(TopLevelCompletionRequest)
      .addSuccess(CompletionsResponse)
      .annotate(OpenApi.Description, "A completion by the model `model` names (as for chat completions).")
  )
  .add(
    execute("executeDeployment", "/v4/models/:model_instance_id/deployments/:model_deployment_id/execute")
      .setPath(Schema.Struct({ model_instance_id: Id, model_deployment_id: Id }))
  )
  .add(execute("executeServer", "/v4/serving/:model_server_id/execute").setPath(Schema.Struct({ model_server_id: Id })))
  .add(
    execute("executeAlias", "/v4/serving/a/:alias/execute").setPath(Schema.Struct({ alias: Schema.String })).setUrlParams(AliasQuery)
  )
  .add(
    execute("executeAliasUnversioned", "/models/server/alias/:alias/execute")
      .setPath(Schema.Struct({ alias: Schema.String }))
      .setUrlParams(AliasQuery)
      .annotate(OpenApi.Description, "The same as `POST /v4/serving/a/{alias}/execute`: the path the seed names for a server with an alias.")
  )
  .annotate(OpenApi.Title, "Model inference")
{}
