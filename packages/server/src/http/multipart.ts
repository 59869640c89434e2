/**
 * A request's multipart form, read so that a body ending before its closing boundary is answered.
 *
 * The platform's parser (`Multipart.makeChannel` of @effect/platform 0.97) never ends the stream
 * of a file part that is still open when the body ends: a form cut short inside a file (a client
 * that stops sending, a body without its closing `--boundary--`) was never answered. Here the body
 * is watched for its closing delimiter on its way to the parser; a body that ends without one gets
 * it appended, so that every open part ends, and the form then fails with a `MultipartError`
 * (`Parse`) after its last part: the upload endpoints answer it as a 422 and keep nothing.
 */
import { type HttpServerRequest, Multipart } from "@effect/platform"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Stream } from "effect"
import * as Http from "node:http"

const encoder = new TextEncoder()

/** The boundary of a `multipart/form-data` content type, if it names one. */
const boundaryOf = (contentType: string | undefined) => {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? "")
  return match === null ? undefined : match[1] ?? match[2]
}

/** Whether `haystack` holds `needle`. */
const includes = (haystack: Uint8Array, needle: Buffer) =>
  Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength).includes(needle)

/**
 * `body` as it comes, then, when it held no closing delimiter, the delimiter (and `onMissing`
 * called): the parser then ends every open part.
 */
const terminated = <E>(body: Stream.Stream<Uint8Array, E>, boundary: string, onMissing: () => void): Stream.Stream<Uint8Array, E> =>
  Stream.suspend(() => {
    const closing = Buffer.from(`--${boundary}--`)
    let tail = new Uint8Array(0)
    let closed = false
    return body.pipe(
      Stream.map((chunk) => {
        if (!closed) {
          // in the chunk itself, or straddling two: the end of the last one and the start of this
          // one (only those bytes copied: a large upload is not copied chunk by chunk)
          const junction = new Uint8Array(tail.length + Math.min(chunk.length, closing.length - 1))
          junction.set(tail)
          junction.set(chunk.subarray(0, junction.length - tail.length), tail.length)
          closed = includes(junction, closing) || includes(chunk, closing)
          const keep = closing.length - 1
          tail = chunk.length >= keep
            ? chunk.slice(chunk.length - keep)
            : junction.slice(Math.max(0, junction.length - keep))
        }
        return chunk
      }),
      Stream.concat(Stream.suspend(() => {
        if (closed) return Stream.empty
        onMissing()
        return Stream.make(encoder.encode(`\r\n--${boundary}--\r\n`))
      }))
    )
  })

/**
 * The request's body as it arrives. On Node, read without closing the request when it ends: the
 * platform's `request.stream` destroys the Node request at its end, and with it the socket the
 * response is still to be written on.
 */
const bodyOf = (request: HttpServerRequest.HttpServerRequest): Stream.Stream<Uint8Array, unknown> =>
  request.source instanceof Http.IncomingMessage
    ? NodeStream.fromReadable(() => request.source as Http.IncomingMessage, (cause) => cause, { closeOnDone: false })
    : request.stream

/** The parts of `request`'s form, failing after the last when the body ended before its closing boundary. */
export const multipartParts = (
  request: HttpServerRequest.HttpServerRequest,
  body: Stream.Stream<Uint8Array, unknown> = bodyOf(request)
): Stream.Stream<Multipart.Part, Multipart.MultipartError> => {
  const boundary = boundaryOf(request.headers["content-type"])
  if (boundary === undefined) return request.multipartStream
  return Stream.suspend(() => {
    let missing = false
    const input = terminated(
      Stream.mapError(body, (cause) => new Multipart.MultipartError({ reason: "InternalError", cause })),
      boundary,
      () => (missing = true)
    )
    return Stream.pipeThroughChannel(input, Multipart.makeChannel(request.headers)).pipe(
      Stream.concat(Stream.suspend(() =>
        missing
          ? Stream.fail(new Multipart.MultipartError({ reason: "Parse", cause: new Error("The body ended before the form's closing boundary") }))
          : Stream.empty
      ))
    ) as Stream.Stream<Multipart.Part, Multipart.MultipartError>
  })
}

/** Whether `request` sends a form. */
export const isMultipart = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-type"] ?? "").toLowerCase().startsWith("multipart/")

/** `request` whose `multipartStream` is `multipartParts` of it. */
export const withTerminatedMultipart = (request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest =>
  Object.create(request, {
    multipartStream: { get: () => multipartParts(request) },
    modify: { value: (options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]) => withTerminatedMultipart(request.modify(options)) }
  }) as HttpServerRequest.HttpServerRequest
