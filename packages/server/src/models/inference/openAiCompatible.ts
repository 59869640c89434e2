/**
 * A provider on an OpenAI-compatible API (docs/models.md "Providers"), through `@effect/ai-openai`'s
 * generated client: `POST {base_url}/chat/completions`, `/completions`, `/embeddings`, the key as
 * `Authorization: Bearer`. Retries a 429, a 5xx or a failed connection with exponential backoff
 * (`max_retries`), bounds the whole call (`timeout_ms`) and the calls at once (`max_concurrency`,
 * the caller's semaphore); maps what fails to the API's errors: the upstream's 400/404/422 a 400
 * with its reason, 429 after the retries a 429, anything else a 502, no answer in time a 504.
 */
import { OpenAiClient } from "@effect/ai-openai"
import type { HttpClientError } from "@effect/platform"
import { HttpClient } from "@effect/platform"
import {
  BadGateway,
  GatewayTimeout,
  type OpenAiCompatibleProviderParameters,
  UpstreamBadRequest,
  type UpstreamError,
  UpstreamRateLimited
} from "@platform-kit/schema"
import type { ParseResult } from "effect"
import { Clock, Effect, type Redacted, Schedule } from "effect"
import type { GenerationOptions, Provider } from "./Provider.js"

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

const generationBody = (options: GenerationOptions) => ({
  ...(options.max_tokens === undefined ? {} : { max_tokens: options.max_tokens }),
  ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
  ...(options.top_p === undefined ? {} : { top_p: options.top_p }),
  ...(options.frequency_penalty === undefined ? {} : { frequency_penalty: options.frequency_penalty }),
  ...(options.presence_penalty === undefined ? {} : { presence_penalty: options.presence_penalty }),
  ...(options.stop === undefined || options.stop.length === 0 ? {} : { stop: [...options.stop] })
})

/**
 * The provider of `parameters`, with `apiKey` (decrypted from the deployment's credential, held
 * redacted) and `permits` (the deployment's concurrency bound). Needs an `HttpClient`.
 */
export const openAiCompatibleProvider = (
  parameters: typeof OpenAiCompatibleProviderParameters.Type,
  apiKey: Redacted.Redacted | undefined,
  permits: Effect.Semaphore
): Effect.Effect<Provider, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    const upstream = parameters.base_url
    const client = yield* OpenAiClient.make({
      apiUrl: parameters.base_url.replace(/\/+$/, ""),
      ...(apiKey === undefined ? {} : { apiKey }),
      transformClient: HttpClient.retryTransient({
        schedule: Schedule.exponential("100 millis"),
        times: parameters.max_retries
      })
    }).pipe(Effect.provideService(HttpClient.HttpClient, http), Effect.scoped)

    /**
     * One call: bounded by the permits and the timeout, its failures the API's. Its backoff and
     * timeout keep wall time, whatever clock the caller runs on (a test's TestClock).
     */
    const call = <A>(effect: Effect.Effect<A, HttpClientError.HttpClientError | ParseResult.ParseError>) =>
      permits.withPermits(1)(effect).pipe(
        Effect.mapError(toApiError(upstream)),
        Effect.timeoutFail({
          duration: parameters.timeout_ms,
          onTimeout: (): UpstreamError =>
            new GatewayTimeout({ detail: `The model's upstream ${upstream} did not answer within ${parameters.timeout_ms} ms` })
        }),
        Effect.withClock(wallClock)
      )

    return {
      chat: (messages, options) =>
        Effect.map(
          call(client.client.createChatCompletion({
            model: parameters.model,
            messages: messages.map((message) => ({ role: message.role, content: message.content })),
            ...generationBody(options)
          } as any)),
          (response) => ({
            text: response.choices[0]?.message.content ?? "",
            finish_reason: response.choices[0]?.finish_reason ?? "stop",
            prompt_tokens: response.usage?.prompt_tokens ?? 0,
            response_tokens: response.usage?.completion_tokens ?? 0
          })
        ),
      complete: (prompt, options) =>
        Effect.map(
          call(client.client.createCompletion({ model: parameters.model, prompt, ...generationBody(options) } as any)),
          (response) => ({
            text: response.choices[0]?.text ?? "",
            finish_reason: response.choices[0]?.finish_reason ?? "stop",
            prompt_tokens: response.usage?.prompt_tokens ?? 0,
            response_tokens: response.usage?.completion_tokens ?? 0
          })
        ),
      embed: (texts) =>
        Effect.map(
          call(client.client.createEmbedding({ model: parameters.model, input: [...texts], encoding_format: "float" } as any)),
          (response) => ({
            vectors: [...response.data].sort((a, b) => a.index - b.index).map((item) => item.embedding as ReadonlyArray<number>),
            tokens: response.usage.prompt_tokens
          })
        )
    } satisfies Provider
  })

