/**
 * The processing endpoints (docs/applications.md "Processing"): a stored variant's graph, an
 * unsaved graph, and the registry of the node kinds the kit runs.
 */
import { HttpApiBuilder } from "@effect/platform"
import { CurrentCaller, PlatformApi } from "@platform-kit/api"
import {
  ApplicationNodeSchemaRegistryRecord,
  type Chunk,
  Conflict,
  KnowledgeBaseQuery,
  NodeSchema,
  type ProcessOverrides
} from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { callerAccounts, checkSelectedAccount } from "../../auth/access.js"
import { KnowledgeBasesRepo } from "../../knowledge-bases/KnowledgeBasesRepo.js"
import { ChunksRepo } from "../../knowledge-bases/artifacts/ChunksRepo.js"
import { KnowledgeBaseEmbedder } from "../../knowledge-bases/retrieval/embedding.js"
import { BuiltinEmbeddings } from "../../knowledge-bases/retrieval/embeddingThread.js"
import { Retrieval } from "../../knowledge-bases/retrieval/retrieval.js"
import { VectorIndexes } from "../../knowledge-bases/retrieval/vectorIndex.js"
import { ModelDeploymentsRepo } from "../../models/deployments/ModelDeploymentsRepo.js"
import { recorded } from "../../models/inference/metered.js"
import { ModelResolver } from "../../models/inference/ModelResolver.js"
import { ModelUsageRepo } from "../../models/usage/ModelUsageRepo.js"
import { Ids } from "../../platform/Ids.js"
import { InteractionsRepo } from "../InteractionsRepo.js"
import { VariantsRepo } from "../specs/SpecsRepo.js"
import { type NodeRuntime, nodeKinds } from "./nodes.js"
import { processGraph, type ProcessRequest } from "./process.js"

/** Whether a chunk passes a knowledge-base node's overrides (by artifact id, by artifact name). */
const passes = (overrides: ProcessOverrides | undefined) => {
  if (overrides === undefined) return () => true
  const ids = overrides.artifact_ids_filter
  const names = overrides.artifact_name_regex?.map((pattern) => new RegExp(pattern))
  return (chunk: Chunk) =>
    (ids === undefined || ids.includes(String(chunk.metadata?.artifact_id))) &&
    (names === undefined || names.some((name) => name.test(String(chunk.metadata?.artifact_name ?? ""))))
}

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
  const retrieval = yield* Retrieval
  const knowledgeBases = yield* KnowledgeBasesRepo
  const resolver = yield* ModelResolver
  const variants = yield* VariantsRepo
  const usage = yield* ModelUsageRepo
  const ids = yield* Ids
  const interactions = yield* InteractionsRepo

  /** The node runtime of a request, in `accounts` (the first the one usage is recorded in). */
  const runtimeFor = (
    accounts: ReadonlyArray<string>,
    request: { readonly history?: ReadonlyArray<{ request: string; response: string }> | undefined; readonly overrides?: Readonly<Record<string, ProcessOverrides>> | undefined }
  ) =>
    Effect.map(CurrentCaller, (caller): NodeRuntime => {
      const usageCaller = (account_id: string) => ({ account_id, caller_id: caller.identityId, caller_type: caller.identityType })
      return {
        knowledgeBase: (id) => Effect.asVoid(knowledgeBases.get(id, accounts)),
        retrieve: (id, query, topK, overrides) =>
          Effect.gen(function*() {
            const kb = yield* knowledgeBases.get(id, accounts)
            const narrowed = overrides?.artifact_ids_filter !== undefined || overrides?.artifact_name_regex !== undefined
            const found = yield* retrieval.query(
              kb,
              new KnowledgeBaseQuery({ query: query.length === 0 ? " " : query, ...(narrowed ? {} : { top_k: topK }) }, true),
              usageCaller(kb.account_id)
            )
            return found.chunks.filter(passes(overrides)).slice(0, topK)
          }),
        model: (model) =>
          Effect.map(resolver.resolve(model, accounts), ({ deployment, provider }) =>
            recorded({ ids, usage }, provider, deployment, usageCaller(deployment?.account_id ?? accounts[0]!))),
        history: request.history ?? [],
        overrides: request.overrides ?? {}
      }
    })

  const run = (request: ProcessRequest, accounts: ReadonlyArray<string>, recordedAs: Parameters<typeof processGraph>[2]) =>
    Effect.flatMap(runtimeFor(accounts, request), (runtime) =>
      processGraph(request, runtime, recordedAs).pipe(Effect.provideService(InteractionsRepo, interactions)))

  return {
    process: HttpApiBuilder.handler(PlatformApi, "applications", "process", ({ path, payload }) =>
      Effect.gen(function*() {
        const variant = yield* variants.get(path.application_variant_id, yield* callerAccounts)
        if (variant.version !== "V0") {
          return yield* Effect.fail(
            new Conflict({
              detail: variant.version === "OFFLINE"
                ? `Application variant ${variant.id} is OFFLINE: it does not run on the platform (record its interactions with POST /v4/interactions/)`
                : `Application variant ${variant.id} is AGENTS_SERVICE: the kit runs V0 graphs only so far`
            })
          )
        }
        const caller = yield* CurrentCaller
        return yield* run(
          { nodes: variant.configuration.nodes, edges: variant.configuration.edges, ...payload },
          [variant.account_id],
          {
            application_spec_id: variant.application_spec_id,
            application_variant_id: variant.id,
            account_id: variant.account_id,
            created_by_user_id: caller.identityId,
            created_by_identity_type: caller.identityType
          }
        )
      })),
    processGraph: HttpApiBuilder.handler(PlatformApi, "applications", "processGraph", ({ payload }) =>
      Effect.flatMap(callerAccounts, (accounts) => run(payload, accounts, undefined))),
    schemas: HttpApiBuilder.handler(PlatformApi, "applications", "schemas", ({ urlParams }) =>
      Effect.as(checkSelectedAccount, registry(urlParams.version)))
  }
})

/** What the processing handlers need beyond the applications family's own repositories (the knowledge bases' retrieval, the models). */
export const ProcessLive = Layer.mergeAll(
  Retrieval.DefaultWithoutDependencies,
  VariantsRepo.Default,
  KnowledgeBasesRepo.Default,
  ModelResolver.Default,
  ModelUsageRepo.Default
).pipe(
  Layer.provide(KnowledgeBaseEmbedder.Default),
  // a query embeds its one text where it runs (knowledge-bases/retrieval/embeddingThread.ts)
  Layer.provide(BuiltinEmbeddings.inThread),
  Layer.provide(
    Layer.mergeAll(ChunksRepo.Default, VectorIndexes.Default, ModelDeploymentsRepo.Default, ModelUsageRepo.Default, KnowledgeBasesRepo.Default, ModelResolver.Default)
  )
)
