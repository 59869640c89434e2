/**
 * Prompts and completions: the prompt engineering node, the completion model node, and the input
 * node that lets a request name the model.
 */
import { Effect, Stream } from "effect"
import type { GenerationOptions, Message, Provider } from "../../../models/inference/Provider.js"
import { render } from "../mustache.js"
import {
  asText,
  ConfigurationProblem,
  input,
  isNonEmptyString,
  maxTokens,
  type NodeKind,
  type NodeRuntime,
  optionalNumber,
  optionalText,
  output,
  type StepResult,
  temperature,
  text
} from "./kit.js"

/** A Mustache template of a node's configuration, checked to parse before anything runs. */
export const templateOf = (nodeId: string, configuration: Readonly<Record<string, unknown>>, field: string) => {
  const template = optionalText(configuration, field)
  if (template === undefined) {
    return Effect.fail(new ConfigurationProblem(`Node '${nodeId}': configuration '${field}' must be {"value": "<non-empty text>"}`))
  }
  return Effect.as(
    Effect.try({ try: () => render(template, {}), catch: (error) => new ConfigurationProblem(`Node '${nodeId}': ${field}: ${(error as Error).message}`) }),
    template
  )
}

/** The request's `history` as the turns before a completion's prompt. */
export const historyMessages = (runtime: NodeRuntime): ReadonlyArray<Message> =>
  runtime.history.flatMap((turn) => [
    { role: "user" as const, content: turn.request },
    { role: "assistant" as const, content: turn.response }
  ])

/**
 * One chat completion of `messages` by `provider`: its text and tokens; streamed piece by piece
 * to `onText` (as node `nodeId`'s) when the request streams.
 */
export const complete = (
  provider: Provider,
  messages: ReadonlyArray<Message>,
  options: GenerationOptions,
  nodeId: string,
  onText: NodeRuntime["onText"]
) => {
  if (onText === undefined) {
    return Effect.map(provider.chat(messages, options), (generation): { text: string } & StepCounts => ({
      text: generation.text,
      input_tokens: generation.prompt_tokens,
      output_tokens: generation.response_tokens
    }))
  }
  // streamed: each piece handed on as it comes, the whole text the answer
  return Effect.gen(function*() {
    const events = yield* provider.chatStream(messages, options)
    let text = ""
    let counts: StepCounts = { input_tokens: 0, output_tokens: 0 }
    yield* Stream.runForEach(events, (event) =>
      event._tag === "Text"
        ? Effect.zipRight(Effect.sync(() => (text += event.text)), onText(nodeId, event.text))
        : Effect.sync(() => (counts = { input_tokens: event.prompt_tokens, output_tokens: event.response_tokens })))
    return { text, ...counts }
  })
}

type StepCounts = Required<Pick<StepResult, "input_tokens" | "output_tokens">>

/** The provider of a node: the model its `completion_model_id` input names at run time, else the configured one. */
export const providerFor = (runtime: NodeRuntime, configured: Provider | undefined, given: unknown) =>
  isNonEmptyString(given) ? runtime.model(given) : Effect.succeed(configured!)

export const promptEngineering: NodeKind = {
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
    Effect.map(templateOf(nodeId, configuration, "prompt_template"), (template) => (inputs) =>
      Effect.succeed({ outputs: { prompt: render(template, { ...inputs }) } }))
}

export const completionModelInput: NodeKind = {
  id: "completion_model_input_schema",
  type: "COMPLETION_MODEL_INPUT_NODE",
  operationType: "COMPLETION_INPUT",
  name: "Completion model input",
  tags: ["INPUT_NODE"],
  configuration: { completion_model_id: text("Label", "What the input asks for (shown to a user)", false) },
  inputs: {},
  outputs: {
    completion_model_id: output("completion_model_id", "COMPLETION_MODEL_ID", "The model given in the request's inputs under this node's id")
  },
  requestInput: { name: "completion_model_id", expected: "a model (a deployment id, an alias, a model's id or name, or builtin)", valid: isNonEmptyString },
  // the model must run for the account before anything runs
  prepare: (_nodeId, _configuration, runtime, { given }) =>
    Effect.as(
      runtime.model(given.completion_model_id as string),
      (inputs) => Effect.succeed({ outputs: { completion_model_id: inputs.completion_model_id } })
    )
}

export const completionModel: NodeKind = {
  id: "completion_model_schema",
  type: "COMPLETION_MODEL_NODE",
  operationType: "COMPLETION",
  name: "Completion model",
  tags: [],
  configuration: {
    completion_model_id: text(
      "Model",
      "A model deployment id, a model server alias, a model's id or name, or builtin; required unless the completion_model_id input is connected",
      false
    ),
    temperature,
    max_tokens: maxTokens
  },
  inputs: {
    prompt: input("prompt", "TEXT", "What to complete"),
    completion_model_id: input("completion_model_id", "COMPLETION_MODEL_ID", "The model, in place of the configuration's (a completion model input node's)", false)
  },
  outputs: { completion: output("completion", "TEXT", "The model's answer") },
  orWired: { completion_model_id: "completion_model_id" },
  prepare: (nodeId, configuration, runtime) =>
    Effect.gen(function*() {
      const modelId = optionalText(configuration, "completion_model_id")
      const options = {
        temperature: yield* optionalNumber(nodeId, configuration, "temperature", temperature),
        max_tokens: yield* optionalNumber(nodeId, configuration, "max_tokens", maxTokens)
      }
      const configured = modelId === undefined ? undefined : yield* runtime.model(modelId)
      const before = historyMessages(runtime)
      return (inputs) =>
        Effect.gen(function*() {
          const provider = yield* providerFor(runtime, configured, inputs.completion_model_id)
          const { text, ...counts } = yield* complete(
            provider,
            [...before, { role: "user", content: asText(inputs.prompt) }],
            options,
            nodeId,
            runtime.onText
          )
          return { outputs: { completion: text }, ...counts }
        })
    })
}
