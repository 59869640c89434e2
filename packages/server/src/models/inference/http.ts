/**
 * Running models (docs/models.md "Execution"): the per-deployment inference endpoints; the
 * top-level chat completions and completions, whose `model` string the kit resolves; and the
 * execute endpoints of a deployment, a model server and an alias. A deployment of the caller's
 * accounts, `READY`, runs the request on its provider. `completions` answers `[prompt, [text]]`
 * pairs, `embeddings` `[text, vector]` pairs (the SDK's `List[List[object]]`).
 */
import type { HttpServerResponse } from "@effect/platform"
import { CurrentCaller } from "@platform-kit/api"
import {
  ChatCompletionRequest,
  CompletionRequest,
  EmbeddingRequest,
  type ModelDeployment,
  type ModelParameters,
  type ModelType,
  NotFound,
  RerankingRequest,
  type UpstreamError,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Effect, Layer, Option, ParseResult, Schema, Stream } from "effect"
import { accountsForRead, callerAccounts } from "../../auth/access.js"
import { Ids } from "../../platform/Ids.js"
import type { ImplementGroup } from "../../http/groups.js"
import { eventStream } from "../../http/sse.js"
import { ModelDeploymentsRepo } from "../deployments/ModelDeploymentsRepo.js"
import { ModelInstancesRepo } from "../registry/ModelInstancesRepo.js"
import { ModelServersRepo } from "../servers/ModelServersRepo.js"
import { cosine } from "./builtin.js"
import { ModelUsageRepo } from "../usage/ModelUsageRepo.js"
import { recorded, upstreamStatus } from "./metered.js"
import { ModelResolver } from "./ModelResolver.js"
import type { Generation, GenerationEvent, GenerationOptions, GenerationStream, Message, Provider } from "./Provider.js"

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

const invalid = (loc: ReadonlyArray<string | number>, msg: string, input: unknown) =>
  new ValidationError({ detail: [new ValidationIssue({ loc, msg, type: "value_error", input })] })

const streamingRefused = invalid(
  ["body", "stream"],
  "Only generation streams: embeddings and rerankings answer at once (leave stream out or false)",
  true
)

/**
 * A generation streamed as server-sent events, each event `frameOf` it; an upstream failing after
 * the start is a last `{error: {status_code, detail}}` frame (docs/models.md "Streaming").
 */
const streamedAs = (generation: GenerationStream, frameOf: (event: GenerationEvent) => unknown) =>
  Effect.map(generation, (events) =>
    eventStream(
      Stream.map(events, frameOf),
      (error) => ({ error: { status_code: upstreamStatus(error), detail: error.detail } })
    ))

/** The frames of a per-deployment or execute stream: each piece as `completions: [[prompt, [piece]]]`, the finish with its counts. */
const completionFrames = (prompt: string, base: Record<string, unknown> = {}) => (event: GenerationEvent) =>
  event._tag === "Text"
    ? { ...base, completions: [[prompt, [event.text]]] }
    : {
      ...base,
      completions: [[prompt, [""]]],
      finish_reason: event.finish_reason,
      prompt_tokens: event.prompt_tokens,
      response_tokens: event.response_tokens
    }

interface GenerationRequest {
  readonly top_k?: number | undefined
  readonly chat_template?: string | undefined
  readonly chat_template_kwargs?: Readonly<Record<string, unknown>> | undefined
  readonly logprobs?: boolean | undefined
  readonly top_logprobs?: number | undefined
  readonly max_tokens?: number | undefined
  readonly temperature?: number | undefined
  readonly top_p?: number | undefined
  readonly frequency_penalty?: number | undefined
  readonly presence_penalty?: number | undefined
  readonly stop_sequences?: ReadonlyArray<string> | undefined
}

const optionsOf = (payload: GenerationRequest): GenerationOptions => ({
  max_tokens: payload.max_tokens,
  temperature: payload.temperature,
  top_p: payload.top_p,
  frequency_penalty: payload.frequency_penalty,
  presence_penalty: payload.presence_penalty,
  stop: payload.stop_sequences,
  top_k: payload.top_k,
  chat_template: payload.chat_template,
  chat_template_kwargs: payload.chat_template_kwargs,
  logprobs: payload.logprobs,
  top_logprobs: payload.top_logprobs
})

