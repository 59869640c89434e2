/**
 * The lean server: the standalone server's way of serving the API, derived from the same
 * `HttpApi` and the same handlers as `HttpApiBuilder` (docs/serving.md). `LeanHttpLive` at the end
 * composes it with the application (`appLayer` of ../app.ts, its groups recorded by
 * implementations.ts).
 *
 * Per endpoint, once at start-up: the route, the decoders of path, query, headers and body, the
 * group's middlewares (the `Authentication` security), the handler as the group built it, and the
 * encoder and status of its success. Per request: find the route, read the body, run one fiber
 * (middlewares, decode, handler) on the server's runtime, encode the success and write it straight
 * to `node:http`. No `HttpApp`, router context or response object in between: that pipeline is
 * the fixed cost docs/benchmarks.md "The lean server" measured.
 *
 * Whatever the lean server does not take itself goes, untouched, to the builder's application (the same
 * `HttpApp` `HttpApiBuilder.serve` serves everywhere else): unknown routes, `HEAD`/`OPTIONS`, the
 * docs, endpoints the lean server does not compile (raw handlers, several success schemas, a success
 * neither JSON nor text, non-JSON request bodies, uninterruptible handlers), a POST with an `Idempotency-Key`, a body without a length or
 * over the limit. Typed failures are encoded by the builder's own error encoding
 * (`HttpApiBuilder.buildMiddleware`), and request-shape failures by the same code as the builder's
 * path (../http/validation.ts), so both answer alike; `lean-server-conformance.test.ts` sends the same requests
 * to both and compares status, headers and bodies.
 */
import { HttpApi, HttpApiBuilder, HttpApiMiddleware, HttpApiSchema, HttpServer, HttpServerRequest } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Cookies, HttpServerResponse } from "@effect/platform"
import type { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Cause, Context, Effect, Either, Exit, type Fiber, FiberId, Layer, Option, ParseResult, Runtime, Schema, Scope, Stream } from "effect"
import * as FindMyWay from "find-my-way-ts"
import * as Crypto from "node:crypto"
import { createServer } from "node:http"
import type * as Http from "node:http"
import type * as Net from "node:net"
import { pipeline } from "node:stream"
import { PushedBody } from "../http/pushedBody.js"
import { readUpTo } from "../http/bodyLimit.js"
import { type AccessLogFormat, flushAccessLog, noteRequestId, noteRoute, withAccessLog } from "../http/accessLog.js"
import { IdempotencyKeyHeader } from "../http/idempotency.js"
import { detail, isFinalConflict } from "../http/middleware.js"
import { Simulation } from "../engine/Simulation.js"
import { appLayer } from "../app.js"
import { CorsOrigins, MaxBodyBytes } from "../config.js"
import { accessLogFormat, withStartLine } from "../operations.js"
import { type Implementation, Implementations, recordingGroup } from "./implementations.js"
import { LeanRequest } from "./leanRequest.js"
import { requestArrived } from "../platform/requestArrivals.js"
import {
  answersOpenAiErrors,
  decodeErrorIssues,
  type EndpointSchemas,
  hasBody,
  openAiDetailResponse,
  parseJsonBody,
  requestIssues,
  searchParamsRecord,
  takesForm,
  validationResponse
} from "../http/validation.js"

type Listener = (request: Http.IncomingMessage, response: Http.ServerResponse) => void
type Decoder = (input: unknown) => Either.Either<unknown, ParseResult.ParseIssue>

