/**
 * Running models (docs/models.md "Execution"): the per-deployment inference endpoints; the
 * top-level chat completions and completions, whose `model` string the kit resolves; and the
 * execute endpoints of a deployment, a model server and an alias. A deployment of the caller's
 * accounts, `READY`, runs the request on its provider. `completions` answers `[prompt, [text]]`
 * pairs, `embeddings` `[text, vector]` pairs (the SDK's `List[List[object]]`).
 */
import { PlatformApi } from "@platform-kit/api"
import {
  ChatCompletionRequest,
  CompletionRequest,
  Conflict,
  EmbeddingRequest,
  type ModelDeployment,
  type ModelParameters,
  type ModelType,
  NotFound,
  RerankingRequest,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Effect, Layer, Option, ParseResult, Schema } from "effect"
import { accountsForRead, callerAccounts } from "../../auth/access.js"
import { group } from "../../fast/implementations.js"
import { ModelDeploymentsRepo } from "../ModelDeploymentsRepo.js"
import { ModelInstancesRepo } from "../ModelInstancesRepo.js"
import { ModelServersRepo } from "../ModelServersRepo.js"
import { cosine } from "./builtin.js"
import { builtinProvider } from "./builtinProvider.js"
import { ModelProviders } from "./ModelProviders.js"
import type { GenerationOptions, Message, Provider } from "./Provider.js"

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

const streamingRefused = invalid(["body", "stream"], "Streaming is not available yet: leave stream out or false", true)

interface GenerationRequest {
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
  stop: payload.stop_sequences
})

/** The top-level endpoints' `model_parameters` as generation options (`topK` is not passed on). */
const optionsOfParameters = (parameters: typeof ModelParameters.Type | undefined): GenerationOptions =>
  parameters === undefined ? {} : optionsOf({ ...parameters, top_p: parameters.topP })

type ChatRequest = typeof ChatCompletionRequest.Type
type CompleteRequest = typeof CompletionRequest.Type
type EmbedRequest = typeof EmbeddingRequest.Type
type RerankRequest = typeof RerankingRequest.Type

/** What each of the four requests answers, on `provider`. */
const chat = (provider: Provider, payload: ChatRequest) =>
  Effect.gen(function*() {
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
  })

const complete = (provider: Provider, payload: CompleteRequest) =>
  Effect.map(provider.complete(bind(payload.prompt, payload.model_request_parameters?.bindings), optionsOf(payload)), (generated) => ({
    completions: [[payload.prompt, [generated.text]]],
    finish_reason: generated.finish_reason,
    prompt_tokens: generated.prompt_tokens,
    response_tokens: generated.response_tokens
  }))

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
    if (stream === true) return yield* Effect.fail(streamingRefused)
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
    const answer: Record<string, unknown> = yield* (
      kind.kind === "RERANKING"
        ? rerank(provider, decoded.right)
        : kind.kind === "EMBEDDING"
        ? embed(provider, decoded.right)
        : kind.kind === "CHAT_COMPLETION"
        ? chat(provider, decoded.right)
        : complete(provider, decoded.right)
    )
    return { status: "SUCCESS", status_code: 200, ...answer }
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

/** The names of the built-in model a `model` string may give. */
const builtinNames = new Set(["builtin", "builtin/echo"])