/** The top-level endpoints' `model_parameters` as generation options. */
const optionsOfParameters = (parameters: typeof ModelParameters.Type | undefined): GenerationOptions =>
  parameters === undefined ? {} : optionsOf({ ...parameters, top_p: parameters.topP, top_k: parameters.topK })

type ChatRequest = typeof ChatCompletionRequest.Type
type CompleteRequest = typeof CompletionRequest.Type
type EmbedRequest = typeof EmbeddingRequest.Type
type RerankRequest = typeof RerankingRequest.Type

/** A chat completion request's conversation: its history, then its prompt as the user's, bindings applied. */
const chatMessages = (payload: ChatRequest): Array<Message> => {
  const bindings = payload.model_request_parameters?.bindings
  return [
    ...payload.chat_history.map((message) => ({ role: message.role ?? "user", content: bind(textOf(message.content), bindings) })),
    { role: "user", content: bind(payload.prompt, bindings) }
  ]
}

/** A generation's answer on the per-deployment and execute endpoints (`base` first). */
const generatedAnswer = (prompt: string, generated: Generation, base: Record<string, unknown>) => ({
  ...base,
  completions: [[prompt, [generated.text]]],
  finish_reason: generated.finish_reason,
  prompt_tokens: generated.prompt_tokens,
  response_tokens: generated.response_tokens,
  ...(generated.logprobs === undefined ? {} : { choices: [{ index: 0, logprobs: { content: generated.logprobs } }] })
})

type GenerationAnswer = Effect.Effect<HttpServerResponse.HttpServerResponse | ReturnType<typeof generatedAnswer>, UpstreamError>

/** What each of the four requests answers, on `provider` (a generation streamed when the request says `stream`). */
const chat = (provider: Provider, payload: ChatRequest, base: Record<string, unknown> = {}): GenerationAnswer =>
  payload.stream === true
    ? streamedAs(provider.chatStream(chatMessages(payload), optionsOf(payload)), completionFrames(payload.prompt, base))
    : Effect.map(provider.chat(chatMessages(payload), optionsOf(payload)), (generated) => generatedAnswer(payload.prompt, generated, base))

const complete = (provider: Provider, payload: CompleteRequest, base: Record<string, unknown> = {}): GenerationAnswer => {
  const prompt = bind(payload.prompt, payload.model_request_parameters?.bindings)
  return payload.stream === true
    ? streamedAs(provider.completeStream(prompt, optionsOf(payload)), completionFrames(payload.prompt, base))
    : Effect.map(provider.complete(prompt, optionsOf(payload)), (generated) => generatedAnswer(payload.prompt, generated, base))
}

const embed = (provider: Provider, payload: EmbedRequest) =>
  Effect.map(
    payload.texts.length === 0 ? Effect.succeed({ vectors: [], tokens: 0 }) : provider.embed(payload.texts),
    (embedded) => ({ embeddings: payload.texts.map((text, i) => [text, embedded.vectors[i] ?? []]), tokens_used: embedded.tokens })
  )

const rerank = (provider: Provider, payload: RerankRequest) =>
  payload.chunks.length === 0
    ? Effect.succeed({ chunk_scores: [], tokens_used: 0 })
    : Effect.map(provider.embed([payload.query, ...payload.chunks]), (embedded) => {
      const [query, ...chunks] = embedded.vectors
      return { chunk_scores: chunks.map((chunk) => cosine(query ?? [], chunk)), tokens_used: embedded.tokens }
    })

/** Which request an execute's body is, by the model's type, else by the fields it has. */
const requestKinds = [
  { kind: "RERANKING", schema: RerankingRequest, has: ["query", "chunks"] },
  { kind: "EMBEDDING", schema: EmbeddingRequest, has: ["texts"] },
  { kind: "CHAT_COMPLETION", schema: ChatCompletionRequest, has: ["chat_history"] },
  { kind: "COMPLETION", schema: CompletionRequest, has: ["prompt"] }
] as const

