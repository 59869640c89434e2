/**
 * The processing endpoints (docs/applications.md "Processing"): a stored variant's graph, an
 * unsaved graph, and the registry of the node kinds the kit runs.
 */
import { HttpApiBuilder } from "@effect/platform"
import { CurrentCaller, PlatformApi } from "@platform-kit/api"
import { ApplicationNodeSchemaRegistryRecord, NodeSchema } from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { callerAccounts, checkSelectedAccount } from "../../auth/access.js"
import { KnowledgeBasesRepo } from "../../knowledge-bases/KnowledgeBasesRepo.js"
import { ChunksRepo } from "../../knowledge-bases/artifacts/ChunksRepo.js"
import { KnowledgeBaseEmbedder } from "../../knowledge-bases/retrieval/embedding.js"
import { BuiltinEmbeddings } from "../../knowledge-bases/retrieval/embeddingThread.js"
import { Retrieval } from "../../knowledge-bases/retrieval/retrieval.js"
import { VectorIndexes } from "../../knowledge-bases/retrieval/vectorIndex.js"
import { ModelDeploymentsRepo } from "../../models/deployments/ModelDeploymentsRepo.js"
import { ModelResolver } from "../../models/inference/ModelResolver.js"
import { ModelUsageRepo } from "../../models/usage/ModelUsageRepo.js"
import { ApplicationFilesRepo } from "../files/ApplicationFilesRepo.js"
import { InteractionsRepo } from "../InteractionsRepo.js"
import { VariantsRepo } from "../specs/SpecsRepo.js"
import { ExternalEndpoints } from "./externalEndpoints.js"
import { nodeKinds } from "./nodes.js"
import { AgentsServiceRunner } from "./agentsService.js"
import { ApplicationRunner } from "./runner.js"
import { processAnswer } from "./stream.js"

/** The registry as `GET /v4/application-schemas` answers it: the V0 kinds the kit runs; none of the other versions. */
const registry = (version: "OFFLINE" | "V0" | "AGENTS_SERVICE") =>
  version !== "V0" ? {} : Object.fromEntries(
    [...nodeKinds.values()].map((kind) => [
      kind.id,
      new ApplicationNodeSchemaRegistryRecord({
        id: kind.id,
        name: kind.name,
        nodeSchema: new NodeSchema({ configuration: kind.configuration, inputs: kind.inputs, outputs: kind.outputs }, true),
        tags: kind.tags,
        type: kind.type,
        version: "V0"
      }, true)
    ])
  )

export const ProcessHandlers = Effect.gen(function*() {
  const runner = yield* ApplicationRunner
  const variants = yield* VariantsRepo
  return {
    process: HttpApiBuilder.handler(PlatformApi, "applications", "process", ({ path, payload }) =>
      Effect.gen(function*() {
        const variant = yield* variants.get(path.application_variant_id, yield* callerAccounts)
        const caller = yield* CurrentCaller
        return yield* processAnswer((onText) => runner.prepareVariant(variant, payload, caller, {}, onText), payload.stream)
      })),
    processGraph: HttpApiBuilder.handler(PlatformApi, "applications", "processGraph", ({ payload }) =>
      Effect.gen(function*() {
        const accounts = yield* callerAccounts
        const caller = yield* CurrentCaller
        return yield* processAnswer((onText) => runner.prepareGraph(payload, accounts, caller, undefined, onText), payload.stream)
      })),
    schemas: HttpApiBuilder.handler(PlatformApi, "applications", "schemas", ({ urlParams }) =>
      Effect.as(checkSelectedAccount, registry(urlParams.version)))
  }
})

/** The runner, and what the processing handlers need beyond the applications family's own repositories (the knowledge bases' retrieval, the models). */
export const ProcessLive = ApplicationRunner.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(
    AgentsServiceRunner.Default,
    Retrieval.DefaultWithoutDependencies,
    VariantsRepo.Default,
    KnowledgeBasesRepo.Default,
    ModelResolver.Default,
    ModelUsageRepo.Default,
    InteractionsRepo.Default,
    ApplicationFilesRepo.Default,
    ExternalEndpoints.Default
  )),
  Layer.provide(KnowledgeBaseEmbedder.Default),
  // a query embeds its one text where it runs (knowledge-bases/retrieval/embeddingThread.ts)
  Layer.provide(BuiltinEmbeddings.inThread),
  Layer.provide(
    Layer.mergeAll(ChunksRepo.Default, VectorIndexes.Default, ModelDeploymentsRepo.Default, ModelUsageRepo.Default, KnowledgeBasesRepo.Default, ModelResolver.Default)
  )
)
