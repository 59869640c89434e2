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
  type ProcessOverrides,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Effect, Stream } from "effect"
import { KnowledgeBasesRepo } from "../../knowledge-bases/KnowledgeBasesRepo.js"
import { Retrieval } from "../../knowledge-bases/retrieval/retrieval.js"
import { recorded } from "../../models/inference/metered.js"
import { ModelResolver } from "../../models/inference/ModelResolver.js"
import { ModelUsageRepo } from "../../models/usage/ModelUsageRepo.js"
import { Ids } from "../../platform/Ids.js"
import { recordedSpan } from "../../spans/tracer.js"
import { ApplicationFilesRepo } from "../files/ApplicationFilesRepo.js"
import { InteractionsRepo } from "../InteractionsRepo.js"
import { AgentsServiceRunner } from "./agentsService.js"
import { ExternalEndpoints } from "./externalEndpoints.js"
import type { NodeRuntime } from "./nodes.js"
import { prepareGraph as checkGraph, type ProcessRequest, type Recorded } from "./process.js"

/** Who a run is for: the identity its usage and its interaction are recorded under. */
export interface RunIdentity {
  readonly identityId: string
  readonly identityType: IdentityType
}

/**
 * What a run takes besides the graph, `inputs` as the request gives them: a V0 graph's per input
 * node (`{node_id: {field: value}}`, checked by `graphInputs`), an agents-service variant's flat.
 */
export type RunRequest = Omit<ProcessRequest, "nodes" | "edges" | "inputs"> & { readonly inputs: Readonly<Record<string, unknown>> }

/** A graph and what its run takes. */
export type GraphRequest = RunRequest & Pick<ProcessRequest, "nodes" | "edges">

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A V0 request's inputs, each an object of its input node's fields (422 at each that is not). */
const graphInputs = (inputs: RunRequest["inputs"]) => {
  const wrong = Object.entries(inputs).filter(([, value]) => !isObject(value))
  return wrong.length === 0
    ? Effect.succeed(inputs as ProcessRequest["inputs"])
    : Effect.fail(
      new ValidationError({
        detail: wrong.map(([node, value]) =>
          new ValidationIssue({
            loc: ["body", "inputs", node],
            msg: `A V0 application takes its inputs per input node: {"${node}": {"input-text": "…"}}`,
            type: "dict_type",
            input: value
          })
        )
      })
    )
}

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
    const files = yield* ApplicationFilesRepo
    const endpoints = yield* ExternalEndpoints
    const agentsService = yield* AgentsServiceRunner

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
        file: (id) =>
          Effect.flatMap(files.content(id, accounts), ({ bytes, file }) =>
            Stream.runCollect(bytes).pipe(
              Effect.map((parts) => ({ file, bytes: Buffer.concat([...parts]) })),
              Effect.mapError(() => new Conflict({ detail: `Application file ${id} cannot be read: its content is gone` }))
            )),
        endpointRefusal: endpoints.refusal,
        callEndpoint: endpoints.call,
        history: request.history ?? [],
        overrides: request.overrides ?? {},
        onText
      }
    }

    /**
     * A run as the root span of the kit's own trace of it (spans/tracer.ts), in the variant's
     * account (else `accountId`): a V0 graph's nodes are its children (process.ts), an agent's
     * call its `agent.rpc` child.
     */
    const traced = <A extends Record<string, unknown>, E, R>(
      run: Effect.Effect<A, E, R>,
      accountId: string,
      identity: RunIdentity,
      recordedAs: Recorded | undefined,
      inputs: unknown,
      onText: OnText | undefined
    ) =>
      recordedSpan(run, "application.process", {
        accountId: recordedAs?.account_id ?? accountId,
        createdBy: { id: identity.identityId, type: identity.identityType },
        variantId: recordedAs?.application_variant_id,
        type: "AGENT_WORKFLOW",
        attributes: {
          application_spec_id: recordedAs?.application_spec_id ?? null,
          application_variant_id: recordedAs?.application_variant_id ?? null,
          streamed: onText !== undefined
        },
        input: inputs,
        output: (answer) => answer
      })

    /**
     * Checks a graph to run in `accounts` for `identity`, recorded as `recordedAs` when given,
     * and answers its run (process.ts's `prepareGraph`); a streamed run hands its completion text to `onText`.
     */
    const prepareGraph = (
      request: GraphRequest,
      accounts: ReadonlyArray<string>,
      identity: RunIdentity,
      recordedAs: Recorded | undefined,
      onText?: OnText
    ) =>
      Effect.flatMap(graphInputs(request.inputs), (inputs) =>
        Effect.map(
          checkGraph({ ...request, inputs }, runtimeFor(accounts, identity, request, onText), recordedAs),
          (run) => traced(Effect.provideService(run, InteractionsRepo, interactions), accounts[0]!, identity, recordedAs, inputs, onText)
        ))

    /** Runs a graph in `accounts` for `identity`, recorded as `recordedAs` when given. */
    const runGraph = (
      request: GraphRequest,
      accounts: ReadonlyArray<string>,
      identity: RunIdentity,
      recordedAs: Recorded | undefined
    ) => Effect.flatten(prepareGraph(request, accounts, identity, recordedAs))

    /**
     * Checks a stored variant to run for `identity` (a V0 graph; an AGENTS_SERVICE variant through
     * the agent it names, agentsService.ts; an OFFLINE one is a 409 saying why), recorded as an
     * interaction of its spec (in a thread when `recording` says), and answers its run.
     */
    const prepareVariant = (
      variant: ApplicationVariant,
      request: RunRequest,
      identity: RunIdentity,
      recording: Pick<Recorded, "chat_thread_id" | "interaction_source"> = {},
      onText?: OnText
    ) => {
      const recordedAs: Recorded = {
        application_spec_id: variant.application_spec_id,
        application_variant_id: variant.id,
        account_id: variant.account_id,
        created_by_user_id: identity.identityId,
        created_by_identity_type: identity.identityType,
        ...recording
      }
      switch (variant.version) {
        case "OFFLINE":
          return Effect.fail(
            new Conflict({
              detail: `Application variant ${variant.id} is OFFLINE: it does not run on the platform (record its interactions with POST /v4/interactions/)`
            })
          )
        case "AGENTS_SERVICE":
          return Effect.map(
            agentsService.prepare(variant, request, recordedAs, onText),
            (run) => traced(run, variant.account_id, identity, recordedAs, request.inputs, onText)
          )
        case "V0":
          return prepareGraph(
            { ...request, nodes: variant.configuration.nodes, edges: variant.configuration.edges },
            [variant.account_id],
            identity,
            recordedAs,
            onText
          )
      }
    }

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