/** Runs an execute's `body` on `provider`: the request of `type` when it has one, else what the body's fields say. */
const executeBody = (provider: Provider, type: ModelType | undefined, body: Readonly<Record<string, unknown>>) =>
  Effect.gen(function*() {
    const { stream, ...request } = body
    const kind = requestKinds.find((candidate) => candidate.kind === type) ??
      requestKinds.find((candidate) => candidate.has.every((field) => field in request))
    if (kind === undefined) {
      return yield* Effect.fail(
        invalid(["body"], "The body is no request a model runs: give prompt; chat_history and prompt; texts; or query and chunks", request)
      )
    }
    const decoded = Schema.decodeUnknownEither(kind.schema as Schema.Schema<any>)(request, { errors: "all" })
    if (decoded._tag === "Left") {
      const issues = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
      return yield* Effect.fail(
        new ValidationError({
          detail: issues.map((issue) =>
            new ValidationIssue({ loc: ["body", ...issue.path.map((p) => (typeof p === "number" ? p : String(p)))], msg: issue.message, type: "value_error" })
          )
        })
      )
    }
    const generation = kind.kind === "CHAT_COMPLETION" || kind.kind === "COMPLETION"
    if (stream === true && !generation) return yield* Effect.fail(streamingRefused)
    const success = { status: "SUCCESS", status_code: 200 }
    const payload = { ...decoded.right, stream: stream === true }
    return yield* (
      kind.kind === "RERANKING"
        ? Effect.map(rerank(provider, payload), (answer) => ({ ...success, ...answer }))
        : kind.kind === "EMBEDDING"
        ? Effect.map(embed(provider, payload), (answer) => ({ ...success, ...answer }))
        : kind.kind === "CHAT_COMPLETION"
        ? chat(provider, payload, success)
        : complete(provider, payload, success)
    )
  })

/** What `/v4/chat-completions` takes as `messages`: instructions first, the last `k` when the memory strategy says so. */
const conversation = (payload: {
  readonly messages: ReadonlyArray<{ readonly role?: "user" | "assistant" | "system" | undefined; readonly content: string | ReadonlyArray<Readonly<Record<string, unknown>>> }>
  readonly instructions?: string | undefined
  readonly memory_strategy?: { readonly params: { readonly k: number } } | undefined
}): Array<Message> => {
  const all = payload.messages.map((message) => ({ role: message.role ?? "user", content: textOf(message.content) }))
  const kept = payload.memory_strategy === undefined ? all : all.slice(-payload.memory_strategy.params.k)
  return payload.instructions === undefined ? kept : [{ role: "system", content: payload.instructions }, ...kept]
}

/** The top-level endpoints' `token_usage` of a generation. */
const tokenUsage = (generated: { readonly prompt_tokens: number; readonly response_tokens: number }) => ({
  total: generated.prompt_tokens + generated.response_tokens,
  completion: generated.response_tokens,
  prompt: generated.prompt_tokens
})

