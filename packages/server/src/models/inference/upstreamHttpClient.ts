/**
 * The `HttpClient` the upstream calls go through (`@effect/ai-openai`'s client is made on it):
 * the platform's interface, made with `HttpClient.makeWith` on undici's dispatcher, as
 * `NodeHttpClient.makeUndici` makes it, but without a Node `AbortSignal` per request.
 *
 * Why (docs/benchmarks.md "A model call"): undici listens for `abort` on the
 * signal a request is given, and on Node 20 a listener on an `AbortSignal` keeps what it closes
 * over (the request's fibers, its context, its answer) alive past the next two scavenges of the
 * young generation, even once removed: each call to an upstream then left about 10 KB in the old
 * generation, and the scavenges copied it (a quarter of the kit's CPU on that path). undici takes
 * any object with `addEventListener` as a signal; `AbortHandle` below is one, with nothing of
 * Node's event machinery. Measured in a loop of 10 concurrent calls to a local upstream answering
 * after 20 ms (a script of a few lines): undici with an `AbortController` promoted about 480 KB a
 * scavenge, with an `AbortHandle` or no signal 14–17 KB.
 *
 * A call's answer comes with its body read whole (every call but a stream's reads it whole: the
 * platform's client answers at the headers and reads the body in a second wait, about 10 µs of a
 * call's CPU more: docs/benchmarks.md "A model call"); its text, JSON, bytes or stream are then
 * read from memory, as often as asked. An interruption while the request or the body is under way
 * aborts it. Within `tiedToScope` (a stream's call, read by another fiber) the answer comes at the
 * headers, its body is read once, as text, array buffer, form data or stream, and the request is
 * aborted when the fiber's `Scope` closes, whatever was read, as the platform's
 * `HttpClient.withScope` ties a request to one (undici's timeouts are off here: an unread body
 * would hold its connection). Errors are the platform's: `RequestError` (`Transport`,
 * `InvalidUrl`), `ResponseError` (`Decode`: a 2xx's body broken off, now at the answer; an error
 * status whose body breaks off answers that status, its body empty: the status is what a caller
 * reads). Unlike the platform's, it opens no client span and sends no trace headers (the
 * standalone server traces nothing).
 */
import { Cookies, Headers, HttpClient, HttpClientError, HttpClientResponse, HttpIncomingMessage, UrlParams } from "@effect/platform"
import type { HttpClientRequest } from "@effect/platform"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Context, Effect, Either, type Fiber, FiberRef, Inspectable, Option, Scope, Stream } from "effect"
import { globalValue } from "effect/GlobalValue"
import type * as Undici from "undici"

/** A request's body as undici takes it. */
type Body = Exclude<Undici.Dispatcher.DispatchOptions["body"], undefined>

const bodyOf = (body: HttpClientRequest.HttpClientRequest["body"]): Effect.Effect<Body> => {
  switch (body._tag) {
    case "Empty":
      return Effect.succeed(null)
    case "Uint8Array":
      return Effect.succeed(body.body)
    case "Raw":
      return Effect.succeed(body.body as Body)
    case "FormData":
      return Effect.succeed(body.formData as unknown as Body)
    case "Stream":
      return NodeStream.toReadable(body.stream)
  }
}

/**
 * A request's abort as undici takes a `signal` (an object with `addEventListener`): the listeners
 * undici adds (its request handler's), called once by `abort`; none once the request is `settle`d
 * (its body read whole: undici would make an error, stack and all, for an abort that aborts
 * nothing, as its listener goes only when the body closes).
 */
class AbortHandle {
  aborted = false
  readonly reason = undefined
  private listeners: Array<() => void> = []
  settle() {
    this.listeners = []
  }
  addEventListener(_type: "abort", listener: () => void) {
    this.listeners.push(listener)
  }
  removeEventListener(_type: "abort", listener: () => void) {
    const at = this.listeners.indexOf(listener)
    if (at !== -1) this.listeners.splice(at, 1)
  }
  readonly abort = () => {
    if (this.aborted) return
    this.aborted = true
    const listeners = this.listeners
    this.listeners = []
    for (const listener of listeners) listener()
  }
}

/**
 * Aborts the request of a response of `tiedToScope` collected unread: a stream made and never run
 * (its scope never closed) does not hold its connection for ever.
 */
const unread = new FinalizationRegistry<AbortHandle>((handle) => handle.abort())

class UpstreamResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  private read: Promise<unknown> | undefined
  private readAs: string | undefined
  private cachedCookies: Cookies.Cookies | undefined

  constructor(
    readonly request: HttpClientRequest.HttpClientRequest,
    readonly source: Undici.Dispatcher.ResponseData,
    readonly handle: AbortHandle,
    /** The body, read whole with the answer; none for a call `tiedToScope`, whose body comes as it is read. */
    private readonly whole?: Uint8Array
  ) {
    super()
    if (whole === undefined) {
      unread.register(this, handle, this)
      source.body.on("error", ignore)
    }
  }

  get status() {
    return this.source.statusCode
  }
  get headers() {
    return Headers.fromInput(this.source.headers as Record<string, string | ReadonlyArray<string>>)
  }
  get cookies() {
    if (this.cachedCookies !== undefined) return this.cachedCookies
    const header = this.source.headers["set-cookie"]
    return this.cachedCookies = header === undefined
      ? Cookies.empty
      : Cookies.fromSetCookie(Array.isArray(header) ? header : [header])
  }
  get remoteAddress() {
    return Option.none<string>()
  }

  private error(cause: unknown): HttpClientError.ResponseError {
    return new HttpClientError.ResponseError({ request: this.request, response: this, reason: "Decode", cause })
  }

  /**
   * The body of a `tiedToScope` call read once, `as` text, array buffer or form data, by `read` (a
   * second read as the same answers the first's result; as another, a `Decode` error); an
   * interruption aborts it. Once read whole, the request is done: an abort then (its scope
   * closing) does nothing. (A body read whole with the answer reads from memory; its form data
   * through here too.)
   */
  private body<A>(as: string, read: () => Promise<A>): Effect.Effect<A, HttpClientError.ResponseError> {
    return Effect.onInterrupt(
      Effect.tryPromise({
        try: () => {
          if (this.readAs !== undefined && this.readAs !== as) {
            return Promise.reject(new Error(`the body was read as ${this.readAs} already`))
          }
          this.readAs = as
          return (this.read ??= read().then(
            (value) => {
              this.handle.settle()
              return value
            },
            (cause) => {
              this.handle.settle()
              throw cause
            }
          )) as Promise<A>
        },
        catch: (cause) => this.error(cause)
      }),
      () => Effect.sync(this.handle.abort)
    )
  }

  get text() {
    const whole = this.whole
    if (whole !== undefined) return Effect.sync(() => utf8.decode(whole))
    return this.body("text", () => this.source.body.text())
  }
  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({ try: (): unknown => (text === "" ? null : JSON.parse(text)), catch: (cause) => this.error(cause) }))
  }
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({ try: () => UrlParams.fromInput(new URLSearchParams(text)), catch: (cause) => this.error(cause) }))
  }
  get arrayBuffer() {
    const whole = this.whole
    if (whole !== undefined) return Effect.sync(() => whole.buffer.slice(whole.byteOffset, whole.byteOffset + whole.byteLength) as ArrayBuffer)
    return this.body("array buffer", () => this.source.body.arrayBuffer())
  }
  get formData() {
    const whole = this.whole
    if (whole !== undefined) {
      return this.body("form data", () => new Response(whole, { headers: this.headers as Record<string, string> }).formData() as Promise<FormData>)
    }
    return this.body("form data", () => this.source.body.formData() as Promise<FormData>)
  }
  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    if (this.whole !== undefined) return Stream.succeed(this.whole)
    unread.unregister(this)
    return NodeStream.fromReadable(() => this.source.body, (cause) => this.error(cause))
  }

  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, {
      _id: "@effect/platform/HttpClientResponse",
      request: this.request.toJSON(),
      status: this.status
    })
  }
}

const ignore = () => {}

/** UTF-8 as undici's `text()` reads it: a byte order mark dropped. */
const utf8 = new TextDecoder()

const abortsWithScope = globalValue(
  Symbol.for("@platform-kit/server/upstreamHttpClient/abortsWithScope"),
  () => FiberRef.unsafeMake(false)
)

/**
 * `effect`, its requests answered at their headers, their bodies read as they come, and aborted
 * when the fiber's `Scope` closes (a stream's scope: the stream's end or its drop; a fiber without
 * one is a defect). Outside it a request is answered with its body read whole and aborted only by
 * an interruption: a scope that lives long (a workflow's) would otherwise keep a finalizer per
 * call until it closes.
 */
export const tiedToScope = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locally(effect, abortsWithScope, true)

/**
 * A call's deadline (`withDeadline`, `at` on `performance.now()`): once it has `expire`d, the
 * request under way in the call's fiber is aborted, the fiber waiting for its answer woken with a
 * failure (undici acts on an abort only once it has a connection: a connection still being made
 * would hold the call), and any request the fiber makes after is aborted at once.
 */
