/**
 * Running applications for a caller (docs/applications.md "Processing"): the node runtime bound to
 * an account and an identity (what the knowledge-base and model nodes use, their usage recorded
 * for that identity), and the runs of a stored variant or of a graph. Requests run as their
 * caller; background work (reports) as the identity that asked for it.
 */
import {
  type ApplicationVariant,
  type Chunk,
  Conflict,
  type IdentityType,
  KnowledgeBaseQuery,
  type ProcessOverrides
} from "@platform-kit/schema"
import { Effect } from "effect"
import { KnowledgeBasesRepo } from "../../knowledge-bases/KnowledgeBasesRepo.js"
import { Retrieval } from "../../knowledge-bases/retrieval/retrieval.js"
import { recorded } from "../../models/inference/metered.js"
import { ModelResolver } from "../../models/inference/ModelResolver.js"
import { ModelUsageRepo } from "../../models/usage/ModelUsageRepo.js"
import { Ids } from "../../platform/Ids.js"
import { InteractionsRepo } from "../InteractionsRepo.js"
import type { NodeRuntime } from "./nodes.js"
import { prepareGraph as checkGraph, type ProcessRequest, type Recorded } from "./process.js"

/** Who a run is for: the identity its usage and its interaction are recorded under. */
export interface RunIdentity {
  readonly identityId: string
  readonly identityType: IdentityType
}

/** What a run takes besides the graph. */
export type RunRequest = Omit<ProcessRequest, "nodes" | "edges">

/** Where a streamed run's completion text goes, piece by piece. */
export type OnText = (nodeId: string, text: string) => Effect.Effect<void>

/** Whether a chunk passes a knowledge-base node's overrides (by artifact id, by artifact name). */
export const passes = (overrides: ProcessOverrides | undefined) => {
  if (overrides === undefined) return () => true
  const ids = overrides.artifact_ids_filter
  const names = overrides.artifact_name_regex?.map((pattern) => new RegExp(pattern))
  return (chunk: Chunk) =>
    (ids === undefined || ids.includes(String(chunk.metadata?.artifact_id))) &&
    (names === undefined || names.some((name) => name.test(String(chunk.metadata?.artifact_name ?? ""))))
}

export class ApplicationRunner extends Effect.Service<ApplicationRunner>()("@platform-kit/server/ApplicationRunner", {
  effect: Effect.gen(function*() {
    const retrieval = yield* Retrieval
    const knowledgeBases = yield* KnowledgeBasesRepo
    const resolver = yield* ModelResolver
    const usage = yield* ModelUsageRepo
    const ids = yield* Ids
    const interactions = yield* InteractionsRepo

    /** The node runtime of a run in `accounts` (the first the one the built-in model's usage is recorded in). */
    const runtimeFor = (accounts: ReadonlyArray<string>, identity: RunIdentity, request: RunRequest, onText?: OnText): NodeRuntime => {
      const usageCaller = (account_id: string) => ({ account_id, caller_id: identity.identityId, caller_type: identity.identityType })
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
        overrides: request.overrides ?? {},
        onText
      }
    }

    /**
     * Checks a graph to run in `accounts` for `identity`, recorded as `recordedAs` when given,
     * and answers its run (process.ts's `prepareGraph`); a streamed run hands its completion text to `onText`.
     */
    const prepareGraph = (
      request: ProcessRequest,
      accounts: ReadonlyArray<string>,
      identity: RunIdentity,
      recordedAs: Recorded | undefined,
      onText?: OnText
    ) =>
      Effect.map(
        checkGraph(request, runtimeFor(accounts, identity, request, onText), recordedAs),
        (run) => run.pipe(Effect.provideService(InteractionsRepo, interactions))
      )

    /** Runs a graph in `accounts` for `identity`, recorded as `recordedAs` when given. */
    const runGraph = (
      request: ProcessRequest,
      accounts: ReadonlyArray<string>,
      identity: RunIdentity,
      recordedAs: Recorded | undefined
    ) => Effect.flatten(prepareGraph(request, accounts, identity, recordedAs))

    /**
     * Checks a stored variant to run (a V0 one: OFFLINE and AGENTS_SERVICE are a 409 saying why)
     * for `identity`, recorded as an interaction of its spec (in a thread when `recording` says),
     * and answers its run.
     */
    const prepareVariant = (
      variant: ApplicationVariant,
      request: RunRequest,
      identity: RunIdentity,
      recording: Pick<Recorded, "chat_thread_id" | "interaction_source"> = {},
      onText?: OnText
    ) =>
      variant.version !== "V0"
        ? Effect.fail(
          new Conflict({
            detail: variant.version === "OFFLINE"
              ? `Application variant ${variant.id} is OFFLINE: it does not run on the platform (record its interactions with POST /v4/interactions/)`
              : `Application variant ${variant.id} is AGENTS_SERVICE: the kit runs V0 graphs only so far`
          })
        )
        : prepareGraph(
          { ...request, nodes: variant.configuration.nodes, edges: variant.configuration.edges },
          [variant.account_id],
          identity,
          {
            application_spec_id: variant.application_spec_id,
            application_variant_id: variant.id,
            account_id: variant.account_id,
            created_by_user_id: identity.identityId,
            created_by_identity_type: identity.identityType,
            ...recording
          },
          onText
        )

    /** `prepareVariant`, then its run. */
    const runVariant = (
      variant: ApplicationVariant,
      request: RunRequest,
      identity: RunIdentity,
      recording: Pick<Recorded, "chat_thread_id" | "interaction_source"> = {}
    ) => Effect.flatten(prepareVariant(variant, request, identity, recording))

    return { runtimeFor, prepareGraph, runGraph, prepareVariant, runVariant } as const
  })
}) {}