export const InferenceHttp = (group: ImplementGroup) =>
  group("inference", (handlers) =>
  Effect.gen(function*() {
    const deployments = yield* ModelDeploymentsRepo
    const models = yield* ModelInstancesRepo
    const servers = yield* ModelServersRepo
    const resolver = yield* ModelResolver
    const recording = { ids: yield* Ids, usage: yield* ModelUsageRepo }

    /** `provider` with each of its calls recorded for the caller, on `deployment` (none: the built-in model by name). */
    const recordedFor = (provider: Provider, accountId: string, deployment: ModelDeployment | undefined) =>
      Effect.map(CurrentCaller, (caller) =>
        recorded(recording, provider, deployment, {
          account_id: accountId,
          caller_id: caller.identityId,
          caller_type: caller.identityType
        }))

    /** The provider of `deployment`, once it is READY (else 409), its calls recorded. */
    const providerOfDeployment = (deployment: ModelDeployment) =>
      Effect.flatMap(resolver.ofDeployment(deployment), ({ provider }) => recordedFor(provider, deployment.account_id, deployment))

    /** The provider of deployment `id` of the caller's accounts (else 404), once it is READY. */
    const providerOf = (id: string) =>
      Effect.flatMap(callerAccounts, (accounts) => Effect.flatMap(deployments.getCommitted(id, accounts), providerOfDeployment))

    /** The type of `deployment`'s model, when it is registered. */
    const typeOf = (deployment: ModelDeployment) =>
      Effect.map(models.findById(deployment.model_instance_id, [deployment.account_id]), Option.map((model) => model.model_type))

    /** Executes `body` on `deployment`. */
    const executeOn = (deployment: ModelDeployment, body: Readonly<Record<string, unknown>>) =>
      Effect.gen(function*() {
        const provider = yield* providerOfDeployment(deployment)
        return yield* executeBody(provider, Option.getOrUndefined(yield* typeOf(deployment)), body)
      })

    /** The deployment the server with `alias` serves (the `account_id` account, else the caller's). */
    const deploymentOfAlias = (alias: string, accountId: string | undefined) =>
      Effect.gen(function*() {
        const accounts = yield* accountsForRead(accountId)
        const server = yield* servers.findByAlias(alias, accounts)
        if (Option.isNone(server)) return yield* Effect.fail(new NotFound({ detail: `Model server with alias ${alias} not found` }))
        return yield* deployments.getCommitted(server.value.model_deployment_id, [server.value.account_id])
      })

    /** The provider a `model` string names (`ModelResolver`), checked against the account named or selected first (403 before 404). */
    const providerOfModel = (model: string, accountId: string | undefined) =>
      Effect.gen(function*() {
        const accounts = yield* accountsForRead(accountId)
        const { deployment, provider } = yield* resolver.resolve(model, accounts)
        return yield* recordedFor(provider, deployment?.account_id ?? accounts[0]!, deployment)
      })

    return handlers
      .handle("chatCompletions", ({ path, payload }) =>
        Effect.flatMap(providerOf(path.model_deployment_id), (provider) => chat(provider, payload)))
      .handle("completions", ({ path, payload }) =>
        Effect.flatMap(providerOf(path.model_deployment_id), (provider) => complete(provider, payload)))
      .handle("embeddings", ({ path, payload }) => Effect.flatMap(providerOf(path.model_deployment_id), (provider) => embed(provider, payload)))
      .handle("rerankings", ({ path, payload }) => Effect.flatMap(providerOf(path.model_deployment_id), (provider) => rerank(provider, payload)))
      .handle("chatCompletionsByModel", ({ payload }) =>
        Effect.gen(function*() {
          const provider = yield* providerOfModel(payload.model, payload.account_id)
          const options = optionsOfParameters(payload.model_parameters)
          if (payload.stream === true) {
            return yield* streamedAs(provider.chatStream(conversation(payload), options), (event) =>
              event._tag === "Text"
                ? { chat_completion: { message: { role: "assistant", content: event.text } }, token_usage: null }
                : { chat_completion: { message: { role: "assistant", content: "" }, finish_reason: event.finish_reason }, token_usage: tokenUsage(event) })
          }
          const generated = yield* provider.chat(conversation(payload), options)
          return {
            chat_completion: { message: { role: "assistant" as const, content: generated.text }, finish_reason: generated.finish_reason },
            token_usage: tokenUsage(generated)
          }
        }))
      .handle("completionsByModel", ({ payload }) =>
        Effect.gen(function*() {
          const provider = yield* providerOfModel(payload.model, payload.account_id)
          const options = optionsOfParameters(payload.model_parameters)
          if (payload.stream === true) {
            return yield* streamedAs(provider.completeStream(payload.prompt, options), (event) =>
              event._tag === "Text"
                ? { completion: { text: event.text }, token_usage: null }
                : { completion: { text: "", finish_reason: event.finish_reason }, token_usage: tokenUsage(event) })
          }
          const generated = yield* provider.complete(payload.prompt, options)
          return { completion: { text: generated.text, finish_reason: generated.finish_reason }, token_usage: tokenUsage(generated) }
        }))
      .handle("executeDeployment", ({ path, payload }) =>
        Effect.gen(function*() {
          const deployment = yield* deployments.getCommitted(path.model_deployment_id, yield* callerAccounts)
          if (deployment.model_instance_id !== path.model_instance_id) {
            return yield* Effect.fail(new NotFound({ detail: `Model deployment ${path.model_deployment_id} not found` }))
          }
          return yield* executeOn(deployment, payload)
        }))
      .handle("executeServer", ({ path, payload }) =>
        Effect.gen(function*() {
          const server = yield* servers.get(path.model_server_id, yield* callerAccounts)
          return yield* executeOn(yield* deployments.getCommitted(server.model_deployment_id, [server.account_id]), payload)
        }))
      .handle("executeAlias", ({ path, payload, urlParams }) =>
        Effect.flatMap(deploymentOfAlias(path.alias, urlParams.account_id), (deployment) => executeOn(deployment, payload)))
      .handle("executeAliasUnversioned", ({ path, payload, urlParams }) =>
        Effect.flatMap(deploymentOfAlias(path.alias, urlParams.account_id), (deployment) => executeOn(deployment, payload)))
  })
).pipe(
  Layer.provide([ModelDeploymentsRepo.Default, ModelInstancesRepo.Default, ModelServersRepo.Default, ModelResolver.Default, ModelUsageRepo.Default])
)