/** One endpoint, compiled. */
interface Route {
  /** The endpoint's path template, for the access log. */
  readonly path: string
  readonly schemas: EndpointSchemas
  /** Whether its 422 is `OpenAiValidationError` (the OpenAI-style front door), as on the builder's path. */
  readonly openAi: boolean
  readonly decodePath: Decoder | undefined
  readonly decodePayload: Decoder | undefined
  readonly decodeHeaders: Decoder | undefined
  readonly decodeQuery: Decoder | undefined
  readonly queryAst: Schema.Schema.Any["ast"] | undefined
  /** The group's and the endpoint's middlewares, as the builder applies them around the decoding and the handler. */
  readonly withMiddlewares: WithMiddlewares
  readonly handler: (request: Record<string, unknown>) => Effect.Effect<unknown, unknown, any>
  readonly encode: Decoder
  readonly status: number
  readonly contentType: string | undefined
  /** Whether the success is text, written as it is encoded (else JSON). */
  readonly text: boolean
  /** The runtime the request fibers start from: the server's, with the group's context. */
  readonly runtime: Runtime.Runtime<never>
}

/** A response decided before the handler ran (a 422): written as it is. */
class Answer {
  constructor(readonly response: HttpServerResponse.HttpServerResponse) {}
}

/**
 * The builder's own query normalization (a single value for an array-typed key becomes an array):
 * exported by `HttpApiBuilder` at run time but marked internal in its types.
 */
const normalizeUrlParams: (
  params: Record<string, string | Array<string>>,
  ast: Schema.Schema.Any["ast"]
) => Record<string, string | Array<string>> = (HttpApiBuilder as any).normalizeUrlParams

const decoder = (schema: Option.Option<Schema.Schema.Any>): Decoder | undefined =>
  Option.isSome(schema)
    ? (ParseResult.decodeUnknownEither(schema.value as Schema.Schema<unknown, unknown, never>) as Decoder)
    : undefined

/**
 * The middlewares around a handler, for one request: `services` is the request fiber's own context
 * (made by `serve` for this request alone), where a middleware's service (`provides`) is put.
 */
type WithMiddlewares = (
  handler: Effect.Effect<unknown, unknown, any>,
  services: Map<string, unknown>
) => Effect.Effect<unknown, unknown, any>

/**
 * The group's and the endpoint's middlewares, made once per endpoint (a security scheme's decoder
 * builds a Schema), applied per request around the handler in the builder's order: each later one
 * outside the earlier; security schemes tried in turn, the last failure answered.
 *
 * The service a middleware provides (the caller, for `Authentication`) is set in the request's own
 * context before the inner effect runs, where the builder wraps the inner effect in
 * `Effect.provideService`: that copies the context and the fiber's FiberRefs, about 15 µs a
 * request with the server's services (docs/benchmarks.md "The lean server"). The inner effect sees
 * the same services either way; the request's context is made for it alone, so nothing else sees
 * the change.
 */
const makeMiddlewares = (
  tags: ReadonlyArray<HttpApiMiddleware.TagClassAny>,
  context: Context.Context<never>
): WithMiddlewares => {
  const byKey = new Map<string, HttpApiMiddleware.TagClassAny>()
  for (const tag of tags) byKey.set(tag.key, tag)
  const made = [...byKey.values()].map((tag) => {
    const implementation = Context.unsafeGet(context, tag as any) as any
    if (!HttpApiMiddleware.isSecurity(tag)) return { tag, effect: implementation as Effect.Effect<any, any, any> }
    let chained: Effect.Effect<any, any, any> | undefined
    for (const [key, security] of Object.entries(tag.security)) {
      const attempt = Effect.flatMap(HttpApiBuilder.securityDecode(security), implementation[key])
      chained = chained === undefined ? attempt : Effect.catchAll(chained, () => attempt)
    }
    return { tag, effect: chained ?? Effect.void }
  })
  return (handler, services) => {
    let wrapped = handler
    for (const { effect, tag } of made) {
      const previous = wrapped
      const provides = tag.provides?.key
      const provided = provides === undefined ? () => previous : (value: unknown) => {
        services.set(provides, value)
        return previous
      }
      wrapped = tag.optional
        ? Effect.matchEffect(effect, { onFailure: () => previous, onSuccess: provided })
        : Effect.flatMap(effect, provided)
    }
    return wrapped
  }
}

