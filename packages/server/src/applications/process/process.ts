/**
 * Processing a V0 graph (docs/applications.md "Processing"): the graph is checked whole before any
 * node runs (validation, node kinds the kit runs, edges between fields the kinds have, each node's
 * configuration and what it names, the request's inputs); then the nodes run in dependency order,
 * each on the values its edges bring; the output nodes' fields are the answer. A process of a
 * stored variant is recorded as one interaction, with each node's latency, the model tokens, and
 * the error when a node failed.
 */
import {
  ApplicationGraphError,
  ApplicationGraphInvalid,
  ApplicationInteraction,
  BadGateway,
  type ApplicationEdge,
  type ApplicationNode,
  type Conflict,
  GatewayTimeout,
  type HistoryTurn,
  type IdentityType,
  MessageSpan,
  NodeLatency,
  type NotFound,
  type ProcessOverrides,
  type SpanType,
  UpstreamBadRequest,
  type UpstreamError,
  UpstreamRateLimited,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Clock, Effect, Exit, Option } from "effect"
import { freshIdentity, Ids } from "../../platform/Ids.js"
import { recordedSpan } from "../../spans/tracer.js"
import { type GraphProblem, isInputNode, validateGraph } from "../graph.js"
import { InteractionsDeferred, InteractionsRepo } from "../InteractionsRepo.js"
import { ConfigurationProblem, configurationProblems, InputProblem, type NodeKind, type NodeRuntime, nodeKinds, type Step } from "./nodes.js"

export interface ProcessRequest {
  readonly nodes: ReadonlyArray<ApplicationNode>
  readonly edges: ReadonlyArray<ApplicationEdge>
  readonly inputs: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  readonly history?: ReadonlyArray<HistoryTurn> | undefined
  readonly overrides?: Readonly<Record<string, ProcessOverrides>> | undefined
  readonly operation_metadata?: Readonly<Record<string, unknown>> | undefined
}

/** The stored variant a process runs, and who runs it: its interaction is recorded under them. */
export interface Recorded {
  readonly application_spec_id: string
  readonly application_variant_id: string
  readonly account_id: string
  readonly created_by_user_id: string
  readonly created_by_identity_type: IdentityType
  /** The chat thread the process is a turn of. */
  readonly chat_thread_id?: string | undefined
  readonly interaction_source?: "SGP_CHAT" | "EVALUATION" | undefined
}

const invalid = (problems: ReadonlyArray<GraphProblem>) =>
  new ApplicationGraphInvalid({
    errors: problems.map((problem) => new ApplicationGraphError(problem, true)),
    service_error_code: "APPLICATION_BUILDER_VALIDATION_ERROR"
  }, true)

/** The problems of a graph the kit is to run, beyond validation's: kinds, fields, output nodes. */
const runProblems = (nodes: ReadonlyArray<ApplicationNode>, edges: ReadonlyArray<ApplicationEdge>): Array<GraphProblem> => {
  const problems: Array<GraphProblem> = []
  const kindOf = new Map<string, NodeKind>()
  for (const node of nodes) {
    const kind = nodeKinds.get(node.application_node_schema_id)
    if (kind === undefined) {
      problems.push({
        error_code: "INVALID_APPLICATION_UNSUPPORTED_NODE",
        message: `Node '${node.id}': '${node.application_node_schema_id}' is not a node kind the kit runs (GET /v4/application-schemas?version=V0 lists them)`
      })
    } else kindOf.set(node.id, kind)
  }
  if (!nodes.some((node) => kindOf.get(node.id)?.tags.includes("OUTPUT_NODE"))) {
    problems.push({ error_code: "INVALID_APPLICATION_NO_OUTPUT_NODE", message: "The graph has no output node: nothing to answer with" })
  }
  for (const edge of edges) {
    const from = kindOf.get(edge.from_node)
    const to = kindOf.get(edge.to_node)
    if (from !== undefined && !(edge.from_field in from.outputs)) {
      problems.push({
        error_code: "INVALID_APPLICATION_NODE_CONFIGURATION",
        message: `Edge from '${edge.from_node}.${edge.from_field}': ${from.id} has no output '${edge.from_field}' (it has ${Object.keys(from.outputs).join(", ") || "none"})`
      })
    }
    if (to !== undefined && !(edge.to_field in to.inputs)) {
      problems.push({
        error_code: "INVALID_APPLICATION_NODE_CONFIGURATION",
        message: `Edge to '${edge.to_node}.${edge.to_field}': ${to.id} has no input '${edge.to_field}' (it has ${Object.keys(to.inputs).join(", ") || "none"})`
      })
    }
  }
  for (const node of nodes) {
    const kind = kindOf.get(node.id)
    for (const field of Object.values(kind?.inputs ?? {})) {
      if (field.required && !edges.some((edge) => edge.to_node === node.id && edge.to_field === field.name)) {
        problems.push({
          error_code: "INVALID_APPLICATION_NODE_CONFIGURATION",
          message: `Node '${node.id}': its input '${field.name}' is connected to no edge`
        })
      }
    }
  }
  return problems
}

