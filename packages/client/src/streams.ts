/**
 * Streamed generations (`stream: true`, docs/models.md "Streaming") as Effect `Stream`s: the
 * typed client's methods decode one JSON answer, so a streamed answer is read here, from the
 * response's `data:` frames, each decoded with the endpoint's frame Schema. A failure before the
 * stream starts is the error class of its status, as the typed client decodes it (`NotFound`,
 * `Conflict`, `ValidationError`, an upstream's `BadGateway`…); a failure after it `StreamBrokeOff`.
 */
import { HttpApiSchema, HttpClient, type HttpClientError, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import {
  ChatCompletionsStreamFrame,
  CompletionResponse,
  CompletionsStreamFrame,
  Conflict,
  Forbidden,
  InternalServerError,
  NotFound,
  OpenAiChatCompletionChunk,
  OpenAiCompletion,
  StreamBrokeOff,
  StreamErrorFrame,
  TaskStreamEvent,
  Unauthorized,
  UpstreamErrors,
  ValidationError
} from "@platform-kit/schema"
import { Effect, Option, type ParseResult, Redacted, Schema, Stream } from "effect"
import type { ClientOptions } from "./PlatformClient.js"

const decodeErrorFrame = Schema.decodeUnknownOption(Schema.parseJson(StreamErrorFrame))

/**
 * The `data:` frames of `response` (`text/event-stream`) up to `[DONE]`, each decoded with
 * `schema`; an error frame fails the stream with `StreamBrokeOff`.
 */
export const eventFrames = <A, I>(
  response: HttpClientResponse.HttpClientResponse,
  schema: Schema.Schema<A, I>
): Stream.Stream<A, StreamBrokeOff | ParseResult.ParseError | HttpClientError.ResponseError> => {
  const decode = Schema.decodeUnknown(Schema.parseJson(schema))
  return response.stream.pipe(
    Stream.decodeText(),
    Stream.splitLines,
    Stream.filterMap((line) => (line.startsWith("data:") ? Option.some(line.slice(5).trim()) : Option.none())),
    Stream.takeWhile((data) => data !== "[DONE]"),
    Stream.mapEffect((data): Effect.Effect<A, StreamBrokeOff | ParseResult.ParseError> =>
      Option.match(decodeErrorFrame(data), {
        onNone: () => decode(data),
        onSome: (frame) => Effect.fail(new StreamBrokeOff(frame.error))
      })
    )
  )
}

/** A frame of a task's stream: its number (`id:`; none for `connected`) and its event. */
export interface TaskFrame {
  readonly id: number | undefined
  readonly event: TaskStreamEvent
}

const decodeTaskEvent = Schema.decodeUnknown(Schema.parseJson(TaskStreamEvent))

/** The frames of a task's stream (`text/event-stream`: `id:` and `data:` lines; comments skipped). */
export const taskFrames = (
  response: HttpClientResponse.HttpClientResponse
): Stream.Stream<TaskFrame, ParseResult.ParseError | HttpClientError.ResponseError> => {
  let id: number | undefined
  return response.stream.pipe(
    Stream.decodeText(),
    Stream.splitLines,
    Stream.filterMap((line) => {
      if (line.startsWith("id:")) id = Number(line.slice(3).trim())
      if (!line.startsWith("data:")) return Option.none()
      const frame = { id, data: line.slice(5).trim() }
      id = undefined
      return Option.some(frame)
    }),
    Stream.mapEffect((frame) => Effect.map(decodeTaskEvent(frame.data), (event): TaskFrame => ({ id: frame.id, event })))
  )
}

/** The errors a generation endpoint answers before it streams, by the status their Schemas declare. */
const failures = [Unauthorized, Forbidden, NotFound, Conflict, ValidationError, ...UpstreamErrors] as const
const errorsByStatus = new Map<number, (typeof failures)[number]>(failures.map((Error) => [HttpApiSchema.getStatusError(Error), Error]))

export type StreamOpenError =
  | InstanceType<(typeof failures)[number]>
  | InternalServerError
  | HttpClientError.HttpClientError
  | ParseResult.ParseError

/** A failed answer as the class of its status (an unexpected status: `InternalServerError`). */
const failureOf = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<never, StreamOpenError> =>
  Effect.flatMap(response.json, (body) => {
    const schema = errorsByStatus.get(response.status) as Schema.Schema<StreamOpenError, unknown> | undefined
    return schema === undefined
      ? Effect.fail(new InternalServerError({ detail: `The server answered ${response.status}` }))
      : Effect.flatMap(Schema.decodeUnknown(schema)(body), Effect.fail)
  })

/**
 * Streams of the generation endpoints, over the `HttpClient` in context, with `options`' key and
 * base URL: `(yield* makeStreams(options)).chatCompletions(deploymentId, { chat_history: [], prompt: "hi" })`.
 * Each sends its body with `stream: true`; the stream holds the connection until it ends or is dropped.
 */
export const makeStreams = (options: ClientOptions) =>
  Effect.map(HttpClient.HttpClient, (http) => {
    const key = typeof options.apiKey === "string" ? options.apiKey : Redacted.value(options.apiKey)
    const open = <A, I>(path: string, body: Readonly<Record<string, unknown>>, frame: Schema.Schema<A, I>) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        let request = HttpClientRequest.post(path).pipe(
          HttpClientRequest.setHeader("x-api-key", key),
          HttpClientRequest.bodyUnsafeJson({ ...body, stream: true })
        )
        if (options.baseUrl !== undefined) request = HttpClientRequest.prependUrl(request, String(options.baseUrl))
        if (options.accountId !== undefined) request = HttpClientRequest.setHeader(request, "x-selected-account-id", options.accountId)
        const response = yield* http.execute(request)
        if (response.status !== 200) return yield* failureOf(response)
        return eventFrames(response, frame)
      }))
    /** A task's live stream: its frames, each with its number (`id`; none for `connected`). */
    const task = (path: string, lastEventId: number | undefined) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        let request = HttpClientRequest.get(path).pipe(HttpClientRequest.setHeader("x-api-key", key))
        if (options.baseUrl !== undefined) request = HttpClientRequest.prependUrl(request, String(options.baseUrl))
        if (options.accountId !== undefined) request = HttpClientRequest.setHeader(request, "x-selected-account-id", options.accountId)
        if (lastEventId !== undefined) request = HttpClientRequest.setHeader(request, "last-event-id", String(lastEventId))
        const response = yield* http.execute(request)
        if (response.status !== 200) return yield* failureOf(response)
        return taskFrames(response)
      }))
    return {
      /**
       * `GET /tasks/{id}/stream` (docs/agent-tasks.md "Streams"): `connected`, then each frame as
       * it is written, until a `task_updated` with a final status; `lastEventId` (the last `id`
       * seen) has the frames after it sent first.
       */
      taskEvents: (taskId: string, lastEventId?: number) => task(`/tasks/${encodeURIComponent(taskId)}/stream`, lastEventId),
      /** `GET /tasks/name/{name}/stream`. */
      taskEventsByName: (taskName: string, lastEventId?: number) =>
        task(`/tasks/name/${encodeURIComponent(taskName)}/stream`, lastEventId),
      /** `POST /v4/models/{deployment}/chat-completions`: `{completions: [[prompt, [piece]]]}` frames, the finish last. */
      chatCompletions: (deploymentId: string, body: Readonly<Record<string, unknown>>) =>
        open(`/v4/models/${deploymentId}/chat-completions`, body, CompletionResponse),
      completions: (deploymentId: string, body: Readonly<Record<string, unknown>>) =>
        open(`/v4/models/${deploymentId}/completions`, body, CompletionResponse),
      /** `POST /v4/chat-completions`: `token_usage` null until the last frame. */
      chatCompletionsByModel: (body: Readonly<Record<string, unknown>>) => open("/v4/chat-completions", body, ChatCompletionsStreamFrame),
      completionsByModel: (body: Readonly<Record<string, unknown>>) => open("/v4/completions", body, CompletionsStreamFrame),
      /** `POST /v5/chat/completions` (docs/inference-v5.md): OpenAI's `chat.completion.chunk`s, the finish and the usage last. */
      openAiChatCompletions: (body: Readonly<Record<string, unknown>>) => open("/v5/chat/completions", body, OpenAiChatCompletionChunk),
      /** `POST /v5/completions`: each frame a whole `text_completion`. */
      openAiCompletions: (body: Readonly<Record<string, unknown>>) => open("/v5/completions", body, OpenAiCompletion),
      /** `POST /v4/beta/chat/completions`: as v5's. */
      betaChatCompletions: (body: Readonly<Record<string, unknown>>) => open("/v4/beta/chat/completions", body, OpenAiChatCompletionChunk),
      /** `POST /v4/beta/completions`: as v5's. */
      betaCompletions: (body: Readonly<Record<string, unknown>>) => open("/v4/beta/completions", body, OpenAiCompletion)
    } as const
  })