/**
 * The endpoint compiled, or none when the builder's path serves it (see the module comment). What
 * costs (decoders, the security middleware, the runtime) is made at the endpoint's first request,
 * not at start-up: a cold start serves its first request without compiling a hundred endpoints.
 */
const compile = (
  api: HttpApi.HttpApi.AnyWithProps,
  group: HttpApiGroup.HttpApiGroup.AnyWithProps,
  implementation: Implementation,
  item: Implementation["handlers"][number],
  runtime: Runtime.Runtime<never>,
  apiContext: Context.Context<never>
): (() => Route) | undefined => {
  const endpoint = item.endpoint as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
  if (item.withFullRequest || item.uninterruptible) return undefined
  if (!hasBody(endpoint.method) && Option.isSome(endpoint.payloadSchema)) return undefined
  if (takesForm(endpoint)) return undefined
  const successes = new Set<Schema.Schema.Any>()
  HttpApiSchema.deunionize(successes, endpoint.successSchema)
  if (successes.size !== 1) return undefined
  const [success] = successes
  const empty = HttpApiSchema.isVoid(success.ast)
  const encoding = HttpApiSchema.getEncoding(success.ast)
  // JSON, or text (a task's event stream: its handler answers a response of its own)
  if (!empty && encoding.kind !== "Json" && encoding.kind !== "Text") return undefined

  let made: Route | undefined
  return () => (made ??= make())

  function make(): Route {
    const handler = item.handler as (request: any) => Effect.Effect<unknown, unknown, any>
    // the group's context under the server's, as the builder merges them per request
    const context = Context.merge(implementation.context, runtime.context)
    // the group's and the endpoint's middlewares inside, the API's outside (from the API's context)
    const withGroup = makeMiddlewares([...group.middlewares, ...endpoint.middlewares] as any, context)
    const withApi = makeMiddlewares([...api.middlewares] as any, apiContext)
    const withMiddlewares: WithMiddlewares = (effect, services) => withApi(withGroup(effect, services), services)
    return {
      path: endpoint.path,
      schemas: {
        path: endpoint.pathSchema,
        payload: endpoint.payloadSchema,
        urlParams: endpoint.urlParamsSchema,
        headers: endpoint.headersSchema,
        hasBody: hasBody(endpoint.method)
      },
      openAi: answersOpenAiErrors(endpoint),
      decodePath: decoder(endpoint.pathSchema),
      decodePayload: decoder(endpoint.payloadSchema),
      decodeHeaders: decoder(endpoint.headersSchema),
      decodeQuery: decoder(endpoint.urlParamsSchema),
      queryAst: Option.getOrUndefined(Option.map(endpoint.urlParamsSchema, (schema) => schema.ast)),
      withMiddlewares,
      handler,
      encode: ParseResult.encodeUnknownEither(success as Schema.Schema<unknown, unknown, never>) as Decoder,
      status: HttpApiSchema.getStatusSuccess(success),
      contentType: empty ? undefined : encoding.contentType,
      text: encoding.kind === "Text",
      runtime: Runtime.make({ context, fiberRefs: runtime.fiberRefs, runtimeFlags: runtime.runtimeFlags })
    }
  }
}

const makeScope = Scope.make()

/** Writes `chunk`, waiting for the socket to drain when its buffer is full. */
const writeChunk = (res: Http.ServerResponse, chunk: Uint8Array) =>
  res.write(chunk) || res.destroyed
    ? Effect.void
    : Effect.async<void>((resume) => {
      const drained = () => {
        res.off("close", drained)
        res.off("drain", drained)
        resume(Effect.void)
      }
      res.once("drain", drained)
      res.once("close", drained)
    })

/**
 * Writes an `HttpServerResponse`: bytes, text or nothing (what the API's handlers and error
 * encoding make); a streamed body goes out chunk by chunk as it comes, and stops (its producer
 * interrupted: an upstream's stream closed) when the client goes away.
 */