/** Nodes in an order where each comes after every node it takes a value from (the graph has no cycle). */
const dependencyOrder = (nodes: ReadonlyArray<ApplicationNode>, edges: ReadonlyArray<ApplicationEdge>) => {
  const waiting = new Map(nodes.map((node) => [node.id, new Set(edges.filter((e) => e.to_node === node.id).map((e) => e.from_node))]))
  const order: Array<ApplicationNode> = []
  while (order.length < nodes.length) {
    const ready = nodes.filter((node) => !order.includes(node) && waiting.get(node.id)!.size === 0)
    for (const node of ready) {
      order.push(node)
      for (const pending of waiting.values()) pending.delete(node.id)
    }
  }
  return order
}

/** A node's operation type as a span type (the guardrails' two are one span type). */
const spanTypeOf = (operation: NodeKind["operationType"]): SpanType =>
  operation === "INPUT_GUARDRAIL" || operation === "OUTPUT_GUARDRAIL" ? "GUARDRAIL" : operation

/** The upstream's error, saying which node it came from. */
const fromNode = (nodeId: string, error: UpstreamError): UpstreamError => {
  const detail = `Node '${nodeId}': ${error.detail}`
  switch (error._tag) {
    case "UpstreamBadRequest":
      return new UpstreamBadRequest({ detail })
    case "UpstreamRateLimited":
      return new UpstreamRateLimited({ detail })
    case "BadGateway":
      return new BadGateway({ detail })
    case "GatewayTimeout":
      return new GatewayTimeout({ detail })
  }
}

/**
 * Checks `request`'s graph whole (the failures a request answers before anything runs), and answers
 * the run: the nodes with `runtime`, the interaction recorded when `recorded` names a stored
 * variant; the run answers the output nodes' fields with `session_data` and
 * `application_interaction_id`.
 */
