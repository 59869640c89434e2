/**
 * Calls to an agent's ACP server (docs/agent-tasks.md "Calling agents"): JSON-RPC 2.0 posted to
 * `{acp_url}/api`, with the agent's key as `x-agent-api-key` and the request's id as
 * `x-request-id`, as the agentex server calls them. `message/send` is read as NDJSON, one JSON-RPC
 * response per line whose `result` is a message update (a bare content, or a list of them, is
 * taken as `full` updates); the other methods answer one JSON-RPC response, whose result is
 * ignored (but for `task/query`'s, the answer of a task query). A transport failure, an HTTP error, an answer that is not JSON-RPC, or a JSON-RPC
 * `error` is an `AcpCallFailed` naming what went wrong (never the key).
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { completeContent, TaskMessageContentInput, TaskMessageUpdateInput } from "@platform-kit/schema"
import type { AgentRpcMethod, TaskMessageUpdate } from "@platform-kit/schema"
import { Context, Data, Duration, Effect, Layer, Redacted, Schema, Stream } from "effect"

/**
 * A call that failed: `code` is the JSON-RPC error code when the agent answered one, `timedOut`
 * when it did not answer in time.
 */
export class AcpCallFailed extends Data.TaggedError("AcpCallFailed")<{
  readonly message: string
  readonly code?: number | undefined
  readonly timedOut?: boolean | undefined
}> {}

/** What the kit calls on an agent: the RPC methods it forwards, and `task/query` (docs/agent-tasks.md "Queries"). */
export type AcpMethod = AgentRpcMethod | "task/query"

/** Where to call: the agent's ACP URL and its key (decrypted for the call). */
export interface AcpTarget {
  readonly acpUrl: string
  readonly key: Redacted.Redacted | undefined
  readonly requestId: string
}

const RpcLine = Schema.Struct({
  id: Schema.optional(Schema.Unknown),
  result: Schema.optional(Schema.Unknown),
  error: Schema.optional(Schema.NullOr(Schema.Struct({ code: Schema.optional(Schema.Unknown), message: Schema.optional(Schema.Unknown) })))
})
const decodeLine = Schema.decodeUnknownEither(Schema.parseJson(RpcLine))
const decodeUpdate = Schema.decodeUnknownEither(TaskMessageUpdateInput)
const decodeContents = Schema.decodeUnknownEither(Schema.Union(TaskMessageContentInput, Schema.Array(TaskMessageContentInput)))

/** An update as the platform passes it on: its content with the defaults filled in. */
const completed = (update: TaskMessageUpdateInput): TaskMessageUpdate =>
  update.type === "start" || update.type === "full" ? { ...update, content: completeContent(update.content) } : update

/** A call's longest wait for an answer (for `message/send`: between two lines). */
const callTimeout = Duration.seconds(60)

/** The result of one JSON-RPC line of an agent's answer; its `error` as a failure. */
const resultOf = (line: string): Effect.Effect<unknown, AcpCallFailed> => {
  const parsed = decodeLine(line)
  if (parsed._tag === "Left") return Effect.fail(new AcpCallFailed({ message: "The agent answered a line that is not a JSON-RPC response" }))
  const { error, result } = parsed.right
  if (error !== undefined && error !== null) {
    return Effect.fail(new AcpCallFailed({
      message: `The agent answered an error: ${String(error.message ?? "no message")}`,
      code: typeof error.code === "number" ? error.code : undefined
    }))
  }
  return Effect.succeed(result)
}

/** The updates one line of a `message/send` answer carries. */
const updatesOf = (line: string): Effect.Effect<ReadonlyArray<TaskMessageUpdate>, AcpCallFailed> =>
  Effect.flatMap(resultOf(line), (result) => {
  if (result === undefined || result === null) return Effect.succeed([])
  const update = decodeUpdate(result)
  if (update._tag === "Right") return Effect.succeed([completed(update.right)])
  const contents = decodeContents(result)
  if (contents._tag === "Right") {
    const list = Array.isArray(contents.right) ? contents.right : [contents.right]
    return Effect.succeed(list.map((content, index) => ({ type: "full" as const, index, content: completeContent(content) })))
  }
  return Effect.fail(new AcpCallFailed({ message: "The agent answered a result that is neither a message update nor a content" }))
  })

