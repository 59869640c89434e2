/**
 * Chunks given by the caller, ranked and synthesized (the real v4 SDK's `chunks.rank`,
 * `chunks.synthesis`; docs/knowledge-bases.md "Ranking and synthesizing chunks"): the chunks come in
 * the body (usually a knowledge base query's), nothing is stored.
 */
import { Schema } from "effect"
import { Id, JsonObject, Nullable, Optional } from "./common.js"
import { Chunk } from "./knowledge-base-chunks.js"

/** A chunk as a request gives it (the SDK's `Chunk`): `chunk_id`, `score` and `text` required. */
export const GivenChunk = Schema.Struct({
  chunk_id: Schema.String,
  score: Schema.Number,
  text: Schema.String,
  attachment_url: Optional(Schema.String),
  embedding: Optional(Schema.Array(Schema.Number)),
  metadata: Optional(JsonObject),
  title: Optional(Schema.String),
  user_supplied_metadata: Optional(JsonObject)
}).annotations({ identifier: "GivenChunk" })

/** The cross-encoder models the SDK names (the kit ranks with its built-in reranker whichever is named). */
export const CrossEncoderModel = Schema.Literal("cross-encoder/ms-marco-MiniLM-L-12-v2", "cross-encoder/mmarco-mMiniLMv2-L12-H384-v1")

/** `cross_encoder`, also what a strategy without `method` is. */
export const CrossEncoderRankStrategy = Schema.Struct({
  method: Optional(Schema.Literal("cross_encoder")),
  params: Optional(Schema.Struct({ cross_encoder_model: Optional(CrossEncoderModel) }))
}).annotations({ identifier: "CrossEncoderRankStrategy" })

/** A ROUGE metric: `rouge1` … `rouge9` (n-grams), `rougeL` (longest common subsequence), `rougeLsum` (over lines). */
export const RougeMetric = Schema.String.pipe(
  Schema.pattern(/^(rouge[1-9]|rougeL|rougeLsum)$/, { message: () => "Expected rouge1 … rouge9, rougeL or rougeLsum" })
)

export const RougeRankStrategy = Schema.Struct({
  method: Schema.Literal("rouge"),
  params: Optional(Schema.Struct({
    metric: Optional(RougeMetric),
    score: Optional(Schema.Literal("precision", "recall", "fmeasure"))
  }))
}).annotations({ identifier: "RougeRankStrategy" })

/** A reranking model of the Models API: a deployment of the account, or a model named as `/v4/chat-completions` names one. */
export const ModelRankStrategy = Schema.Struct({
  method: Schema.Literal("model"),
  params: Optional(Schema.Struct({
    base_model_name: Optional(Schema.String.pipe(Schema.minLength(1))),
    model_deployment_id: Optional(Id),
    model_params: Optional(JsonObject)
  }))
}).annotations({ identifier: "ModelRankStrategy" })

/** How chunks are ranked: `method` names the strategy (none: `cross_encoder`). */
export const RankStrategy = Schema.Union(RougeRankStrategy, ModelRankStrategy, CrossEncoderRankStrategy).annotations({
  identifier: "RankStrategy"
})

export const ChunkRankRequest = Schema.Struct({
  query: Schema.String,
  rank_strategy: RankStrategy,
  relevant_chunks: Schema.Array(GivenChunk),
  account_id: Optional(Id),
  top_k: Optional(Schema.Int.pipe(Schema.positive()))
}).annotations({ identifier: "ChunkRankRequest" })

/** The chunks best first, each `score` the strategy's, cut to `top_k`. */
export class RankedChunksResponse extends Schema.Class<RankedChunksResponse>("RankedChunksResponse")({
  relevant_chunks: Schema.Array(Chunk)
}) {}

export const ChunkSynthesisRequest = Schema.Struct({
  chunks: Schema.Array(GivenChunk),
  query: Schema.String
}).annotations({ identifier: "ChunkSynthesisRequest" })

/** A chunk the answer was made from, as LlamaIndex names a node's fields (`id_` on the wire). */
export class SourceNodeNode extends Schema.Class<SourceNodeNode>("SourceNodeNode")({
  id_: Schema.String,
  text: Schema.String,
  embedding: Nullable(Schema.Array(Schema.Number)),
  start_char_idx: Nullable(Schema.Int),
  end_char_idx: Nullable(Schema.Int),
  /** The chunk's metadata (LlamaIndex's other name for a node's metadata). */
  extra_info: Nullable(JsonObject),
  /** SHA-256 of the text, hex. */
  hash: Schema.String,
  relationships: Schema.Record({
    key: Schema.String,
    value: Schema.Struct({ hash: Schema.String, metadata: JsonObject, node_id: Schema.String, node_type: Nullable(Schema.String) })
  })
}) {}

export class SourceNode extends Schema.Class<SourceNode>("SourceNode")({
  node: SourceNodeNode,
  score: Schema.Number
}) {}

/** The answer, the chunks it was made from, and each chunk's metadata by its id. */
export class SynthesizeChunksResponse extends Schema.Class<SynthesizeChunksResponse>("SynthesizeChunksResponse")({
  response: Schema.String,
  metadata: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  source_nodes: Schema.Array(SourceNode)
}) {}