const writeResponse = (
  res: Http.ServerResponse,
  response: HttpServerResponse.HttpServerResponse,
  requestId: string,
  runServer: <A, E>(effect: Effect.Effect<A, E>) => Fiber.RuntimeFiber<A, E>,
  pushedBodies?: Set<PushedBody>
) => {
  if (res.writableEnded) return
  const headers: Record<string, string | Array<string>> = { ...response.headers, "x-request-id": requestId }
  if (isFinalConflict(response)) headers["x-should-retry"] = "false"
  if (!Cookies.isEmpty(response.cookies)) {
    const cookies = Cookies.toSetCookieHeaders(response.cookies)
    if (typeof headers["set-cookie"] === "string") cookies.push(headers["set-cookie"])
    headers["set-cookie"] = cookies
  }
  const head = () =>
    response.statusText === undefined
      ? res.writeHead(response.status, headers)
      : res.writeHead(response.status, response.statusText, headers)
  const body = response.body
  switch (body._tag) {
    case "Uint8Array":
      head()
      return void res.end(body.body)
    case "Raw":
      head()
      if (body.body instanceof PushedBody) {
        // a pushed body (a task stream's subscriber) is ended by the lean server at a shutdown, and
        // writes to the socket itself from now on
        const pushed = body.body
        pushedBodies?.add(pushed)
        pushed.once("close", () => pushedBodies?.delete(pushed))
        if (pushed.attach(res)) return
      }
      if (typeof body.body === "object" && body.body !== null && typeof (body.body as any).pipe === "function") {
        // the source is destroyed when the client goes away (a task stream's subscription ends)
        return void pipeline(body.body as NodeJS.ReadableStream, res, () => {})
      }
      return void res.end(body.body as string | Uint8Array | undefined)
    case "Stream": {
      head()
      const fiber = runServer(
        Stream.runForEach(body.stream, (chunk) => writeChunk(res, chunk)).pipe(
          Effect.ensuring(Effect.sync(() => res.end()))
        )
      )
      res.once("close", () => {
        if (!res.writableEnded) fiber.unsafeInterruptAsFork(FiberId.none)
      })
      return
    }
    default:
      head()
      return void res.end()
  }
}

/** Writes a JSON body in one `writeHead` + `end` (one write on the socket). */
const writeJson = (
  res: Http.ServerResponse,
  status: number,
  json: string,
  requestId: string,
  contentType = "application/json"
) => {
  if (res.writableEnded) return
  res.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(json),
    "x-request-id": requestId
  })
  res.end(json)
}

/**
 * Builds the lean server's request listener, with `fallback` (the builder's application on Node) for
 * whatever it does not take. Needs the implemented API (`HttpApi.Api` with `Implementations`).
 */
