/**
 * The OpenAI-style front door (docs/inference-v5.md): what `/v5/chat/completions`,
 * `/v5/completions`, `/v5/responses`, `/v5/inference` and v4's beta completions answer. A `model`
 * string resolves as the v4 endpoints resolve it (`ModelResolver`), else without its `vendor/`
 * prefix; the provider's every call is recorded as an execution (`recorded`, docs/models.md
 * "Usage"); answers are OpenAI's (answers.ts), streams data-only frames (sse.ts).
 */
import { CurrentCaller } from "@platform-kit/api"
import {
  GatewayTimeout,
  type GenericInferenceRequest,
  NotFound,
  OpenAiChatCompletionRequest,
  OpenAiCompletionRequest,
  type OpenAiResponseRequest,
  type UpstreamError,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Clock, Effect, ParseResult, Schema, Stream } from "effect"
import { accountsForRead } from "../../auth/access.js"
import { Ids } from "../../platform/Ids.js"
import { recorded } from "../inference/metered.js"
import { ModelResolver } from "../inference/ModelResolver.js"
import type { Generation, GenerationEvent, Provider } from "../inference/Provider.js"
import { ModelUsageRepo } from "../usage/ModelUsageRepo.js"
import * as Answers from "./answers.js"
import { dataOnlyEventStream } from "./sse.js"

const wallClock = Clock.make()

/** What a generation answers: the answer at once, or the frames of its stream. */
type Ran =
  | { readonly _tag: "Answer"; readonly answer: unknown }
  | { readonly _tag: "Stream"; readonly frames: Stream.Stream<unknown, UpstreamError> }

/** `args` of `/v5/inference` decoded as `schema` with the request's `model`; its problems at `["body", "args", …]`. */
const decodeArgs = <A, I>(schema: Schema.Schema<A, I>, args: Readonly<Record<string, unknown>>, model: string) => {
  const decoded = Schema.decodeUnknownEither(schema)({ ...args, model }, { errors: "all" })
  if (decoded._tag === "Right") return Effect.succeed(decoded.right)
  return Effect.fail(
    new ValidationError({
      detail: ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((issue) =>
        new ValidationIssue({ loc: ["body", "args", ...issue.path.map((p) => (typeof p === "number" ? p : String(p)))], msg: issue.message, type: "value_error" })
      )
    })
  )
}

