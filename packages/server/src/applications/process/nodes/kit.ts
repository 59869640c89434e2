/**
 * What every node kind is made of (docs/applications.md "Processing"): the runtime its steps use,
 * the shape of a kind as the registry lists it and the executor runs it, and the helpers that
 * describe and read a node's configuration. The kinds are in the files beside this one; the
 * registry is `nodeKinds` (../nodes.ts).
 */
import {
  type AgentOperationType,
  type ApplicationFile,
  type Chunk,
  type ConfigField,
  type Conflict,
  NodeInput,
  NodeOutput,
  type NotFound,
  NumberConfigField,
  type ProcessOverrides,
  TextConfigField,
  type UpstreamError
} from "@platform-kit/schema"
import { Effect } from "effect"
import type { Provider } from "../../../models/inference/Provider.js"

/** An HTTP call an external endpoint node makes (external.ts), as the runtime sends it. */
export interface EndpointCall {
  readonly url: URL
  readonly method: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | undefined
  readonly timeoutMs: number
}

/** What the runtime answers of a call: the endpoint's status and its body's text. */
export interface EndpointAnswer {
  readonly status: number
  readonly text: string
}

/** What a node's steps need of the rest of the kit, bound to the request's caller. */
export interface NodeRuntime {
  /** The knowledge base `id` of the caller's accounts (404 naming it when none). */
  readonly knowledgeBase: (id: string) => Effect.Effect<void, NotFound>
  /** Its chunks best for `query`, at most `topK`, narrowed by `overrides`. */
  readonly retrieve: (
    id: string,
    query: string,
    topK: number,
    overrides: ProcessOverrides | undefined
  ) => Effect.Effect<ReadonlyArray<Chunk>, NotFound | Conflict | UpstreamError>
  /** The provider a model string names (docs/models.md "Execution"), its calls recorded as usage. */
  readonly model: (model: string) => Effect.Effect<Provider, NotFound | Conflict>
  /** Application file `id` of the caller's accounts (404 naming it when none) and its bytes (409 when they are gone). */
  readonly file: (id: string) => Effect.Effect<{ readonly file: ApplicationFile; readonly bytes: Uint8Array }, NotFound | Conflict>
  /** Why the server does not let a node call `url` (the allowed hosts, external.ts), or `undefined` when it may. */
  readonly endpointRefusal: (url: URL) => string | undefined
  /** An external endpoint's answer (a timeout is a `GatewayTimeout`, no answer a `BadGateway`). */
  readonly callEndpoint: (call: EndpointCall) => Effect.Effect<EndpointAnswer, UpstreamError>
  /** The conversation before this request. */
  readonly history: ReadonlyArray<{ readonly request: string; readonly response: string }>
  readonly overrides: Readonly<Record<string, ProcessOverrides>>
  /** When the request streams: each piece of a completion node's text, as it comes. */
  readonly onText?: ((nodeId: string, text: string) => Effect.Effect<void>) | undefined
}

/** What a step made: its output fields, and the model tokens it used. */
export interface StepResult {
  readonly outputs: Readonly<Record<string, unknown>>
  readonly input_tokens?: number
  readonly output_tokens?: number
}

export type Step = (inputs: Readonly<Record<string, unknown>>) => Effect.Effect<StepResult, NotFound | Conflict | UpstreamError>

/** A configuration problem, reported with the graph's problems before anything runs. */
export class ConfigurationProblem {
  readonly _tag = "ConfigurationProblem"
  constructor(readonly message: string) {}
}

/** A problem of the request's inputs found by a node's checks (a 422 at `["body", "inputs", node, ...path]`). */
export class InputProblem {
  readonly _tag = "InputProblem"
  constructor(readonly path: ReadonlyArray<string | number>, readonly message: string, readonly input: unknown) {}
}

/** What a node's checks know of the request beyond its configuration. */
export interface NodeContext {
  /** For an input node: what the request's `inputs` give under its id. */
  readonly given: Readonly<Record<string, unknown>>
  /** Its input fields some edge feeds. */
  readonly wired: ReadonlySet<string>
}

/** The value an input node takes from the request: `inputs[node_id][name]`, checked before anything runs. */
export interface RequestInput {
  readonly name: string
  /** What it must be, as the 422 says it. */
  readonly expected: string
  readonly valid: (value: unknown) => boolean
}

export interface NodeKind {
  readonly id: string
  readonly type: string
  /** What its spans are (the platform's operation types). */
  readonly operationType: typeof AgentOperationType.Type
  readonly name: string
  readonly tags: ReadonlyArray<"INPUT_NODE" | "OUTPUT_NODE" | "RAG_NODE">
  readonly configuration: Readonly<Record<string, ConfigField>>
  readonly inputs: Readonly<Record<string, NodeInput>>
  readonly outputs: Readonly<Record<string, NodeOutput>>
  /** An input node's value in the request. */
  readonly requestInput?: RequestInput
  /** Configuration fields required unless an input is wired instead: field → the input's name. */
  readonly orWired?: Readonly<Record<string, string>>
  readonly prepare: (
    nodeId: string,
    configuration: Readonly<Record<string, unknown>>,
    runtime: NodeRuntime,
    context: NodeContext
  ) => Effect.Effect<Step, ConfigurationProblem | InputProblem | NotFound | Conflict>
}

