/**
 * A provider on an OpenAI-compatible API (docs/models.md "Providers"), through `@effect/ai-openai`'s
 * client (its HTTP client: the base URL, the key as `Authorization: Bearer`): `POST
 * {base_url}/chat/completions`, `/completions`, `/embeddings`, answers read leniently (below).
 * Retries a 408, 429, 500, 502–504 or a failed connection with exponential backoff
 * (`max_retries`), bounds the whole call (`timeout_ms`) and the calls at once (`max_concurrency`,
 * the caller's semaphore); maps what fails to the API's errors: the upstream's 400/404/422 a 400
 * with its reason, 429 after the retries a 429, anything else a 502, no answer in time a 504.
 *
 * The retries and the bound of a call (`call`; a stream keeps `Effect.timeoutFail`, one per
 * stream) are written out here rather than taken from `HttpClient.retryTransient` and
 * `Effect.timeoutFail`: those cost a call more than the rest of the kit's work for it (a schedule
 * driven twice per call, for the `repeat` of transient answers and the `retry` of errors; two
 * fibers raced and joined), and the execution benchmark measures every microsecond a call adds
 * (docs/benchmarks.md "A model call"). With a permit free at once, the bound is a
 * `Deadline` in the caller's fiber that aborts the call's request (upstreamHttpClient.ts), not a
 * fiber of its own.
 */
import { OpenAiClient } from "@effect/ai-openai"
import * as Sse from "@effect/experimental/Sse"
import { HttpClient, HttpClientError, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import {
  BadGateway,
  GatewayTimeout,
  type OpenAiCompatibleProviderParameters,
  UpstreamBadRequest,
  type UpstreamError,
  UpstreamRateLimited
} from "@platform-kit/schema"
import type { ParseResult } from "effect"
import { Clock, Effect, Exit, FiberId, Option, type Redacted, Schema, Scope, Stream } from "effect"
import type { GenerationEvent, GenerationOptions, GenerationStream, Provider, TokenLogprob } from "./Provider.js"
import { currentDeadline, tiedToScope, withDeadline } from "./upstreamHttpClient.js"

/** What the upstream said, from its error body (`{error: {message}}` as OpenAI answers, or the body itself). */
const reasonOf = (description: string | undefined) => {
  if (description === undefined) return "no reason given"
  try {
    const body = JSON.parse(description)
    const message = body?.error?.message ?? body?.message ?? body?.detail
    return typeof message === "string" ? message : description
  } catch {
    return description
  }
}

const toApiError = (upstream: string) => (error: HttpClientError.HttpClientError | ParseResult.ParseError): UpstreamError => {
  if (error._tag === "ParseError") return new BadGateway({ detail: `The model's upstream ${upstream} answered something unreadable` })
  if (error._tag === "RequestError") return new BadGateway({ detail: `The model's upstream ${upstream} could not be reached` })
  const status = error.response.status
  const reason = reasonOf(error.description)
  if (status === 400 || status === 404 || status === 422) {
    return new UpstreamBadRequest({ detail: `The model's upstream refused the request (${status}): ${reason}` })
  }
  if (status === 429) return new UpstreamRateLimited({ detail: `The model's upstream is rate limiting (429): ${reason}` })
  if (status === 401 || status === 403) {
    return new BadGateway({ detail: `The model's upstream refused the deployment's credentials (${status})` })
  }
  return new BadGateway({ detail: `The model's upstream failed (${status}): ${reason}` })
}

const wallClock = Clock.make()

/** What `HttpClient.retryTransient` retries: a connection that failed, or an answer 408, 429, 500 or 502–504. */
const isTransient = (error: HttpClientError.HttpClientError) =>
  error._tag === "RequestError"
    ? error.reason === "Transport"
    : error.reason === "StatusCode" && [408, 429, 500, 502, 503, 504].includes(error.response.status)

/**
 * `exchange` again while it fails transiently, `retries` times at most, 100 ms, 200 ms, 400 ms… of
 * wall time apart; under a call's deadline (`withDeadline`), not once it has expired, and not
 * after a wait that reaches it (the call fails then, at its deadline).
 */
const retried = <A>(
  exchange: Effect.Effect<A, HttpClientError.HttpClientError>,
  retries: number
): Effect.Effect<A, HttpClientError.HttpClientError> => {
  const attempt = (n: number): Effect.Effect<A, HttpClientError.HttpClientError> =>
    Effect.catchIf(
      exchange,
      (error) => n < retries && isTransient(error),
      (error) =>
        Effect.flatMap(currentDeadline, (deadline) => {
          if (deadline?.expired === true) return Effect.fail(error)
          const wait = 100 * 2 ** n
          const left = deadline === undefined ? Infinity : deadline.at - performance.now()
          if (left > wait) return Effect.zipRight(Effect.withClock(Effect.sleep(wait), wallClock), attempt(n + 1))
          // the deadline (there is one: `left` is finite) passes first: no attempt after the wait
          return Effect.withClock(Effect.sleep(Math.max(0, left)), wallClock).pipe(
            Effect.zipRight(Effect.sync(deadline!.expire)),
            Effect.zipRight(Effect.fail(error))
          )
        })
    )
  return attempt(0)
}

/**
 * `effect`, failing with `onTimeout()` when it has not ended within `millis` of wall time (it is
 * interrupted then, and its interruption goes on without being waited for: an upstream request is
 * aborted). The effect runs in one child fiber, a Node timer stands for the deadline: what
 * `Effect.timeoutFail` does with a second fiber sleeping on the caller's clock, at a third of its
 * cost; on wall time whatever clock the caller runs on (a test's TestClock).
 */
const withinWallTime = <E2>(millis: number, onTimeout: () => E2) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | E2, R> =>
  Effect.flatMap(Effect.fork(effect), (fiber) =>
    Effect.async<A, E | E2>((resume) => {
      let settled = false
      const timer = setTimeout(() => {
        settled = true
        fiber.unsafeInterruptAsFork(FiberId.none)
        resume(Effect.fail(onTimeout()))
      }, millis)
      fiber.addObserver((exit) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resume(exit)
      })
      return Effect.sync(() => {
        settled = true
        clearTimeout(timer)
        fiber.unsafeInterruptAsFork(FiberId.none)
      })
    }))

