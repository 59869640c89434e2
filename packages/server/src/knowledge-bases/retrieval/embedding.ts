/**
 * The embeddings of a knowledge base (docs/knowledge-bases.md "Embeddings"), by its
 * `embedding_config`: `models_api` runs its model deployment (the built-in model or an
 * OpenAI-compatible upstream, docs/models.md; the calls recorded in the deployment's usage
 * statistics); the base variant names models the kit does not carry (`embedding_model`), so the
 * built-in embeddings stand in for them, whatever the name (`BuiltinEmbeddings`: an ingestion's on a
 * thread of their own, embeddingThread.ts).
 */
import { BadGateway, type EmbeddingConfig } from "@platform-kit/schema"
import { Effect } from "effect"
import { recorded, type UsageCaller } from "../../models/inference/metered.js"
import { ModelResolver } from "../../models/inference/ModelResolver.js"
import { ModelDeploymentsRepo } from "../../models/deployments/ModelDeploymentsRepo.js"
import { ModelUsageRepo } from "../../models/usage/ModelUsageRepo.js"
import { Ids } from "../../platform/Ids.js"
import { BuiltinEmbeddings } from "./embeddingThread.js"

/** Texts sent to an upstream in one call. */
const batchSize = 64

export class KnowledgeBaseEmbedder extends Effect.Service<KnowledgeBaseEmbedder>()("@platform-kit/server/KnowledgeBaseEmbedder", {
  effect: Effect.gen(function*() {
    const deployments = yield* ModelDeploymentsRepo
    const resolver = yield* ModelResolver
    const ids = yield* Ids
    const usage = yield* ModelUsageRepo
    const builtin = yield* BuiltinEmbeddings

    /** The embeddings of `texts` under `config` (a base of account `accountId`), calls recorded for `caller`. */
    const embedTexts = (config: EmbeddingConfig, accountId: string, texts: ReadonlyArray<string>, caller: UsageCaller) =>
      Effect.gen(function*() {
        if (config.type !== "models_api") return yield* builtin.embed(texts)
        const deployment = yield* deployments.get(config.model_deployment_id, [accountId])
        const { provider } = yield* resolver.ofDeployment(deployment)
        const metered = recorded({ ids, usage }, provider, deployment, caller)
        const out: Array<Float32Array> = []
        for (let i = 0; i < texts.length; i += batchSize) {
          const sent = texts.slice(i, i + batchSize)
          const answer = yield* metered.embed(sent)
          // an upstream that answers fewer (or more) vectors than it was sent texts is broken: nothing is stored of it
          if (answer.vectors.length !== sent.length) {
            return yield* Effect.fail(
              new BadGateway({ detail: `The embedding model answered ${answer.vectors.length} embeddings for ${sent.length} texts` })
            )
          }
          out.push(...answer.vectors.map((vector) => Float32Array.from(vector)))
        }
        return out
      })

    return { embedTexts } as const
  })
}) {}
