import { HttpApiGroup, OpenApi } from "@effect/platform"
import { ChunkRankRequest, ChunkSynthesisRequest, RankedChunksResponse, SynthesizeChunksResponse } from "@platform-kit/schema"
import { modelRunEndpoint } from "./InferenceApi.js"
import { Authentication } from "./security.js"

/**
 * Chunks the caller gives, ranked or synthesized into an answer (docs/knowledge-bases.md "Ranking
 * and synthesizing chunks"). Both may run a model: their errors are a model run's.
 */
export class ChunksApi extends HttpApiGroup.make("chunks")
  .middleware(Authentication)
  .add(
    modelRunEndpoint("rank", "/v4/chunks/rank")
      .setPayload(ChunkRankRequest)
      .addSuccess(RankedChunksResponse)
      .annotate(OpenApi.Summary, "Rank chunks")
      .annotate(
        OpenApi.Description,
        "The chunks ordered best first by `rank_strategy`, each `score` set by it, cut to `top_k`: `cross_encoder` (the built-in reranker), `rouge` (ROUGE-N, -L, -Lsum of the query and each chunk), `model` (a reranking model of the account: 404 when the deployment is not the caller's)."
      )
  )
  .add(
    modelRunEndpoint("synthesis", "/v4/chunks/synthesis")
      .setPayload(ChunkSynthesisRequest)
      .addSuccess(SynthesizeChunksResponse)
      .annotate(OpenApi.Summary, "Answer a query from chunks")
      .annotate(
        OpenApi.Description,
        "The `compact` strategy: as many chunks as fit one prompt answer the query, each next batch refines the answer. The model is the account's model named `chunk-synthesis` (a model server alias, a model's name), else the built-in model."
      )
  )
  .annotate(OpenApi.Title, "Chunks")
  .annotate(OpenApi.Description, "Ranking and synthesizing chunks given in the request (nothing is stored).")
{}