const generationBody = (options: GenerationOptions) => ({
  ...(options.max_tokens === undefined ? {} : { max_tokens: options.max_tokens }),
  ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
  ...(options.top_p === undefined ? {} : { top_p: options.top_p }),
  ...(options.frequency_penalty === undefined ? {} : { frequency_penalty: options.frequency_penalty }),
  ...(options.presence_penalty === undefined ? {} : { presence_penalty: options.presence_penalty }),
  ...(options.stop === undefined || options.stop.length === 0 ? {} : { stop: [...options.stop] }),
  ...(options.top_k === undefined ? {} : { top_k: options.top_k }),
  ...(options.chat_template === undefined ? {} : { chat_template: options.chat_template }),
  ...(options.chat_template_kwargs === undefined ? {} : { chat_template_kwargs: options.chat_template_kwargs })
})

/** Chat completions take `logprobs: true` and `top_logprobs: n`. */
const chatLogprobs = (options: GenerationOptions) =>
  options.logprobs === true
    ? { logprobs: true, ...(options.top_logprobs === undefined ? {} : { top_logprobs: options.top_logprobs }) }
    : {}

/** Completions take `logprobs: n`, the number of alternatives. */
const completionLogprobs = (options: GenerationOptions) =>
  options.logprobs === true ? { logprobs: options.top_logprobs ?? 0 } : {}

/** A chat completion's `logprobs.content` as the kit answers it. */
const fromChatLogprobs = (
  logprobs: { readonly content?: ReadonlyArray<{ readonly token: string; readonly logprob: number; readonly top_logprobs?: ReadonlyArray<{ readonly token: string; readonly logprob: number }> }> | null } | null | undefined
): ReadonlyArray<TokenLogprob> | undefined =>
  logprobs?.content == null
    ? undefined
    : logprobs.content.map((item) => ({
      token: item.token,
      logprob: item.logprob,
      top_logprobs: (item.top_logprobs ?? []).map((top) => ({ token: top.token, logprob: top.logprob }))
    }))