export const prepareGraph = (request: ProcessRequest, runtime: NodeRuntime, recorded: Recorded | undefined) =>
  Effect.gen(function*() {
    const problems = [...validateGraph(request.nodes, request.edges), ...runProblems(request.nodes, request.edges)]
    if (problems.length > 0) return yield* Effect.fail(invalid(problems))

    // each input node's value in the request's inputs, before anything else is looked at
    const missing = request.nodes.filter(isInputNode).flatMap((node) => {
      const wanted = nodeKinds.get(node.application_node_schema_id)!.requestInput
      if (wanted === undefined) return []
      const value = request.inputs[node.id]?.[wanted.name]
      if (wanted.valid(value)) return []
      return [
        new ValidationIssue({
          loc: ["body", "inputs", node.id, wanted.name],
          msg: `Input node '${node.id}' needs ${wanted.expected}: {"${node.id}": {"${wanted.name}": …}}`,
          type: value === undefined || value === null ? "missing" : "value_error",
          input: request.inputs[node.id] ?? null
        })
      ]
    })
    if (missing.length > 0) return yield* Effect.fail(new ValidationError({ detail: missing }))

    // every node's configuration and what it names, before any node runs
    const steps = new Map<string, Step>()
    const problemsOfNodes: Array<GraphProblem> = []
    const inputProblems: Array<ValidationIssue> = []
    for (const node of request.nodes) {
      const kind = nodeKinds.get(node.application_node_schema_id)!
      const wired = new Set(request.edges.filter((edge) => edge.to_node === node.id).map((edge) => edge.to_field))
      const declared = configurationProblems(kind, node.id, node.configuration ?? {}, wired)
      if (declared.length > 0) {
        problemsOfNodes.push(...declared.map((message) => ({ error_code: "INVALID_APPLICATION_NODE_CONFIGURATION" as const, message })))
        continue
      }
      const context = { given: request.inputs[node.id] ?? {}, wired }
      const prepared = yield* Effect.either(kind.prepare(node.id, node.configuration ?? {}, runtime, context))
      if (prepared._tag === "Right") steps.set(node.id, prepared.right)
      else if (prepared.left instanceof ConfigurationProblem) {
        problemsOfNodes.push({ error_code: "INVALID_APPLICATION_NODE_CONFIGURATION", message: prepared.left.message })
      } else if (prepared.left instanceof InputProblem) {
        const { input, message, path } = prepared.left
        inputProblems.push(new ValidationIssue({ loc: ["body", "inputs", node.id, ...path], msg: message, type: "value_error", input }))
      } else return yield* Effect.fail(prepared.left as NotFound | Conflict)
    }
    if (problemsOfNodes.length > 0) return yield* Effect.fail(invalid(problemsOfNodes))
    if (inputProblems.length > 0) return yield* Effect.fail(new ValidationError({ detail: inputProblems }))

    // every check passed: what runs the nodes and records the interaction
    return Effect.gen(function*() {
      const startedMs = yield* Clock.currentTimeMillis
      const started = performance.now()
      const outputs = new Map<string, Readonly<Record<string, unknown>>>()
      const latencies: Array<NodeLatency> = []
      const ids = yield* Ids
      const spans: Array<MessageSpan> = []
      let inputTokens = 0
      let outputTokens = 0
      const answer: Record<string, unknown> = {}
      const run = Effect.gen(function*() {
        for (const node of dependencyOrder(request.nodes, request.edges)) {
          const values: Record<string, unknown> = isInputNode(node) ? { ...request.inputs[node.id] } : {}
          for (const edge of request.edges.filter((e) => e.to_node === node.id)) values[edge.to_field] = outputs.get(edge.from_node)?.[edge.from_field]
          const at = performance.now()
          const spanStart = new Date(yield* Clock.currentTimeMillis).toISOString()
          const span = (status: "SUCCESS" | "ERROR", output: Record<string, unknown> | null, metadata: Record<string, unknown> | null) =>
            Effect.map(ids.make, (id) =>
              spans.push(
                new MessageSpan({
                  id,
                  application_interaction_id: "",
                  node_id: node.id,
                  operation_type: nodeKinds.get(node.application_node_schema_id)!.operationType,
                  operation_status: status,
                  start_timestamp: spanStart,
                  duration_ms: Math.round(performance.now() - at),
                  operation_input: values,
                  operation_output: output,
                  operation_metadata: metadata,
                  operation_expected: null
                }, true)
              ))
          const kind = nodeKinds.get(node.application_node_schema_id)!
          const stepped = Effect.mapError(steps.get(node.id)!(values), (error) =>
            error._tag === "NotFound" || error._tag === "Conflict" ? error : fromNode(node.id, error))
          // the node in the kit's own trace of the process (spans/tracer.ts; the root is runner.ts's)
          const result = yield* recordedSpan(stepped, "application.node", {
            type: spanTypeOf(kind.operationType),
            attributes: { node_id: node.id, node_kind: node.application_node_schema_id },
            input: values,
            output: (result) => result.outputs,
            attributesOf: (result) => ({ input_tokens: result.input_tokens ?? null, output_tokens: result.output_tokens ?? null })
          }).pipe(
            Effect.tapError((error) => span("ERROR", null, { error: error.detail }))
          )
          yield* span("SUCCESS", { ...result.outputs }, null)
          latencies.push(new NodeLatency({ node_id: node.id, duration_ms: Math.round(performance.now() - at) }, true))
          inputTokens += result.input_tokens ?? 0
          outputTokens += result.output_tokens ?? 0
          outputs.set(node.id, result.outputs)
          if (nodeKinds.get(node.application_node_schema_id)!.tags.includes("OUTPUT_NODE")) Object.assign(answer, result.outputs)
        }
      })
      const exit = yield* Effect.exit(run)

      let interactionId: string | null = null
      if (recorded !== undefined) {
        const [id, created_at] = yield* freshIdentity
        interactionId = id
        const failed = errorOf(exit)
        // written now, unless the caller takes it to write later (InteractionsDeferred)
        const deferred = yield* Effect.serviceOption(InteractionsDeferred)
        const write = (interaction: ApplicationInteraction, interactionSpans: ReadonlyArray<MessageSpan>) =>
          Option.isSome(deferred)
            ? Effect.sync(() => deferred.value.defer(interaction, interactionSpans))
            : Effect.asVoid(Effect.flatMap(InteractionsRepo, (interactions) => interactions.insert(interaction, interactionSpans)))
        yield* write(
          new ApplicationInteraction({
            id,
            application_spec_id: recorded.application_spec_id,
            application_variant_id: recorded.application_variant_id,
            start_timestamp: new Date(startedMs).toISOString(),
            duration_ms: Math.round(performance.now() - started),
            input_tokens: inputTokens,
            output_tokens: outputTokens,
            error: Exit.isSuccess(exit) ? null : typeof failed?.detail === "string" ? failed.detail : "The process failed",
            user_id: null,
            node_latencies: latencies,
            feedback: null,
            input: { ...request.inputs },
            output: Exit.isSuccess(exit) ? { ...answer } : {},
            operation_metadata: request.operation_metadata === undefined ? null : { ...request.operation_metadata },
            chat_thread_id: recorded.chat_thread_id ?? null,
            interaction_source: recorded.interaction_source ?? null,
            account_id: recorded.account_id,
            created_by_user_id: recorded.created_by_user_id,
            created_by_identity_type: recorded.created_by_identity_type,
            created_at
          }, true),
          spans.map((span) => new MessageSpan({ ...span, application_interaction_id: id }, true))
        )
      }
      yield* exit
      return { ...answer, session_data: null, application_interaction_id: interactionId } as Record<string, unknown>
    })
  })

/** `prepareGraph`, then the run it answers. */
export const processGraph = (request: ProcessRequest, runtime: NodeRuntime, recorded: Recorded | undefined) =>
  Effect.flatten(prepareGraph(request, runtime, recorded))

/** The typed failure of a failed exit, if it failed with one. */
const errorOf = <E>(exit: Exit.Exit<unknown, E>): { readonly detail?: unknown } | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  return failure as { readonly detail?: unknown } | undefined
}
