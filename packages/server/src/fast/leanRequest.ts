/**
 * The `HttpServerRequest` the lean server (server.ts) gives handlers and middlewares: a Node request
 * whose body the lean server reads (within the size limit, once the caller is authenticated) into `body`. Headers are Node's
 * own object, read as they are (Node lower-cases the names); every body accessor answers from
 * `body`. Multipart and upgrades are not served by the lean server (such endpoints go to the
 * builder's path), so they fail here.
 */
import { Cookies, HttpIncomingMessage, HttpServerError, HttpServerRequest, UrlParams } from "@effect/platform"
import type { Headers, HttpMethod, Multipart } from "@effect/platform"
import { Effect, Inspectable, Option, Stream } from "effect"
import type * as Http from "node:http"

export class LeanRequest extends Inspectable.Class implements HttpServerRequest.HttpServerRequest {
  readonly [HttpServerRequest.TypeId]: HttpServerRequest.TypeId = HttpServerRequest.TypeId
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId

  constructor(
    readonly source: Http.IncomingMessage,
    /** The body as text ("" for none); the lean server sets it once it has read it (after authentication). */
    public body: string = "",
    readonly url: string = source.url!,
    readonly headers: Headers.Headers = source.headers as Headers.Headers,
    private readonly remoteAddressOverride?: string
  ) {
    super()
  }

  get originalUrl() {
    return this.source.url!
  }

  get method() {
    return this.source.method!.toUpperCase() as HttpMethod.HttpMethod
  }

  get remoteAddress() {
    return Option.fromNullable(this.remoteAddressOverride ?? this.source.socket.remoteAddress)
  }

  get cookies() {
    return Cookies.parseHeader(this.headers.cookie ?? "")
  }

  private decodeError(cause: unknown): HttpServerError.RequestError {
    return new HttpServerError.RequestError({ request: this, reason: "Decode", cause })
  }

  get text(): Effect.Effect<string, HttpServerError.RequestError> {
    return Effect.succeed(this.body)
  }

  get json(): Effect.Effect<unknown, HttpServerError.RequestError> {
    return Effect.try({
      try: () => (this.body === "" ? null : JSON.parse(this.body) as unknown),
      catch: (cause) => this.decodeError(cause)
    })
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpServerError.RequestError> {
    return Effect.try({
      try: () => UrlParams.fromInput(new URLSearchParams(this.body)),
      catch: (cause) => this.decodeError(cause)
    })
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpServerError.RequestError> {
    return Effect.sync(() => new TextEncoder().encode(this.body).buffer as ArrayBuffer)
  }

  get stream(): Stream.Stream<Uint8Array, HttpServerError.RequestError> {
    return Stream.sync(() => new TextEncoder().encode(this.body))
  }

  get multipart(): Effect.Effect<Multipart.Persisted, Multipart.MultipartError, never> {
    return Effect.die(new Error("multipart bodies are not served by the lean server"))
  }

  get multipartStream(): Stream.Stream<Multipart.Part, Multipart.MultipartError> {
    return Stream.die(new Error("multipart bodies are not served by the lean server"))
  }

  get upgrade(): Effect.Effect<never, HttpServerError.RequestError> {
    return Effect.fail(this.decodeError("upgrades are not served by the lean server"))
  }

  modify(options: { readonly url?: string; readonly headers?: Headers.Headers; readonly remoteAddress?: string }) {
    return new LeanRequest(
      this.source,
      this.body,
      options.url ?? this.url,
      options.headers ?? this.headers,
      options.remoteAddress ?? this.remoteAddressOverride
    )
  }

  toJSON(): unknown {
    return { _id: "@effect/platform/HttpServerRequest", method: this.method, url: this.originalUrl }
  }
}