export const makeLeanServer = (options: { readonly maxBodyBytes: number; readonly cors: boolean }) =>
  Effect.gen(function*() {
    const { api, context: apiContext } = yield* HttpApi.Api
    const runtime = yield* Effect.runtime<never>()
    const implementations = Context.getOption(apiContext, Implementations)
    const simulation = Option.orElse(yield* Effect.serviceOption(Simulation), () => Context.getOption(apiContext, Simulation))
    const noFaults: ReadonlyArray<unknown> = []
    const routeFaults = Option.isSome(simulation) ? simulation.value.routeFaults : () => noFaults
    const router = FindMyWay.make<() => Route>()
    if (Option.isSome(implementations)) {
      for (const [name, implementation] of implementations.value) {
        const group = (api as unknown as HttpApi.HttpApi.AnyWithProps).groups[name] as HttpApiGroup.HttpApiGroup.AnyWithProps
        if (group === undefined) continue
        for (const item of implementation.handlers) {
          const route = compile(api as unknown as HttpApi.HttpApi.AnyWithProps, group, implementation, item, runtime, apiContext)
          if (route === undefined) continue
          const endpoint = item.endpoint as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
          router.on(endpoint.method, endpoint.path as FindMyWay.PathInput, route)
        }
      }
    }
    // the API's typed errors (401, 403, 404, 409, …) become responses exactly as on the builder's path
    const encodeErrors = yield* Effect.provide(HttpApiBuilder.buildMiddleware(api), apiContext)
    const runServer = Runtime.runFork(runtime)
    /** The bodies pushed to clients now (task streams' subscribers), which only a shutdown ends early. */
    const pushedBodies = new Set<PushedBody>()

    /** Answers a failed request: its typed error encoded, else a 500 (with OpenAI's `error` object on the front door: `openAi`). */
    const failed = (res: Http.ServerResponse, request: Http.IncomingMessage, requestId: string, cause: Cause.Cause<unknown>, openAi = false) => {
      if (Cause.isInterruptedOnly(cause)) {
        if (!res.writableEnded && !res.destroyed) writeResponse(res, detail(503, "Service Unavailable"), requestId, runServer)
        return
      }
      const answer = Option.isSome(Cause.failureOption(cause))
        ? Effect.catchAllCause(
          encodeErrors(Effect.failCause(cause)),
          (unencoded) => Effect.as(logFailure(request, requestId, unencoded), undefined)
        )
        : Effect.as(logFailure(request, requestId, cause), undefined)
      runServer(answer).addObserver((exit) => {
        if (Exit.isSuccess(exit) && exit.value !== undefined) writeResponse(res, exit.value, requestId, runServer)
        else writeResponse(res, openAi ? openAiDetailResponse(500, "Internal Server Error") : detail(500, "Internal Server Error"), requestId, runServer)
      })
    }

    const serve = (
      route: Route,
      req: Http.IncomingMessage,
      res: Http.ServerResponse,
      params: Record<string, string | undefined>,
      query: Record<string, string | Array<string>>,
      readsBody: boolean,
      requestId: string
    ) => {
      const request = new LeanRequest(req)
      // the key is checked before the body is read and the request decoded: 401 wins over 422, and
      // an unauthenticated body is never read (as on the builder's path)
      const decode = (body: string) => {
        request.body = body
        const input: Record<string, unknown> = { request }
        let payload: unknown = undefined
        if (route.decodePayload !== undefined) {
          const parsed = parseJsonBody(body, route.openAi)
          if (Either.isLeft(parsed)) return Effect.succeed(new Answer(parsed.left))
          payload = parsed.right
        }
        const normalizedQuery = route.queryAst === undefined
          ? query
          : normalizeUrlParams(query, route.queryAst)
        let problem: ParseResult.ParseIssue | undefined
        const take = (decode: Decoder | undefined, value: unknown, key: string) => {
          if (decode === undefined || problem !== undefined) return
          const result = decode(value)
          if (Either.isLeft(result)) problem = result.left
          else input[key] = result.right
        }
        take(route.decodePath, params, "path")
        take(route.decodePayload, payload, "payload")
        take(route.decodeHeaders, req.headers, "headers")
        take(route.decodeQuery, normalizedQuery, "urlParams")
        if (problem !== undefined) {
          const issues = requestIssues(route.schemas, {
            params,
            body: payload,
            query: searchParamsRecord(req.url!),
            headers: req.headers
          })
          return Effect.succeed(new Answer(validationResponse(
              issues.length > 0 ? issues : decodeErrorIssues(ParseResult.ArrayFormatter.formatIssueSync(problem)),
              route.openAi
            )))
        }
        return route.handler(input)
      }
      const context = new Map(route.runtime.context.unsafeMap)
      const decoded = route.withMiddlewares(
        readsBody ? Effect.flatMap(readBody(req, options.maxBodyBytes), decode) : Effect.suspend(() => decode("")),
        context
      )
      context.set(HttpServerRequest.HttpServerRequest.key, request)
      context.set(HttpServerRequest.ParsedSearchParams.key, query)
      // a scope per request, as the builder gives one (closed when the fiber ends), made and put in
      // the context directly: `Effect.scoped` costs about 17 µs a request, this about 4 µs
      const scope = Effect.runSync(makeScope)
      context.set(Scope.Scope.key, scope)
      const fiber = Runtime.runFork(Runtime.make({
        context: Context.unsafeMake<never>(context),
        fiberRefs: route.runtime.fiberRefs,
        runtimeFlags: route.runtime.runtimeFlags
      }))(decoded as Effect.Effect<unknown, unknown>)
      res.once("close", () => {
        if (!res.writableEnded) fiber.unsafeInterruptAsFork(FiberId.none)
      })
      fiber.addObserver((exit) => {
        // finalizers that suspend go on in the background (runSyncExit leaves such a fiber running)
        Effect.runSyncExit(Scope.close(scope, exit))
        if (Exit.isFailure(exit)) return failed(res, req, requestId, exit.cause, route.openAi)
        const value = exit.value
        if (value instanceof Answer) return writeResponse(res, value.response, requestId, runServer, pushedBodies)
        // a handler may answer a response of its own (headers of its own, such as `cache-control`)
        if (HttpServerResponse.isServerResponse(value)) return writeResponse(res, value, requestId, runServer, pushedBodies)
        if (route.contentType === undefined) {
          if (res.writableEnded) return
          res.writeHead(route.status, { "x-request-id": requestId })
          return void res.end()
        }
        const encoded = route.encode(value)
        if (Either.isLeft(encoded)) {
          return failed(res, req, requestId, Cause.die(new ParseResult.ParseError({ issue: encoded.left })), route.openAi)
        }
        if (route.text) return writeJson(res, route.status, String(encoded.right), requestId, route.contentType)
        let json: string
        try {
          json = JSON.stringify(encoded.right)
        } catch (error) {
          return failed(res, req, requestId, Cause.die(error), route.openAi)
        }
        writeJson(res, route.status, json, requestId, route.contentType)
      })
    }

    const listener = (fallback: Listener): Listener => (req, res) => {
      // route faults set (docs/control-plane.md): the builder's path applies them
      if (routeFaults().length > 0) return fallback(req, res)
      // CORS on (http/cors.ts): a browser's request takes the builder's path, where its headers are set
      if (options.cors && req.headers.origin !== undefined) return fallback(req, res)
      const method = req.method!
      const found = method === "HEAD" || method === "OPTIONS" ? undefined : router.find(method, req.url!)
      if (found === undefined) return fallback(req, res)
      const headers = req.headers
      const route = found.handler()
      noteRoute(req, route.path)
      const length = headers["content-length"]
      // a body without a length or over the limit (413), and keyed POSTs, take the builder's path
      if (length === undefined ? headers["transfer-encoding"] !== undefined : !(Number(length) <= options.maxBodyBytes)) {
        return fallback(req, res)
      }
      if (method === "POST" && headers[IdempotencyKeyHeader] !== undefined) return fallback(req, res)
      const readsBody = route.decodePayload !== undefined && length !== undefined && length !== "0"
      const requestId = (headers["x-request-id"] as string | undefined) || Crypto.randomUUID()
      noteRequestId(req, requestId)
      serve(route, req, res, found.params, found.searchParams as any, readsBody, requestId)
    }

    /**
     * Ends every pushed body (a clean end of its chunked response: an SSE client reconnects, with
     * `Last-Event-ID`, to whichever instance serves next), so that the server's close, which waits
     * for the responses in flight, is not kept waiting by streams that end only with their task.
     */
    const endPushedBodies = () => {
      for (const body of pushedBodies) body.finish()
      pushedBodies.clear()
    }

    return { listener, endPushedBodies }
  })