export class Deadline {
  expired = false
  private current: (() => void) | undefined = undefined
  constructor(readonly at: number) {}
  readonly expire = () => {
    this.expired = true
    const current = this.current
    this.current = undefined
    current?.()
  }
  /** `abort` (a request's) when the deadline expires, or now if it has. */
  watch(abort: () => void) {
    if (this.expired) abort()
    else this.current = abort
  }
}

/** The deadline of the call each fiber runs, while it runs one. */
const deadlines = new WeakMap<Fiber.RuntimeFiber<unknown, unknown>, Deadline>()

/**
 * The effect `f` makes, its requests under a deadline `millis` of wall time away: aborted when it
 * expires (a Node timer). In the caller's fiber: a fiber of its own, bounded whole, would cost a
 * call 9 % of its CPU (docs/benchmarks.md "A model call"); so the effect must make its requests in
 * that fiber (the model tests' timeouts fail otherwise). What else it waits for (a backoff:
 * `retried` in openAiCompatible.ts) reads `currentDeadline`.
 */
export const withDeadline = <A, E, R>(millis: number, f: (deadline: Deadline) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.withFiberRuntime((fiber) => {
      const deadline = new Deadline(performance.now() + millis)
      const timer = setTimeout(deadline.expire, millis)
      const outer = deadlines.get(fiber)
      deadlines.set(fiber, deadline)
      return Effect.ensuring(
        restore(f(deadline)),
        Effect.sync(() => {
          clearTimeout(timer)
          if (outer === undefined) deadlines.delete(fiber)
          else deadlines.set(fiber, outer)
        })
      )
    })
  )

/** The deadline of the call the current fiber runs, if any. */
export const currentDeadline: Effect.Effect<Deadline | undefined> = Effect.withFiberRuntime((fiber) =>
  Effect.succeed(deadlines.get(fiber))
)

/** The client of the upstream calls, on `dispatcher`. */
export const make = (dispatcher: Undici.Dispatcher): HttpClient.HttpClient =>
  HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
    (effect) =>
      Effect.flatMap(effect, (request) => {
        const url = UrlParams.makeUrl(request.url, request.urlParams, request.hash)
        if (Either.isLeft(url)) return Effect.fail(new HttpClientError.RequestError({ request, reason: "InvalidUrl", cause: url.left }))
        const { origin, pathname, search, hash } = url.right
        return Effect.flatMap(bodyOf(request.body), (body) =>
          Effect.withFiberRuntime<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((fiber) => {
            const handle = new AbortHandle()
            const deadline = deadlines.get(fiber)
            const tied = fiber.getFiberRef(abortsWithScope)
            const scope = tied ? Context.getOption(fiber.currentContext, Scope.Scope) : Option.none()
            if (tied && Option.isNone(scope)) return Effect.dieMessage("tiedToScope: the request's fiber has no Scope")
            const sent = Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((resume) => {
              // the deadline wakes the fiber itself: undici fails an aborted request only once connected
              deadline?.watch(() => {
                handle.abort()
                resume(Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause: "the call's deadline passed" })))
              })
              dispatcher.request({
                signal: handle as unknown as AbortSignal,
                method: request.method,
                headers: request.headers,
                origin,
                path: pathname + search + hash,
                body,
                // the caller bounds the call (openAiCompatible.ts): undici's own timeouts off
                headersTimeout: 0,
                bodyTimeout: 0
              }).then(
                (source) => {
                  if (tied) return resume(Effect.succeed(new UpstreamResponse(request, source, handle)))
                  // read whole before the fiber goes on: one wait for the answer and its body
                  source.body.bytes().then(
                    (whole) => {
                      handle.settle()
                      resume(Effect.succeed(new UpstreamResponse(request, source, handle, whole)))
                    },
                    (cause) => {
                      handle.settle()
                      const response = new UpstreamResponse(request, source, handle, new Uint8Array(0))
                      // an error's body broken off is an error without its reason, as when read apart
                      if (source.statusCode < 200 || source.statusCode >= 300) return resume(Effect.succeed(response))
                      resume(Effect.fail(new HttpClientError.ResponseError({ request, response, reason: "Decode", cause })))
                    }
                  )
                },
                (cause) => {
                  handle.settle()
                  resume(Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause })))
                }
              )
              return Effect.sync(handle.abort)
            })
            return Option.isSome(scope) ? Effect.zipRight(Scope.addFinalizer(scope.value, Effect.sync(handle.abort)), sent) : sent
          }))
      }),
    Effect.succeed
  )