export class FrontDoor extends Effect.Service<FrontDoor>()("@platform-kit/server/FrontDoor", {
  effect: Effect.gen(function*() {
    const resolver = yield* ModelResolver
    const ids = yield* Ids
    const usage = yield* ModelUsageRepo

    /** What `model` names in the caller's accounts (the selected one), its calls recorded for the caller. */
    const providerOf = (model: string) =>
      Effect.gen(function*() {
        const accounts = yield* accountsForRead()
        const found = yield* resolver.resolve(model, accounts).pipe(
          Effect.catchTag("NotFound", (error) => {
            const slash = model.indexOf("/")
            return slash > 0 && slash < model.length - 1 ? resolver.resolve(model.slice(slash + 1), accounts) : Effect.fail(error)
          }),
          Effect.catchTag("NotFound", () =>
            Effect.fail(
              new NotFound({
                detail: `Model ${model} not found: name a model server alias, a deployment id, a model's id or name, or builtin (GET /v5/chat/completions/models lists them)`
              })
            ))
        )
        const caller = yield* CurrentCaller
        return recorded({ ids, usage }, found.provider, found.deployment, {
          account_id: found.deployment?.account_id ?? accounts[0]!,
          caller_id: caller.identityId,
          caller_type: caller.identityType
        })
      })

    /** An answer's id, time (epoch seconds) and model. */
    const stampOf = (model: string) =>
      Effect.map(Effect.zip(ids.make, Clock.currentTimeMillis), ([id, millis]): Answers.Stamp => ({ id, created: Math.floor(millis / 1000), model }))

    const chat = (provider: Provider, body: OpenAiChatCompletionRequest) =>
      Effect.gen(function*() {
        const stamp = yield* stampOf(body.model)
        const messages = Answers.chatMessages(body.messages)
        const options = Answers.chatOptions(body)
        if (body.stream !== true) return { _tag: "Answer" as const, answer: Answers.chatCompletion(stamp, yield* provider.chat(messages, options)) }
        const events = yield* provider.chatStream(messages, options)
        return {
          _tag: "Stream" as const,
          frames: Stream.concat(Stream.make(Answers.firstChunk(stamp)), Stream.map(events, Answers.chatChunk(stamp)))
        }
      })

    const complete = (provider: Provider, body: OpenAiCompletionRequest) =>
      Effect.gen(function*() {
        const stamp = yield* stampOf(body.model)
        const prompts = typeof body.prompt === "string" ? [body.prompt] : body.prompt
        const options = Answers.completionOptions(body)
        if (body.stream !== true) {
          const generations: Array<Generation> = yield* Effect.forEach(prompts, (prompt) => provider.complete(prompt, options))
          return { _tag: "Answer" as const, answer: Answers.completion(stamp, prompts, generations, body.echo === true) }
        }
        // the prompts one after the other; the first's refusal answers an error status, a later one's breaks the stream off
        const counts = { prompt_tokens: 0, response_tokens: 0 }
        const streamOf = (prompt: string, index: number) => (started: Stream.Stream<GenerationEvent, UpstreamError>) =>
          Stream.concat(
            body.echo === true ? Stream.make(Answers.completionFrame(stamp, index, prompt, null, null)) : Stream.empty,
            Stream.map(started, (event) => {
              if (event._tag === "Text") return Answers.completionFrame(stamp, index, event.text, null, null)
              counts.prompt_tokens += event.prompt_tokens
              counts.response_tokens += event.response_tokens
              const last = index === prompts.length - 1
              return Answers.completionFrame(stamp, index, "", event.finish_reason, last ? Answers.usageOf(counts) : null)
            })
          )
        const first = yield* provider.completeStream(prompts[0]!, options)
        const rest = prompts.slice(1).map((prompt, i) =>
          Stream.unwrap(Effect.map(provider.completeStream(prompt, options), streamOf(prompt, i + 1)))
        )
        return { _tag: "Stream" as const, frames: rest.reduce((all, next) => Stream.concat(all, next), streamOf(prompts[0]!, 0)(first)) }
      })

    return {
      providerOf,
      /** `POST /v5/chat/completions`: a chat completion, or its chunks. */
      chatCompletions: (body: OpenAiChatCompletionRequest) =>
        Effect.flatMap(providerOf(body.model), (provider) =>
          Effect.map(chat(provider, body), (out) => (out._tag === "Answer" ? out.answer : dataOnlyEventStream(out.frames)))),

      /** `POST /v5/completions`: a completion of one choice per prompt, or its frames. */
      completions: (body: OpenAiCompletionRequest) =>
        Effect.flatMap(providerOf(body.model), (provider) =>
          Effect.map(complete(provider, body), (out) => (out._tag === "Answer" ? out.answer : dataOnlyEventStream(out.frames)))),

      /** `POST /v5/responses`: a response, or its events. */
      responses: (body: OpenAiResponseRequest) =>
        Effect.gen(function*() {
          const provider = yield* providerOf(body.model)
          const stamp = yield* stampOf(body.model)
          const itemId = yield* ids.make
          const messages = Answers.responseMessages(body)
          const options = Answers.responseOptions(body)
          if (body.stream !== true) return Answers.response(stamp, itemId, body, yield* provider.chat(messages, options))
          const events = yield* provider.chatStream(messages, options)
          const { events: framesOf, start } = Answers.responseEvents(stamp, itemId, body)
          return dataOnlyEventStream(Stream.concat(Stream.suspend(() => Stream.fromIterable(start())), Stream.mapConcat(events, framesOf)))
        }),

      /** `POST /v5/inference`: `args` run as a chat (`messages`) or a completion (`prompt`), OpenAI's answer in `response`. */
      inference: (body: GenericInferenceRequest) =>
        Effect.gen(function*() {
          const args = body.args ?? {}
          const isChat = "messages" in args
          if (!isChat && !("prompt" in args)) {
            return yield* Effect.fail(
              new ValidationError({
                detail: [
                  new ValidationIssue({
                    loc: ["body", "args"],
                    msg: "args must be an OpenAI chat body (messages) or completions body (prompt)",
                    type: "value_error",
                    input: args
                  })
                ]
              })
            )
          }
          const provider = yield* providerOf(body.model)
          const run: Effect.Effect<Ran, UpstreamError | ValidationError> = isChat
            ? Effect.flatMap(decodeArgs(OpenAiChatCompletionRequest, args, body.model), (decoded) => chat(provider, decoded))
            : Effect.flatMap(decodeArgs(OpenAiCompletionRequest, args, body.model), (decoded) => complete(provider, decoded))
          const seconds = body.inference_configuration?.timeout_seconds
          const out = yield* (seconds === undefined ? run : run.pipe(
            Effect.timeoutFail({
              duration: `${seconds} seconds`,
              onTimeout: () => new GatewayTimeout({ detail: `The model did not answer within ${seconds} s (inference_configuration.timeout_seconds)` })
            }),
            Effect.withClock(wallClock)
          ))
          return out._tag === "Answer"
            ? { response: out.answer as unknown, object: "generic_inference" as const }
            : dataOnlyEventStream(Stream.map(out.frames, (response) => ({ response, object: "generic_inference.chunk" })))
        })
    } as const
  }),
  dependencies: [ModelResolver.Default, ModelUsageRepo.Default]
}) {}