export class AgentCalls extends Effect.Service<AgentCalls>()("@platform-kit/server/AgentCalls", {
  scoped: Effect.gen(function*() {
    // undici's dispatcher, made at the first call to an agent (as ModelProviders' upstreams)
    const scope = yield* Effect.scope
    const httpClient = yield* Effect.cached(
      Effect.map(Layer.buildWithScope(NodeHttpClient.layerUndici, scope), Context.get(HttpClient.HttpClient))
    )

    const post = (target: AcpTarget, method: AcpMethod, params: unknown, id: string) =>
      Effect.gen(function*() {
        const client = yield* httpClient
        const request = HttpClientRequest.post(`${target.acpUrl.replace(/\/+$/, "")}/api`).pipe(
          HttpClientRequest.setHeaders({
            "x-request-id": target.requestId,
            ...(target.key === undefined ? {} : { "x-agent-api-key": Redacted.value(target.key) })
          }),
          HttpClientRequest.bodyUnsafeJson({ jsonrpc: "2.0", id, method, params })
        )
        const response = yield* client.execute(request).pipe(
          Effect.timeoutFail({ duration: callTimeout, onTimeout: () => new AcpCallFailed({ message: "The agent did not answer in time", timedOut: true }) }),
          Effect.catchTags({
            RequestError: (error) => Effect.fail(new AcpCallFailed({ message: `The agent cannot be reached (${error.reason})` })),
            ResponseError: () => Effect.fail(new AcpCallFailed({ message: "The agent's answer could not be read" }))
          })
        )
        if (response.status < 200 || response.status >= 300) {
          return yield* Effect.fail(new AcpCallFailed({ message: `The agent answered HTTP ${response.status}` }))
        }
        return response
      })

    /** Calls `method` and answers the result of its answer's first line. */
    const ask = (target: AcpTarget, method: AcpMethod, params: unknown, id: string): Effect.Effect<unknown, AcpCallFailed> =>
      Effect.scoped(
        Effect.gen(function*() {
          const response = yield* post(target, method, params, id)
          const text = yield* response.text.pipe(
            Effect.timeoutFail({ duration: callTimeout, onTimeout: () => new AcpCallFailed({ message: "The agent did not answer in time", timedOut: true }) }),
            Effect.catchTag("ResponseError", () => Effect.fail(new AcpCallFailed({ message: "The agent's answer broke off" })))
          )
          // the first line (an agent may answer NDJSON to any method)
          return yield* resultOf(text.split("\n").find((line) => line.trim().length > 0) ?? "")
        })
      )

    /** Calls `method` and waits for its answer (anything but an error is taken; the result is not used). */
    const call = (target: AcpTarget, method: AgentRpcMethod, params: unknown, id: string): Effect.Effect<void, AcpCallFailed> =>
      Effect.asVoid(ask(target, method, params, id))

    /** Calls `message/send` and streams the message updates the agent answers, line by line. */
    const send = (target: AcpTarget, params: unknown, id: string): Stream.Stream<TaskMessageUpdate, AcpCallFailed> =>
      Stream.unwrapScoped(
        Effect.map(post(target, "message/send", params, id), (response) =>
          response.stream.pipe(
            Stream.catchTag("ResponseError", () => Stream.fail(new AcpCallFailed({ message: "The agent's answer broke off" }))),
            Stream.decodeText(),
            Stream.splitLines,
            Stream.filter((line) => line.trim().length > 0),
            Stream.timeoutFail(() => new AcpCallFailed({ message: "The agent stopped answering" }), callTimeout),
            Stream.mapEffect(updatesOf),
            Stream.flattenIterables
          ))
      )

    return { ask, call, send } as const
  })
}) {}
