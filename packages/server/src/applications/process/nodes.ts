/**
 * The node kinds the kit runs (docs/applications.md "Processing"): for each, what
 * `GET /v4/application-schemas` says of it (configuration fields, inputs, outputs, tags) and how it
 * runs. The executor (process.ts) and the registry endpoint read this one list.
 *
 * A node's configuration is `{field: {value: …}}`; `prepare` checks it and what it names (a
 * knowledge base, a model) before any node runs, and answers the node's step.
 */
import {
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
import { Effect, Stream } from "effect"
import { cosine, embedVector } from "../../models/inference/builtin.js"
import type { Message, Provider } from "../../models/inference/Provider.js"
import { render } from "./mustache.js"

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

export interface NodeKind {
  readonly id: string
  readonly type: string
  /** What its spans are (the platform's operation types). */
  readonly operationType: "TEXT_INPUT" | "TEXT_OUTPUT" | "KB_RETRIEVAL" | "RERANKING" | "PROMPT_ENGINEERING" | "COMPLETION"
  readonly name: string
  readonly tags: ReadonlyArray<"INPUT_NODE" | "OUTPUT_NODE" | "RAG_NODE">
  readonly configuration: Readonly<Record<string, ConfigField>>
  readonly inputs: Readonly<Record<string, NodeInput>>
  readonly outputs: Readonly<Record<string, NodeOutput>>
  readonly prepare: (
    nodeId: string,
    configuration: Readonly<Record<string, unknown>>,
    runtime: NodeRuntime
  ) => Effect.Effect<Step, ConfigurationProblem | NotFound | Conflict>
}

// ---------------------------------------------------------------------------------------------
// Field descriptions

const text = (label: string, docs: string, required: boolean) =>
  new TextConfigField({ type: "TEXT", label, docs, validation_rules: { required, regex_pattern: null }, is_advanced_configuration: false }, true)

const number = (label: string, docs: string, rules: { min: number; max: number; default: number | null; float?: boolean }) =>
  new NumberConfigField({
    type: "NUMBER",
    label,
    docs,
    validation_rules: { min_value: rules.min, max_value: rules.max, required: false },
    default: rules.default,
    is_advanced_configuration: true,
    is_float: rules.float === true
  }, true)

const input = (name: string, type: NodeInput["type"], docs: string, required = true) =>
  new NodeInput({ name, label: name, docs, required, type, is_hidden: false }, true)

const output = (name: string, type: NodeOutput["type"], docs: string) => new NodeOutput({ name, label: name, docs, type }, true)

// ---------------------------------------------------------------------------------------------
// Reading a configuration

const configValue = (configuration: Readonly<Record<string, unknown>>, field: string): unknown => {
  const entry = configuration[field]
  return entry !== null && typeof entry === "object" && "value" in entry ? (entry as { value: unknown }).value : undefined
}

const requiredText = (nodeId: string, configuration: Readonly<Record<string, unknown>>, field: string) => {
  const value = configValue(configuration, field)
  return typeof value === "string" && value.length > 0
    ? Effect.succeed(value)
    : Effect.fail(new ConfigurationProblem(`Node '${nodeId}': configuration '${field}' must be {"value": "<non-empty text>"}`))
}

const optionalNumber = (
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
 * every problem, so that a graph's are reported at once before anything runs.
 */
export const configurationProblems = (kind: NodeKind, nodeId: string, configuration: Readonly<Record<string, unknown>>) =>
  Object.entries(kind.configuration).flatMap(([name, field]): Array<string> => {
    const value = configValue(configuration, name)
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

const asText = (value: unknown): string =>
  typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value)

const asChunks = (value: unknown): ReadonlyArray<Chunk> => (Array.isArray(value) ? value as ReadonlyArray<Chunk> : [])

// ---------------------------------------------------------------------------------------------
// The kinds

const topK = number("Top k", "How many chunks, best first", { min: 1, max: 1000, default: 5 })
const temperature = number("Temperature", "Sampling temperature", { min: 0, max: 2, default: null, float: true })
const maxTokens = number("Max tokens", "The most tokens the completion may have", { min: 1, max: 1_000_000, default: null })

const textInput: NodeKind = {
  id: "text_input_schema",
  type: "TEXT_INPUT_NODE",
  operationType: "TEXT_INPUT",
  name: "Text input",
  tags: ["INPUT_NODE"],
  configuration: { "input-text": text("Label", "What the input asks for (shown to a user)", false) },
  inputs: {},
  outputs: { "input-text": output("input-text", "TEXT", "The text given in the request's inputs under this node's id") },
  // the value comes from the request (process.ts), checked there
  prepare: () => Effect.succeed((inputs) => Effect.succeed({ outputs: { "input-text": inputs["input-text"] } }))
}

const textOutput: NodeKind = {
  id: "text_output_schema",
  type: "TEXT_OUTPUT_NODE",
  operationType: "TEXT_OUTPUT",
  name: "Text output",
  tags: ["OUTPUT_NODE"],
  configuration: { completion: text("Label", "What the output shows (shown to a user)", false) },
  inputs: {
    "output-text": input("output-text", "TEXT", "The answer"),
    metadata: input("metadata", "CHUNK_ARRAY", "What the answer rests on (chunks)", false)
  },
  outputs: {},
  prepare: () => Effect.succeed((inputs) => Effect.succeed({ outputs: inputs }))
}

const knowledgeBase: NodeKind = {
  id: "knowledge_base_schema",
  type: "KNOWLEDGE_BASE_NODE",
  operationType: "KB_RETRIEVAL",
  name: "Knowledge base",
  tags: ["RAG_NODE"],
  configuration: { kb_id: text("Knowledge base", "The id of a knowledge base of the account", true), top_k: topK },
  inputs: { query: input("query", "TEXT", "What to retrieve chunks for") },
  outputs: { chunks: output("chunks", "CHUNK_ARRAY", "The best chunks, best first") },
  prepare: (nodeId, configuration, runtime) =>
    Effect.gen(function*() {
      const kbId = yield* requiredText(nodeId, configuration, "kb_id")
      const k = (yield* optionalNumber(nodeId, configuration, "top_k", topK))!
      yield* runtime.knowledgeBase(kbId)
      const overrides = runtime.overrides[nodeId]
      return (inputs) =>
        Effect.map(runtime.retrieve(kbId, asText(inputs.query), k, overrides), (chunks) => ({ outputs: { chunks } }))
    })
}

/**
 * The built-in reranker: each chunk scored by the cosine of the built-in embeddings of the prompt
 * and of its text (deterministic); a reranking model's own embeddings when the node names one.
 */
const reranker: NodeKind = {
  id: "reranker_schema",
  type: "RERANKER_NODE",
  operationType: "RERANKING",
  name: "Reranker",
  tags: ["RAG_NODE"],
  configuration: {
    reranking_model_id: text("Reranking model", "A model (deployment id, alias, name); the built-in reranker when left out", false),
    top_k: topK
  },
  inputs: { chunks: input("chunks", "CHUNK_ARRAY", "The chunks to order"), prompt: input("prompt", "TEXT", "What they are ordered for") },
  outputs: { chunks: output("chunks", "CHUNK_ARRAY", "The best chunks, best first") },
  prepare: (nodeId, configuration, runtime) =>
    Effect.gen(function*() {
      const k = (yield* optionalNumber(nodeId, configuration, "top_k", topK))!
      const modelId = configValue(configuration, "reranking_model_id")
      const provider = typeof modelId === "string" && modelId.length > 0 ? yield* runtime.model(modelId) : undefined
      return (inputs) =>
        Effect.gen(function*() {
          const chunks = asChunks(inputs.chunks)
          const prompt = asText(inputs.prompt)
          const scores = provider === undefined
            ? chunks.map((chunk) => cosine(embedVector(prompt), embedVector(chunk.text)))
            : yield* Effect.map(provider.embed([prompt, ...chunks.map((chunk) => chunk.text)]), ({ vectors }) =>
              vectors.slice(1).map((vector) => cosine(vectors[0]!, vector)))
          const ranked = chunks.map((chunk, i) => ({ chunk, score: scores[i]! }))
            .sort((a, b) => b.score - a.score)
            .slice(0, k)
            .map(({ chunk, score }) => ({ ...chunk, score }))
          return { outputs: { chunks: ranked } }
        })
    })
}

const promptEngineering: NodeKind = {
  id: "prompt_engineering_schema",
  type: "PROMPT_ENGINEERING_NODE",
  operationType: "PROMPT_ENGINEERING",
  name: "Prompt engineering",
  tags: [],
  configuration: {
    prompt_template: text("Prompt template", "A Mustache template over the inputs: {{query}}, {{#chunks}}{{text}}{{/chunks}}", true)
  },
  inputs: {
    query: input("query", "TEXT", "The question", false),
    chunks: input("chunks", "CHUNK_ARRAY", "Chunks the prompt may cite", false)
  },
  outputs: { prompt: output("prompt", "TEXT", "The rendered prompt") },
  prepare: (nodeId, configuration) =>
    Effect.gen(function*() {
      const template = yield* requiredText(nodeId, configuration, "prompt_template")
      // a template that does not parse is a configuration problem, found before anything runs
      yield* Effect.try({ try: () => render(template, {}), catch: (error) => new ConfigurationProblem(`Node '${nodeId}': prompt_template: ${(error as Error).message}`) })
      return (inputs) => Effect.succeed({ outputs: { prompt: render(template, { ...inputs }) } })
    })
}

const completionModel: NodeKind = {
  id: "completion_model_schema",
  type: "COMPLETION_MODEL_NODE",
  operationType: "COMPLETION",
  name: "Completion model",
  tags: [],
  configuration: {
    completion_model_id: text("Model", "A model deployment id, a model server alias, a model's id or name, or builtin", true),
    temperature,
    max_tokens: maxTokens
  },
  inputs: { prompt: input("prompt", "TEXT", "What to complete") },
  outputs: { completion: output("completion", "TEXT", "The model's answer") },
  prepare: (nodeId, configuration, runtime) =>
    Effect.gen(function*() {
      const modelId = yield* requiredText(nodeId, configuration, "completion_model_id")
      const options = {
        temperature: yield* optionalNumber(nodeId, configuration, "temperature", temperature),
        max_tokens: yield* optionalNumber(nodeId, configuration, "max_tokens", maxTokens)
      }
      const provider = yield* runtime.model(modelId)
      const before: ReadonlyArray<Message> = runtime.history.flatMap((turn) => [
        { role: "user" as const, content: turn.request },
        { role: "assistant" as const, content: turn.response }
      ])
      const onText = runtime.onText
      return (inputs) => {
        const messages: ReadonlyArray<Message> = [...before, { role: "user", content: asText(inputs.prompt) }]
        if (onText === undefined) {
          return Effect.map(provider.chat(messages, options), (generation) => ({
            outputs: { completion: generation.text },
            input_tokens: generation.prompt_tokens,
            output_tokens: generation.response_tokens
          }))
        }
        // streamed: each piece handed on as it comes, the whole text the node's output
        return Effect.gen(function*() {
          const events = yield* provider.chatStream(messages, options)
          let text = ""
          let counts = { input_tokens: 0, output_tokens: 0 }
          yield* Stream.runForEach(events, (event) =>
            event._tag === "Text"
              ? Effect.zipRight(Effect.sync(() => (text += event.text)), onText(nodeId, event.text))
              : Effect.sync(() => (counts = { input_tokens: event.prompt_tokens, output_tokens: event.response_tokens })))
          return { outputs: { completion: text }, ...counts }
        })
      }
    })
}

/** Every kind the kit runs, by `application_node_schema_id`. */
export const nodeKinds: ReadonlyMap<string, NodeKind> = new Map(
  [textInput, textOutput, knowledgeBase, reranker, promptEngineering, completionModel].map((kind) => [kind.id, kind])
)
