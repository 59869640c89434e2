/**
 * A process's answer, whole or streamed (docs/applications.md "Processing"): with `stream: true`,
 * server-sent events, one `data:` frame of JSON each: `{"type": "text", "node_id", "text"}` for
 * each piece of a completion node's text as the model gives it, then `{"type": "answer", "answer":
 * {…}}` with the whole answer, then `data: [DONE]`. A failure once the stream has started is one
 * last frame `{"error": {"status_code", "detail"}}` (as the model streams', docs/models.md
 * "Streaming"), without `[DONE]`. The checks before any node runs answer as without streaming
 * (400, 404, 409, 422).
 */
import type { Conflict, NotFound, UpstreamError } from "@platform-kit/schema"
import { Effect, Queue, Stream } from "effect"
import { eventStream } from "../../http/sse.js"
import { upstreamStatus } from "../../models/inference/metered.js"
import type { OnText } from "./runner.js"

type RunError = NotFound | Conflict | UpstreamError
type Answer = Record<string, unknown>

type Item =
  | { readonly type: "text"; readonly node_id: string; readonly text: string }
  | { readonly type: "answer"; readonly answer: Answer }
  | { readonly type: "failed"; readonly error: RunError }
  | { readonly type: "end" }

const statusOf = (error: RunError) =>
  error._tag === "NotFound" ? 404 : error._tag === "Conflict" ? 409 : upstreamStatus(error)

/**
 * `prepare` (the checks, answering the run, its completion text handed to the `OnText` given),
 * answered whole, or streamed when `stream` is true.
 */
export const processAnswer = <E1, R1, R2>(
  prepare: (onText?: OnText) => Effect.Effect<Effect.Effect<Answer, RunError, R2>, E1, R1>,
  stream: boolean | undefined
) =>
  stream !== true
    ? Effect.flatten(prepare())
    : Effect.gen(function*() {
      const queue = yield* Queue.unbounded<Item>()
      const run = yield* prepare((node_id, text) => Queue.offer(queue, { type: "text", node_id, text }))
      // the response streams after the handler has answered: the run keeps the handler's services
      const context = yield* Effect.context<R2>()
      // runs beside the response: its pieces, then its answer or its failure, then the end
      const driver = run.pipe(
        Effect.matchEffect({
          onFailure: (error) => Queue.offer(queue, { type: "failed", error }),
          onSuccess: (answer) => Queue.offer(queue, { type: "answer", answer })
        }),
        Effect.zipRight(Queue.offer(queue, { type: "end" })),
        Effect.provide(context)
      )
      const frames = Stream.fromQueue(queue).pipe(
        Stream.takeWhile((item) => item.type !== "end"),
        Stream.mapEffect((item) => (item.type === "failed" ? Effect.fail(item.error) : Effect.succeed(item))),
        Stream.merge(Stream.drain(Stream.fromEffect(driver)))
      )
      return eventStream(frames, (error) => ({ error: { status_code: statusOf(error), detail: error.detail } }))
    })
