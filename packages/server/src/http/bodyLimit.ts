/**
 * The request body size limit on the Node server: a body over the limit is answered 413 as soon as
 * that is known, without reading it whole and without resetting the connection.
 *
 * - A body that declares its length (`content-length`) over the limit gets 413 before any of it is read.
 * - A chunked body (`transfer-encoding`, no length) is read here into memory up to the limit; the
 *   first byte past it answers 413 at once. A body within the limit is handed to the API as if read
 *   from the socket.
 *
 * After a 413 the rest of the body is read and thrown away, up to a bound in bytes and time, so that a
 * client still sending receives the 413 rather than a reset; past the bound the connection is closed.
 *
 * Why not only the platform's `MaxBodySize`: when its reader passes the limit it destroys the Node
 * request stream, and with it the socket, so a chunked upload over the limit saw a connection reset
 * instead of the 413. `MaxBodySize` still guards the bodies this module does not see (a server that is
 * not Node's, such as `HttpApiBuilder.toWebHandler`).
 */
import { HttpServerError, HttpServerRequest, UrlParams } from "@effect/platform"
import type { HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect, Option, Stream } from "effect"
import * as Http from "node:http"
import { isMultipart, multipartParts, withTerminatedMultipart } from "./multipart.js"

/** How much of an oversized body is read and dropped after the 413, before the connection is closed. */
const discardBytes = (maxBytes: number) => 4 * Math.max(maxBytes, 1024 * 1024)
const discardMillis = 5_000

const nodeRequest = (request: HttpServerRequest.HttpServerRequest): Http.IncomingMessage | undefined =>
  request.source instanceof Http.IncomingMessage ? request.source : undefined

const nodeResponse = (request: HttpServerRequest.HttpServerRequest): Http.ServerResponse | undefined => {
  const response = (request as { readonly resolvedResponse?: unknown }).resolvedResponse
  return response instanceof Http.ServerResponse ? response : undefined
}

/**
 * Reads the rest of an oversized body and drops it; closes the connection (once the 413 is out)
 * when more than the bound arrives or the body does not end in time.
 */
export const discardRest = (request: HttpServerRequest.HttpServerRequest, maxBytes: number) => {
  const source = nodeRequest(request)
  if (source === undefined || source.readableEnded) return
  const response = nodeResponse(request)
  const close = () => {
    const socket = source.socket
    if (response === undefined || response.writableFinished) socket?.destroy()
    else response.once("finish", () => socket?.destroy())
  }
  let discarded = 0
  const timer = setTimeout(close, discardMillis)
  timer.unref()
  const onData = (chunk: Buffer) => {
    discarded += chunk.length
    if (discarded > discardBytes(maxBytes)) {
      source.off("data", onData)
      clearTimeout(timer)
      close()
    }
  }
  source.on("data", onData)
  source.once("end", () => clearTimeout(timer))
  source.once("close", () => clearTimeout(timer))
  source.resume()
}

/** The body of `source`, if it ends within `maxBytes`; none as soon as it passes them. */
export const readUpTo = (source: Http.IncomingMessage, maxBytes: number) =>
  Effect.async<Option.Option<Buffer>>((resume) => {
    const chunks: Array<Buffer> = []
    let bytes = 0
    const stop = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onClosed)
      source.off("close", onClosed)
      source.pause()
    }
    const onData = (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes > maxBytes) {
        stop()
        resume(Effect.succeedNone)
      } else {
        chunks.push(chunk)
      }
    }
    const onEnd = () => {
      stop()
      resume(Effect.succeedSome(Buffer.concat(chunks)))
    }
    // the client went away mid-body: the request fiber is interrupted by the server anyway
    const onClosed = () => {
      stop()
      resume(Effect.interrupt)
    }
    source.on("data", onData)
    source.once("end", onEnd)
    source.once("error", onClosed)
    source.once("close", onClosed)
    return Effect.sync(stop)
  })

