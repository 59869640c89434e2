/**
 * Ranking and synthesizing the chunks a request gives (docs/knowledge-bases.md "Ranking and
 * synthesizing chunks"). Nothing is stored; a model that runs is the caller's (a deployment of
 * their accounts, or one named as `/v4/chat-completions` names it), its calls recorded as usage.
 */
import { CurrentCaller } from "@platform-kit/api"
import {
  Chunk,
  type GivenChunk,
  type ModelDeployment,
  RankedChunksResponse,
  SourceNode,
  SourceNodeNode,
  SynthesizeChunksResponse,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import * as Crypto from "node:crypto"
import { accountsForRead } from "../auth/access.js"
import type { ImplementGroup } from "../http/groups.js"
import { ModelDeploymentsRepo } from "../models/deployments/ModelDeploymentsRepo.js"
import { cosine, embedVector } from "../models/inference/builtin.js"
import { builtinProvider } from "../models/inference/builtinProvider.js"
import { recorded } from "../models/inference/metered.js"
import { ModelResolver } from "../models/inference/ModelResolver.js"
import type { Provider } from "../models/inference/Provider.js"
import { ModelUsageRepo } from "../models/usage/ModelUsageRepo.js"
import { Ids } from "../platform/Ids.js"
import { rouge } from "./rouge.js"
import { compact } from "./synthesis.js"

type Given = typeof GivenChunk.Type

/** The name of the account's model that synthesizes (a model server alias, a model's name); the built-in model without one. */
export const synthesisModelName = "chunk-synthesis"

/** A given chunk as the kit answers chunks: every field present, `score` as given. */
const answered = (chunk: Given, score: number) =>
  new Chunk({
    chunk_id: chunk.chunk_id,
    score,
    text: chunk.text,
    metadata: chunk.metadata ?? null,
    title: chunk.title ?? null,
    attachment_url: chunk.attachment_url ?? null,
    user_supplied_metadata: chunk.user_supplied_metadata ?? null,
    embedding: chunk.embedding ?? null
  }, true)

/** The chunks with their scores, best first (ties keep the given order), the first `topK`. */
const ranked = (chunks: ReadonlyArray<Given>, scores: ReadonlyArray<number>, topK: number | undefined) =>
  new RankedChunksResponse({
    relevant_chunks: chunks.map((chunk, i) => ({ chunk, score: scores[i]!, i }))
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .slice(0, topK)
      .map(({ chunk, score }) => answered(chunk, score))
  }, true)

const missingModel = new ValidationError({
  detail: [
    new ValidationIssue({
      loc: ["body", "rank_strategy", "params"],
      msg: "The model strategy needs model_deployment_id or base_model_name",
      type: "missing",
      input: null
    })
  ]
})

/** A chunk as a source node of the answer (LlamaIndex's `NodeWithScore`). */
const sourceNode = (chunk: Given) =>
  new SourceNode({
    node: new SourceNodeNode({
      id_: chunk.chunk_id,
      text: chunk.text,
      embedding: chunk.embedding ?? null,
      start_char_idx: null,
      end_char_idx: null,
      extra_info: chunk.metadata ?? null,
      hash: Crypto.createHash("sha256").update(chunk.text).digest("hex"),
      relationships: {}
    }, true),
    score: chunk.score
  }, true)

export const ChunksHttp = (group: ImplementGroup) =>
  group("chunks", (handlers) =>
    Effect.gen(function*() {
      const deployments = yield* ModelDeploymentsRepo
      const resolver = yield* ModelResolver
      const recording = { ids: yield* Ids, usage: yield* ModelUsageRepo }

      /** `provider` with its calls recorded for the caller in `accountId`. */
      const recordedFor = (provider: Provider, accountId: string, deployment: ModelDeployment | undefined) =>
        Effect.map(CurrentCaller, (caller) =>
          recorded(recording, provider, deployment, { account_id: accountId, caller_id: caller.identityId, caller_type: caller.identityType }))

      /** What `model` names in `accounts` (ModelResolver), recorded. */
      const named = (model: string, accounts: ReadonlyArray<string>) =>
        Effect.flatMap(resolver.resolve(model, accounts), ({ deployment, provider }) =>
          recordedFor(provider, deployment?.account_id ?? accounts[0]!, deployment))

      /** The reranking model of the strategy: the deployment (the caller's, else 404), else the model named. */
      const rerankerOf = (
        params: { readonly model_deployment_id?: string | undefined; readonly base_model_name?: string | undefined },
        accounts: ReadonlyArray<string>
      ) =>
        Effect.gen(function*() {
          if (params.model_deployment_id !== undefined) {
            const deployment = yield* deployments.getCommitted(params.model_deployment_id, accounts)
            const { provider } = yield* resolver.ofDeployment(deployment)
            return yield* recordedFor(provider, deployment.account_id, deployment)
          }
          if (params.base_model_name !== undefined) return yield* named(params.base_model_name, accounts)
          return yield* Effect.fail(missingModel)
        })

      return handlers
        .handle("rank", ({ payload }) =>
          Effect.gen(function*() {
            // the account named (403 when not the caller's) whatever the strategy
            const accounts = yield* accountsForRead(payload.account_id)
            const strategy = payload.rank_strategy
            const chunks = payload.relevant_chunks
            const texts = chunks.map((chunk) => chunk.text)
            if (strategy.method === "rouge") {
              const metric = strategy.params?.metric ?? "rouge1"
              const score = strategy.params?.score ?? "fmeasure"
              return ranked(chunks, texts.map((text) => rouge(metric, payload.query, text)[score]), payload.top_k)
            }
            if (strategy.method === "model") {
              const provider = yield* rerankerOf(strategy.params ?? {}, accounts)
              if (chunks.length === 0) return ranked(chunks, [], payload.top_k)
              const { vectors } = yield* provider.embed([payload.query, ...texts])
              return ranked(chunks, vectors.slice(1).map((vector) => cosine(vectors[0]!, vector)), payload.top_k)
            }
            // cross_encoder: the built-in reranker (no cross-encoder model runs here)
            const query = embedVector(payload.query)
            return ranked(chunks, texts.map((text) => cosine(query, embedVector(text))), payload.top_k)
          }))
        .handle("synthesis", ({ payload }) =>
          Effect.gen(function*() {
            const accounts = yield* accountsForRead()
            const provider = yield* named(synthesisModelName, accounts).pipe(
              Effect.catchTag("NotFound", () => recordedFor(builtinProvider, accounts[0]!, undefined))
            )
            const response = yield* compact(provider, payload.query, payload.chunks.map((chunk) => chunk.text))
            return new SynthesizeChunksResponse({
              response,
              metadata: Object.fromEntries(payload.chunks.map((chunk) => [chunk.chunk_id, chunk.metadata ?? {}])),
              source_nodes: payload.chunks.map(sourceNode)
            }, true)
          }))
    })).pipe(Layer.provide([ModelDeploymentsRepo.Default, ModelResolver.Default, ModelUsageRepo.Default]))