// ---------------------------------------------------------------------------------------------
// Field descriptions

export const text = (label: string, docs: string, required: boolean, advanced = false) =>
  new TextConfigField({ type: "TEXT", label, docs, validation_rules: { required, regex_pattern: null }, is_advanced_configuration: advanced }, true)

export const number = (label: string, docs: string, rules: { min: number; max: number; default: number | null; float?: boolean }) =>
  new NumberConfigField({
    type: "NUMBER",
    label,
    docs,
    validation_rules: { min_value: rules.min, max_value: rules.max, required: false },
    default: rules.default,
    is_advanced_configuration: true,
    is_float: rules.float === true
  }, true)

export const input = (name: string, type: NodeInput["type"], docs: string, required = true) =>
  new NodeInput({ name, label: name, docs, required, type, is_hidden: false }, true)

export const output = (name: string, type: NodeOutput["type"], docs: string) => new NodeOutput({ name, label: name, docs, type }, true)

export const topK = number("Top k", "How many chunks, best first", { min: 1, max: 1000, default: 5 })
export const temperature = number("Temperature", "Sampling temperature", { min: 0, max: 2, default: null, float: true })
export const maxTokens = number("Max tokens", "The most tokens the completion may have", { min: 1, max: 1_000_000, default: null })

// ---------------------------------------------------------------------------------------------
// Reading a configuration

export const configValue = (configuration: Readonly<Record<string, unknown>>, field: string): unknown => {
  const entry = configuration[field]
  return entry !== null && typeof entry === "object" && "value" in entry ? (entry as { value: unknown }).value : undefined
}

export const requiredText = (nodeId: string, configuration: Readonly<Record<string, unknown>>, field: string) => {
  const value = configValue(configuration, field)
  return typeof value === "string" && value.length > 0
    ? Effect.succeed(value)
    : Effect.fail(new ConfigurationProblem(`Node '${nodeId}': configuration '${field}' must be {"value": "<non-empty text>"}`))
}

/** A text field's value, `undefined` when absent or empty. */
export const optionalText = (configuration: Readonly<Record<string, unknown>>, field: string) => {
  const value = configValue(configuration, field)
  return typeof value === "string" && value.length > 0 ? value : undefined
}

export const optionalNumber = (
  nodeId: string,
  configuration: Readonly<Record<string, unknown>>,
  field: string,
  field_: NumberConfigField
) => {
  const value = configValue(configuration, field)
  if (value === undefined || value === null) return Effect.succeed(field_.default ?? undefined)
  const { min_value, max_value } = field_.validation_rules
  return typeof value === "number" && (field_.is_float || Number.isInteger(value)) && value >= min_value && value <= max_value
    ? Effect.succeed(value)
    : Effect.fail(
      new ConfigurationProblem(
        `Node '${nodeId}': configuration '${field}' must be ${field_.is_float ? "a number" : "an integer"} from ${min_value} to ${max_value}`
      )
    )
}

/**
 * What is wrong with a node's configuration by its kind's declared fields (`validation_rules`):
 * every problem, so that a graph's are reported at once before anything runs. A field of
 * `orWired` is required unless the input it names is wired.
 */
export const configurationProblems = (
  kind: NodeKind,
  nodeId: string,
  configuration: Readonly<Record<string, unknown>>,
  wired: ReadonlySet<string> = new Set()
) =>
  Object.entries(kind.configuration).flatMap(([name, field]): Array<string> => {
    const value = configValue(configuration, name)
    const instead = kind.orWired?.[name]
    if (instead !== undefined && (value === undefined || value === null || value === "") && !wired.has(instead)) {
      return [`Node '${nodeId}': configuration '${name}' is required ({"value": …}) unless its input '${instead}' is connected`]
    }
    if (value === undefined || value === null) {
      return field.validation_rules.required ? [`Node '${nodeId}': configuration '${name}' is required ({"value": …})`] : []
    }
    switch (field.type) {
      case "TEXT":
        return typeof value === "string" && (!field.validation_rules.required || value.length > 0)
          ? []
          : [`Node '${nodeId}': configuration '${name}' must be {"value": "<text>"}`]
      case "BOOL":
        return typeof value === "boolean" ? [] : [`Node '${nodeId}': configuration '${name}' must be {"value": true|false}`]
      case "NUMBER": {
        const { max_value, min_value } = field.validation_rules
        return typeof value === "number" && (field.is_float || Number.isInteger(value)) && value >= min_value && value <= max_value
          ? []
          : [`Node '${nodeId}': configuration '${name}' must be ${field.is_float ? "a number" : "an integer"} from ${min_value} to ${max_value}`]
      }
    }
  })

// ---------------------------------------------------------------------------------------------
// Reading values an edge brings

export const asText = (value: unknown): string =>
  typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value)

export const asChunks = (value: unknown): ReadonlyArray<Chunk> => (Array.isArray(value) ? value as ReadonlyArray<Chunk> : [])

export const asStrings = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []

export const isNonEmptyString = (value: unknown): value is string => typeof value === "string" && value.length > 0

export const isNonEmptyStrings = (value: unknown): value is ReadonlyArray<string> =>
  Array.isArray(value) && value.length > 0 && value.every(isNonEmptyString)