/** `request` with its body already read into `body`: every body accessor answers from it. */
export const withBody = (
  request: HttpServerRequest.HttpServerRequest,
  body: Uint8Array
): HttpServerRequest.HttpServerRequest => {
  const decodeError = (cause: unknown) => new HttpServerError.RequestError({ request, reason: "Decode", cause })
  const text = Effect.sync(() => new TextDecoder().decode(body))
  const json = Effect.flatMap(text, (content) =>
    Effect.try({ try: () => (content === "" ? null : JSON.parse(content) as unknown), catch: decodeError }))
  const urlParamsBody = Effect.flatMap(text, (content) =>
    Effect.try({ try: () => UrlParams.fromInput(new URLSearchParams(content)), catch: decodeError }))
  // a copy of its own: a small Buffer's `.buffer` is Node's shared pool, not these bytes
  const arrayBuffer = Effect.sync(() => new Uint8Array(body).buffer as ArrayBuffer)
  return Object.create(request, {
    text: { value: text },
    json: { value: json },
    urlParamsBody: { value: urlParamsBody },
    arrayBuffer: { value: arrayBuffer },
    stream: { value: Stream.succeed(body) },
    // a form read from the body in memory (the Node request's own parser reads the socket, drained
    // by now); a parser of its own for each reading (a parser keeps state: the idempotency
    // middleware reads a form before its handler does)
    multipartStream: { get: () => multipartParts(request, Stream.succeed(body)) },
    modify: { value: (options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]) => withBody(request.modify(options), body) }
  }) as HttpServerRequest.HttpServerRequest
}

/**
 * Answers `tooLarge` for a body over `maxBytes` (declared or chunked) and runs `app` otherwise; see
 * the module comment.
 */
export const limitBody = (maxBytes: number, tooLarge: () => HttpServerResponse.HttpServerResponse) =>
<E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const declared = request.headers["content-length"]
    if (declared !== undefined) {
      if (Number(declared) <= maxBytes) {
        // a form is read so that one cut short is answered (multipart.ts)
        return isMultipart(request)
          ? Effect.provideService(app, HttpServerRequest.HttpServerRequest, withTerminatedMultipart(request))
          : app
      }
      discardRest(request, maxBytes)
      return Effect.succeed(tooLarge())
    }
    const source = nodeRequest(request)
    // without a length and without transfer-encoding, an HTTP/1.1 request has no body
    if (source === undefined || request.headers["transfer-encoding"] === undefined) return app
    return Effect.flatMap(readUpTo(source, maxBytes), (body) => {
      if (Option.isSome(body)) {
        return Effect.provideService(app, HttpServerRequest.HttpServerRequest, withBody(request, body.value))
      }
      discardRest(request, maxBytes)
      return Effect.succeed(tooLarge())
    })
  })

/**
 * The limit of a route whose handler streams the body where it goes (a file upload: files/),
 * instead of `limitBody`'s: a body that declares a length over `maxBytes` is answered 413 at once;
 * any other, chunked included, reaches `app` unread (a form through `withTerminatedMultipart`), and
 * `app` holds what it reads to its own limit, answering 413 itself when a body grows past it.
 * After a 413 the rest of the body is read and dropped (`discardRest`), not left on the socket.
 */
export const limitStreamedBody = (maxBytes: number, tooLarge: () => HttpServerResponse.HttpServerResponse) =>
<E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const declared = request.headers["content-length"]
    if (declared !== undefined && !(Number(declared) <= maxBytes)) {
      discardRest(request, maxBytes)
      return Effect.succeed(tooLarge())
    }
    const served = isMultipart(request)
      ? Effect.provideService(app, HttpServerRequest.HttpServerRequest, withTerminatedMultipart(request))
      : app
    return Effect.tap(served, (response) => response.status === 413 ? Effect.sync(() => discardRest(request, maxBytes)) : Effect.void)
  })