/**
 * The body of `req` as text (its length is declared and within the limit: the listener checked).
 * A client that goes away mid-body interrupts the request.
 */
const readBody = (req: Http.IncomingMessage, maxBytes: number) =>
  Effect.flatMap(readUpTo(req, maxBytes), (body) =>
    Option.isSome(body)
      ? Effect.succeed(body.value.toString("utf8"))
      : Effect.die(new Error(`request body longer than its content-length of at most ${maxBytes} bytes`)))

const logFailure = (request: Http.IncomingMessage, requestId: string, cause: Cause.Cause<unknown>) =>
  Effect.logError("request failed", cause).pipe(
    Effect.annotateLogs({ request_id: requestId, method: request.method, url: request.url })
  )

/**
 * What a request gets once the application has stopped serving and the server is closing: 503
 * with `connection: close`, so that a client on a keep-alive connection retries on a new one (and
 * finds the port closed, or the next instance) instead of waiting for an answer that never comes.
 */
const closing: Listener = (req, res) => {
  const requestId = (req.headers["x-request-id"] as string | undefined) || Crypto.randomUUID()
  noteRequestId(req, requestId)
  res.shouldKeepAlive = false
  writeJson(res, 503, JSON.stringify({ detail: "Service Unavailable: the server is shutting down" }), requestId)
}

