/**
 * Server-sent events (`text/event-stream`) as the platform's streaming endpoints answer them
 * (docs/models.md "Streaming"): one `data:` frame of JSON per element, `data: [DONE]` at the end;
 * a failure after the stream has started is one last frame, `errorFrame` of it, and no `[DONE]`.
 */
import { HttpServerResponse } from "@effect/platform"
import { Stream } from "effect"

const frame = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`

export const eventStream = <A, E>(frames: Stream.Stream<A, E>, errorFrame: (error: E) => unknown) =>
  HttpServerResponse.stream(
    frames.pipe(
      Stream.map(frame),
      Stream.concat(Stream.make("data: [DONE]\n\n")),
      Stream.catchAll((error) => Stream.make(frame(errorFrame(error)))),
      Stream.encodeText
    ),
    { contentType: "text/event-stream", headers: { "cache-control": "no-cache", "x-accel-buffering": "no" } }
  )
