import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  BadGateway,
  ChatCompletionRequest,
  CompletionRequest,
  CompletionResponse,
  Conflict,
  EmbeddingRequest,
  EmbeddingResponse,
  GatewayTimeout,
  Id,
  NotFound,
  RerankingRequest,
  RerankingResponse,
  UpstreamBadRequest,
  UpstreamRateLimited
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const DeploymentPath = Schema.Struct({ model_deployment_id: Id })

/** An inference endpoint of one deployment: its errors are the deployment's (404, 409 not ready) and its upstream's. */
const inference = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path) =>
  HttpApiEndpoint.post(name, path)
    .setPath(DeploymentPath)
    .addError(NotFound)
    .addError(Conflict)
    .addError(UpstreamBadRequest)
    .addError(UpstreamRateLimited)
    .addError(BadGateway)
    .addError(GatewayTimeout)

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
  .annotate(OpenApi.Title, "Model inference")
{}
