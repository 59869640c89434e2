/**
 * The per-deployment inference endpoints (docs/models.md "Execution"): a deployment of the
 * caller's accounts, `READY`, runs the request on its provider. `completions` answers `[prompt,
 * [text]]` pairs, `embeddings` `[text, vector]` pairs (the SDK's `List[List[object]]`).
 */
import { PlatformApi } from "@platform-kit/api"
import { Conflict, ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { callerAccounts } from "../../auth/access.js"
import { group } from "../../fast/implementations.js"
import { ModelDeploymentsRepo } from "../ModelDeploymentsRepo.js"
import { cosine } from "./builtin.js"
import { ModelProviders } from "./ModelProviders.js"
import type { GenerationOptions, Message } from "./Provider.js"

/** `{{name}}` in `text` replaced by the binding of `name` (`model_request_parameters.bindings`). */
const bind = (text: string, bindings: Readonly<Record<string, string | number | boolean>> | undefined) =>
  bindings === undefined
    ? text
    : text.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (whole, name: string) => (name in bindings ? String(bindings[name]) : whole))

/** A message's text: its content, or its text parts joined by newlines (images are not read). */
const textOf = (content: string | ReadonlyArray<Readonly<Record<string, unknown>>>) =>
  typeof content === "string"
    ? content
    : content.flatMap((part) => (typeof part.text === "string" ? [part.text] : [])).join("\n")

const streamingRefused = new ValidationError({
  detail: [
    new ValidationIssue({
      loc: ["body", "stream"],
      msg: "Streaming is not available yet: leave stream out or false",
      type: "value_error",
      input: true
    })
  ]
})

interface GenerationRequest {
  readonly max_tokens?: number | undefined
  readonly temperature?: number | undefined
  readonly top_p?: number | undefined
  readonly frequency_penalty?: number | undefined
  readonly presence_penalty?: number | undefined
  readonly stop_sequences?: ReadonlyArray<string> | undefined
  readonly stream?: boolean | undefined
}

const optionsOf = (payload: GenerationRequest): GenerationOptions => ({
  max_tokens: payload.max_tokens,
  temperature: payload.temperature,
  top_p: payload.top_p,
  frequency_penalty: payload.frequency_penalty,
  presence_penalty: payload.presence_penalty,
  stop: payload.stop_sequences
})

export const InferenceLive = group(PlatformApi, "inference", (handlers) =>
  Effect.gen(function*() {
    const deployments = yield* ModelDeploymentsRepo
    const providers = yield* ModelProviders

    /** The provider of deployment `id` (of the caller's accounts: else 404), once it is READY (else 409). */
    const providerOf = (id: string) =>
      Effect.gen(function*() {
        const deployment = yield* deployments.get(id, yield* callerAccounts)
        if (deployment.status !== "READY") {
          return yield* Effect.fail(new Conflict({ detail: `Model deployment ${id} is ${deployment.status}, not READY` }))
        }
        return yield* providers.forDeployment(deployment)
      })

    return handlers
      .handle("chatCompletions", ({ path, payload }) =>
        Effect.gen(function*() {
          if (payload.stream === true) return yield* Effect.fail(streamingRefused)
          const provider = yield* providerOf(path.model_deployment_id)
          const bindings = payload.model_request_parameters?.bindings
          const messages: Array<Message> = [
            ...payload.chat_history.map((message) => ({ role: message.role ?? "user", content: bind(textOf(message.content), bindings) })),
            { role: "user", content: bind(payload.prompt, bindings) }
          ]
          const generated = yield* provider.chat(messages, optionsOf(payload))
          return {
            completions: [[payload.prompt, [generated.text]]],
            finish_reason: generated.finish_reason,
            prompt_tokens: generated.prompt_tokens,
            response_tokens: generated.response_tokens
          }
        }))
      .handle("completions", ({ path, payload }) =>
        Effect.gen(function*() {
          if (payload.stream === true) return yield* Effect.fail(streamingRefused)
          const provider = yield* providerOf(path.model_deployment_id)
          const generated = yield* provider.complete(bind(payload.prompt, payload.model_request_parameters?.bindings), optionsOf(payload))
          return {
            completions: [[payload.prompt, [generated.text]]],
            finish_reason: generated.finish_reason,
            prompt_tokens: generated.prompt_tokens,
            response_tokens: generated.response_tokens
          }
        }))
      .handle("embeddings", ({ path, payload }) =>
        Effect.gen(function*() {
          const provider = yield* providerOf(path.model_deployment_id)
          const embedded = payload.texts.length === 0 ? { vectors: [], tokens: 0 } : yield* provider.embed(payload.texts)
          return { embeddings: payload.texts.map((text, i) => [text, embedded.vectors[i] ?? []]), tokens_used: embedded.tokens }
        }))
      .handle("rerankings", ({ path, payload }) =>
        Effect.gen(function*() {
          const provider = yield* providerOf(path.model_deployment_id)
          if (payload.chunks.length === 0) return { chunk_scores: [], tokens_used: 0 }
          const embedded = yield* provider.embed([payload.query, ...payload.chunks])
          const [query, ...chunks] = embedded.vectors
          return { chunk_scores: chunks.map((chunk) => cosine(query ?? [], chunk)), tokens_used: embedded.tokens }
        }))
  })
).pipe(Layer.provide([ModelDeploymentsRepo.Default, ModelProviders.Default]))