export const InferenceLive = group(PlatformApi, "inference", (handlers) =>
  Effect.gen(function*() {
    const deployments = yield* ModelDeploymentsRepo
    const models = yield* ModelInstancesRepo
    const servers = yield* ModelServersRepo
    const providers = yield* ModelProviders

    /** The provider of `deployment`, once it is READY (else 409). */
    const providerOfDeployment = (deployment: ModelDeployment) =>
      deployment.status === "READY"
        ? providers.forDeployment(deployment)
        : Effect.fail(new Conflict({ detail: `Model deployment ${deployment.id} is ${deployment.status}, not READY` }))

    /** The provider of deployment `id` of the caller's accounts (else 404), once it is READY. */
    const providerOf = (id: string) =>
      Effect.flatMap(callerAccounts, (accounts) => Effect.flatMap(deployments.get(id, accounts), providerOfDeployment))

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
        return yield* deployments.get(server.value.model_deployment_id, [server.value.account_id])
      })

    /**
     * The provider a `model` string names, in this order: the built-in model (`builtin`,
     * `builtin/echo`); a model server's alias; a deployment's id; a registered model's id or name
     * (its newest READY deployment). Else 404.
     */
    const providerOfModel = (model: string, accountId: string | undefined) =>
      Effect.gen(function*() {
        // the account named (or selected) is checked first, whatever the model: 403 before 404
        const accounts = yield* accountsForRead(accountId)
        if (builtinNames.has(model)) return builtinProvider
        const server = yield* servers.findByAlias(model, accounts)
        if (Option.isSome(server)) {
          return yield* providerOfDeployment(yield* deployments.get(server.value.model_deployment_id, [server.value.account_id]))
        }
        const deployment = yield* deployments.findById(model, accounts)
        if (Option.isSome(deployment)) return yield* providerOfDeployment(deployment.value)
        const registered = yield* models.findByIdOrName(model, accounts)
        if (Option.isSome(registered)) {
          const ready = yield* deployments.newestReadyOf(registered.value.id, [registered.value.account_id])
          if (Option.isNone(ready)) {
            return yield* Effect.fail(new Conflict({ detail: `Model ${model} has no READY deployment` }))
          }
          return yield* providerOfDeployment(ready.value)
        }
        return yield* Effect.fail(
          new NotFound({ detail: `Model ${model} not found: name a model server alias, a deployment id, a model's id or name, or builtin` })
        )
      })

    return handlers
      .handle("chatCompletions", ({ path, payload }) =>
        payload.stream === true ? Effect.fail(streamingRefused) : Effect.flatMap(providerOf(path.model_deployment_id), (provider) => chat(provider, payload)))
      .handle("completions", ({ path, payload }) =>
        payload.stream === true ? Effect.fail(streamingRefused) : Effect.flatMap(providerOf(path.model_deployment_id), (provider) => complete(provider, payload)))
      .handle("embeddings", ({ path, payload }) => Effect.flatMap(providerOf(path.model_deployment_id), (provider) => embed(provider, payload)))
      .handle("rerankings", ({ path, payload }) => Effect.flatMap(providerOf(path.model_deployment_id), (provider) => rerank(provider, payload)))
      .handle("chatCompletionsByModel", ({ payload }) =>
        Effect.gen(function*() {
          if (payload.stream === true) return yield* Effect.fail(streamingRefused)
          const provider = yield* providerOfModel(payload.model, payload.account_id)
          const generated = yield* provider.chat(conversation(payload), optionsOfParameters(payload.model_parameters))
          return {
            chat_completion: { message: { role: "assistant" as const, content: generated.text }, finish_reason: generated.finish_reason },
            token_usage: {
              total: generated.prompt_tokens + generated.response_tokens,
              completion: generated.response_tokens,
              prompt: generated.prompt_tokens
            }
          }
        }))
      .handle("completionsByModel", ({ payload }) =>
        Effect.gen(function*() {
          if (payload.stream === true) return yield* Effect.fail(streamingRefused)
          const provider = yield* providerOfModel(payload.model, payload.account_id)
          const generated = yield* provider.complete(payload.prompt, optionsOfParameters(payload.model_parameters))
          return {
            completion: { text: generated.text, finish_reason: generated.finish_reason },
            token_usage: {
              total: generated.prompt_tokens + generated.response_tokens,
              completion: generated.response_tokens,
              prompt: generated.prompt_tokens
            }
          }
        }))
      .handle("executeDeployment", ({ path, payload }) =>
        Effect.gen(function*() {
          const deployment = yield* deployments.get(path.model_deployment_id, yield* callerAccounts)
          if (deployment.model_instance_id !== path.model_instance_id) {
            return yield* Effect.fail(new NotFound({ detail: `Model deployment ${path.model_deployment_id} not found` }))
          }
          return yield* executeOn(deployment, payload)
        }))
      .handle("executeServer", ({ path, payload }) =>
        Effect.gen(function*() {
          const server = yield* servers.get(path.model_server_id, yield* callerAccounts)
          return yield* executeOn(yield* deployments.get(server.model_deployment_id, [server.account_id]), payload)
        }))
      .handle("executeAlias", ({ path, payload, urlParams }) =>
        Effect.flatMap(deploymentOfAlias(path.alias, urlParams.account_id), (deployment) => executeOn(deployment, payload)))
      .handle("executeAliasUnversioned", ({ path, payload, urlParams }) =>
        Effect.flatMap(deploymentOfAlias(path.alias, urlParams.account_id), (deployment) => executeOn(deployment, payload)))
  })
).pipe(Layer.provide([ModelDeploymentsRepo.Default, ModelInstancesRepo.Default, ModelServersRepo.Default, ModelProviders.Default]))