/**
 * `NodeHttpServer.layer` with the lean server in front: the server listens as the platform's does (and
 * closes as it does), and `HttpServer.serve(app)` installs one request listener, the lean server, with
 * the platform's handler of `app` as its fallback. Needs the implemented API (`HttpApi.Api`).
 *
 * When the application's scope closes (a shutdown), the listener answers `closing` from then on,
 * until the server has closed: `server.close()` waits for the requests in flight, and a client
 * whose kept-alive connection was busy when the shutdown began may send its next request on it
 * meanwhile; that request is answered, not left without a listener (as `NodeHttpServer`'s own
 * `serve` leaves it). The task streams it serves are ended then: they would keep it open for as
 * long as their tasks run.
 */
export const layerNodeServer = (
  evaluate: () => Http.Server,
  listen: Net.ListenOptions,
  options: { readonly maxBodyBytes: number; readonly accessLog: AccessLogFormat | undefined; readonly cors: boolean }
) =>
  Layer.mergeAll(
    Layer.scoped(
      HttpServer.HttpServer,
      Effect.gen(function*() {
        const server = evaluate()
        const platform = yield* NodeHttpServer.make(() => server, listen)
        const lean = yield* makeLeanServer(options)
        return HttpServer.make({
          address: platform.address,
          serve: (app, middleware) =>
            Effect.gen(function*() {
              const fallback = yield* NodeHttpServer.makeHandler(app, middleware!)
              let serving: Listener = lean.listener(fallback)
              const served: Listener = (req, res) => {
                requestArrived()
                serving(req, res)
              }
              const listener = options.accessLog === undefined ? served : withAccessLog(options.accessLog, served)
              yield* Effect.addFinalizer(() =>
                Effect.sync(() => {
                  serving = closing
                  lean.endPushedBodies()
                  server.once("close", () => {
                    server.off("request", listener)
                    flushAccessLog()
                  })
                })
              )
              server.on("request", listener)
            })
        })
      })
    ),
    NodeHttpServer.layerContext
  )

/**
 * The application (`appLayer`, its groups recorded for the lean server) served on Node at `listen`
 * through the lean server: what the standalone server runs. What the lean server does not take,
 * `HttpApiBuilder.serve`'s application serves. Provides the `HttpServer` it listens on. Needs
 * `SqlClient` and `Ids`.
 */
export const LeanHttpLive = (listen: Net.ListenOptions) =>
  HttpApiBuilder.serve().pipe(
    withStartLine,
    Layer.provideMerge(
      Layer.unwrapEffect(Effect.map(
        Effect.all([MaxBodyBytes, accessLogFormat, CorsOrigins]),
        ([maxBodyBytes, accessLog, cors]) =>
          layerNodeServer(createServer, listen, { maxBodyBytes, accessLog, cors: Option.isSome(cors) })
      ))
    ),
    Layer.provide(appLayer(recordingGroup)),
    Layer.provide(Implementations.layer)
  )