/** A completion's `logprobs` (`tokens`, `token_logprobs`, `top_logprobs` as token → logprob maps) as the kit answers it. */
const fromCompletionLogprobs = (
  logprobs: {
    readonly tokens?: ReadonlyArray<string> | undefined
    readonly token_logprobs?: ReadonlyArray<number> | undefined
    readonly top_logprobs?: ReadonlyArray<Readonly<Record<string, unknown>>> | undefined
  } | null | undefined
): ReadonlyArray<TokenLogprob> | undefined =>
  logprobs?.tokens == null
    ? undefined
    : logprobs.tokens.map((token, i) => ({
      token,
      logprob: logprobs.token_logprobs?.[i] ?? 0,
      top_logprobs: Object.entries(logprobs.top_logprobs?.[i] ?? {}).map(([alternative, logprob]) => ({
        token: alternative,
        logprob: Number(logprob)
      }))
    }))

/**
 * What the kit reads of a streamed chunk (`data:` frame) of a chat completion (`delta.content`)
 * or a completion (`text`): read leniently, as compatible servers leave out fields OpenAI's own
 * chunk Schema requires (`id`, `created`, `system_fingerprint`...). The last chunks carry the
 * `finish_reason` and, when asked with `stream_options.include_usage`, the `usage`.
 */
const StreamChunk = Schema.parseJson(Schema.Struct({
  choices: Schema.optionalWith(
    Schema.Array(Schema.Struct({
      delta: Schema.optional(Schema.NullOr(Schema.Struct({ content: Schema.optional(Schema.NullOr(Schema.String)) }))),
      text: Schema.optional(Schema.NullOr(Schema.String)),
      finish_reason: Schema.optional(Schema.NullOr(Schema.String))
    })),
    { default: () => [], nullable: true }
  ),
  usage: Schema.optional(Schema.NullOr(Schema.Struct({ prompt_tokens: Schema.Number, completion_tokens: Schema.Number })))
}))
const decodeChunk = Schema.decode(StreamChunk)

/**
 * What the kit reads of an upstream's answers: only the fields it uses, each optional where
 * compatible servers leave it out. OpenAI's generated Schemas (`@effect/ai-openai`) require fields
 * such as `message.refusal`, `logprobs` and `created` that vLLM, llama.cpp's server or Ollama do
 * not all send: decoded with those, a working upstream would read as "unreadable".
 */
const Usage = Schema.optional(Schema.NullOr(Schema.Struct({
  prompt_tokens: Schema.Number,
  completion_tokens: Schema.optional(Schema.Number)
})))

const ChatAnswer = Schema.Struct({
  choices: Schema.Array(Schema.Struct({
    message: Schema.optional(Schema.NullOr(Schema.Struct({ content: Schema.optional(Schema.NullOr(Schema.String)) }))),
    finish_reason: Schema.optional(Schema.NullOr(Schema.String)),
    logprobs: Schema.optional(Schema.Unknown)
  })),
  usage: Usage
})

const CompletionAnswer = Schema.Struct({
  choices: Schema.Array(Schema.Struct({
    text: Schema.optional(Schema.NullOr(Schema.String)),
    finish_reason: Schema.optional(Schema.NullOr(Schema.String)),
    logprobs: Schema.optional(Schema.Unknown)
  })),
  usage: Usage
})

const EmbeddingAnswer = Schema.Struct({
  data: Schema.Array(Schema.Struct({ index: Schema.Number, embedding: Schema.Array(Schema.Number) })),
  usage: Usage
})

/** A response of another status than 2xx as the client's error, with the body as its description. */
const unlessOk = (response: HttpClientResponse.HttpClientResponse) =>
  response.status >= 200 && response.status < 300
    ? Effect.succeed(response)
    : Effect.flatMap(
      Effect.orElseSucceed(response.text, () => ""),
      (description) =>
        Effect.fail(new HttpClientError.ResponseError({ request: response.request, response, reason: "StatusCode", description }))
    )

