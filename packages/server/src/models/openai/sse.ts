/**
 * Server-sent events as the platform's v5 and v4 beta SDKs decode them (docs/inference-v5.md
 * "Streaming"): one `data:` frame of JSON per element, without an `event:` line, and no `[DONE]`
 * (the SDKs parse every data-only frame as JSON; the body's end ends their stream, and OpenAI's
 * client's too). A failure after the start is one last frame named `event: error`: OpenAI's client
 * and v4's SDK raise it, the kit's client reads it as `StreamBrokeOff`, v5's SDK skips it.
 */
import { HttpServerResponse } from "@effect/platform"
import type { UpstreamError } from "@platform-kit/schema"
import { Stream } from "effect"
import { upstreamStatus } from "../inference/metered.js"

const frame = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`

/** The last frame of a stream `error` broke off: OpenAI's `error.message` and `type`, the kit's `status_code` and `detail`. */
const errorFrame = (error: UpstreamError) => {
  const status_code = upstreamStatus(error)
  const body = { error: { message: error.detail, type: error._tag, status_code, detail: error.detail } }
  return `event: error\n${frame(body)}`
}

export const dataOnlyEventStream = <A>(frames: Stream.Stream<A, UpstreamError>) =>
  HttpServerResponse.stream(
    frames.pipe(Stream.map(frame), Stream.catchAll((error) => Stream.make(errorFrame(error))), Stream.encodeText),
    { contentType: "text/event-stream", headers: { "cache-control": "no-cache", "x-accel-buffering": "no" } }
  )