/** `stream`, failing with `onIdle` when no element comes for `millis` of wall time. */
const boundIdle = <A, E>(stream: Stream.Stream<A, E>, millis: number, onIdle: () => E) =>
  Stream.fromPull(Effect.map(Stream.toPull(stream), (pull) =>
    pull.pipe(
      Effect.timeoutFail({ duration: millis, onTimeout: () => Option.some(onIdle()) }),
      Effect.withClock(wallClock)
    )))

/**
 * The provider of `parameters`, with `apiKey` (decrypted from the deployment's credential, held
 * redacted) and `permits` (the deployment's concurrency bound). Needs an `HttpClient`.
 */
export const openAiCompatibleProvider = (
  parameters: typeof OpenAiCompatibleProviderParameters.Type,
  permits: Effect.Semaphore
): Effect.Effect<(apiKey: Redacted.Redacted | undefined) => Provider, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    const upstream = parameters.base_url
    const client = yield* OpenAiClient.make({ apiUrl: parameters.base_url.replace(/\/+$/, "") }).pipe(
      Effect.provideService(HttpClient.HttpClient, http),
      Effect.scoped
    )

    return (apiKey: Redacted.Redacted | undefined): Provider => {
    /** `request` with the call's key, when the deployment has one. */
    const keyed = (request: HttpClientRequest.HttpClientRequest) =>
      apiKey === undefined ? request : HttpClientRequest.bearerToken(request, apiKey)

    /** `POST {base_url}{path}` with `body` until it is answered a 2xx or fails for good (the retries). */
    const post = (path: string, body: Record<string, unknown>) => {
      const request = keyed(HttpClientRequest.post(path).pipe(HttpClientRequest.bodyUnsafeJson(body)))
      return retried(Effect.flatMap(client.client.httpClient.execute(request), unlessOk), parameters.max_retries)
    }

    /** `POST {base_url}{path}` with `body`, its 2xx answer read with `schema` (lenient: see the answers above). */
    const postJson = <A, I>(path: string, body: Record<string, unknown>, schema: Schema.Schema<A, I>) =>
      Effect.flatMap(post(path, body), HttpClientResponse.schemaBodyJson(schema))

    const timedOut = () =>
      new GatewayTimeout({ detail: `The model's upstream ${upstream} did not answer within ${parameters.timeout_ms} ms` })

    /**
     * One call: bounded by the permits and the timeout, its failures the API's. Its backoff and
     * timeout keep wall time, whatever clock the caller runs on (a test's TestClock). With a
     * permit free at once, the call runs in the caller's fiber under a `Deadline` (its request
     * aborted when the time is up, its backoff ending then); waiting for a permit, in a fiber of
     * its own bounded whole (`withinWallTime`).
     */
    const call = <A>(effect: Effect.Effect<A, HttpClientError.HttpClientError | ParseResult.ParseError>) =>
      Effect.flatMap(
        permits.withPermitsIfAvailable(1)(withDeadline(parameters.timeout_ms, (deadline) =>
          Effect.mapError(effect, (error): UpstreamError => (deadline.expired ? timedOut() : toApiError(upstream)(error))))),
        (answered): Effect.Effect<A, UpstreamError> =>
          Option.isSome(answered) ? Effect.succeed(answered.value) : permits.withPermits(1)(effect).pipe(
            Effect.mapError(toApiError(upstream)),
            withinWallTime(parameters.timeout_ms, (): UpstreamError => timedOut())
          )
      )

    /**
     * A streamed call (`stream: true`) to `path`: the effect ends when the upstream has answered a
     * 2xx (its failures, retries and timeout as a call's), the stream reads its `data:` frames up
     * to `[DONE]`, each text `pieceOf` a chunk's first choice, then the finish. The call holds a
     * permit, and its connection, until the stream ends or is dropped.
     */
    const streamed = (
      path: string,
      body: Record<string, unknown>,
      pieceOf: (choice: typeof StreamChunk.Type["choices"][number]) => string | null | undefined
    ): GenerationStream =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const response = yield* Effect.acquireRelease(permits.take(1), () => permits.release(1)).pipe(
          Effect.zipRight(tiedToScope(post(path, { ...body, stream: true, stream_options: { include_usage: true } }))),
          Scope.extend(scope),
          Effect.mapError(toApiError(upstream)),
          Effect.timeoutFail({ duration: parameters.timeout_ms, onTimeout: timedOut }),
          Effect.withClock(wallClock),
          Effect.onExit((exit) => (Exit.isFailure(exit) ? Scope.close(scope, exit) : Effect.void))
        )
        return Stream.suspend(() => {
          let finish_reason = "stop"
          let usage: { readonly prompt_tokens: number; readonly completion_tokens: number } | undefined
          let pieces = 0
          const texts = response.stream.pipe(
            Stream.decodeText(),
            Stream.pipeThroughChannel(Sse.makeChannel()),
            Stream.takeWhile((event) => event.data.trim() !== "[DONE]"),
            Stream.mapEffect((event) => decodeChunk(event.data)),
            Stream.mapConcat((chunk): ReadonlyArray<GenerationEvent> => {
              if (chunk.usage != null) usage = chunk.usage
              const choice = chunk.choices[0]
              if (choice?.finish_reason != null) finish_reason = choice.finish_reason
              const text = choice === undefined ? undefined : pieceOf(choice)
              if (text == null || text === "") return []
              pieces++
              return [{ _tag: "Text", text }]
            }),
            Stream.mapError((error): UpstreamError =>
              error._tag === "ParseError"
                ? new BadGateway({ detail: `The model's upstream ${upstream} streamed something unreadable` })
                : new BadGateway({ detail: `The model's upstream ${upstream} broke off its stream` })
            )
          )
          return boundIdle(texts, parameters.timeout_ms, timedOut).pipe(
            Stream.concat(Stream.sync((): GenerationEvent => ({
              _tag: "Finish",
              finish_reason,
              prompt_tokens: usage?.prompt_tokens ?? 0,
              response_tokens: usage?.completion_tokens ?? pieces
            }))),
            Stream.ensuring(Scope.close(scope, Exit.void))
          )
        })
      })

    return {
      chatStream: (messages, options) =>
        streamed("/chat/completions", {
          model: parameters.model,
          messages: messages.map((message) => ({ role: message.role, content: message.content })),
          ...generationBody(options)
        }, (choice) => choice.delta?.content),
      completeStream: (prompt, options) =>
        streamed("/completions", { model: parameters.model, prompt, ...generationBody(options) }, (choice) => choice.text),
      chat: (messages, options) =>
        Effect.map(
          call(postJson("/chat/completions", {
            model: parameters.model,
            messages: messages.map((message) => ({ role: message.role, content: message.content })),
            ...generationBody(options),
            ...chatLogprobs(options)
          }, ChatAnswer)),
          (response) => ({
            text: response.choices[0]?.message?.content ?? "",
            finish_reason: response.choices[0]?.finish_reason ?? "stop",
            prompt_tokens: response.usage?.prompt_tokens ?? 0,
            response_tokens: response.usage?.completion_tokens ?? 0,
            logprobs: options.logprobs === true ? fromChatLogprobs(response.choices[0]?.logprobs as any) : undefined
          })
        ),
      complete: (prompt, options) =>
        Effect.map(
          call(postJson("/completions", {
            model: parameters.model,
            prompt,
            ...generationBody(options),
            ...completionLogprobs(options)
          }, CompletionAnswer)),
          (response) => ({
            text: response.choices[0]?.text ?? "",
            finish_reason: response.choices[0]?.finish_reason ?? "stop",
            prompt_tokens: response.usage?.prompt_tokens ?? 0,
            response_tokens: response.usage?.completion_tokens ?? 0,
            logprobs: options.logprobs === true ? fromCompletionLogprobs(response.choices[0]?.logprobs as any) : undefined
          })
        ),
      embed: (texts) =>
        Effect.map(
          call(postJson("/embeddings", { model: parameters.model, input: [...texts], encoding_format: "float" }, EmbeddingAnswer)),
          (response) => ({
            vectors: [...response.data].sort((a, b) => a.index - b.index).map((item) => item.embedding),
            tokens: response.usage?.prompt_tokens ?? 0
          })
        )
    } satisfies Provider
    }
  })

