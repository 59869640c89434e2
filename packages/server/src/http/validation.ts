/**
 * One place that turns every request-shape failure into the contract's 422 body.
 *
 * `HttpApiBuilder` decodes path, body, headers and query one after the other, stops at the first
 * failure and answers a 400 `HttpApiDecodeError` that no longer says which part failed. This
 * middleware sits around the router: when a request fails to decode (or its JSON does not parse) it
 * decodes the endpoint's parts again with every error reported, and answers 422
 * `{"detail":[{loc, msg, type, input, ctx}]}` with `loc` starting at `path`, `body`, `query` or
 * `header`. The success path pays nothing. An endpoint that declares `OpenAiValidationError` (the
 * OpenAI-style front door: docs/inference-v5.md "Errors") answers that body: OpenAI's `error` beside
 * `detail`.
 *
 * Every request body is read as JSON, whatever its `content-type` says (a form or text content type
 * would otherwise be parsed as such, and another one read as bytes the 422 mapping could no longer
 * read). JSON nested deeper than `maxJsonDepth` is refused as `json_invalid` (writing it back
 * would overflow the stack), and a number JSON cannot write back (`1e999` parses to `Infinity`) as
 * `finite_number` at its field (it would be stored as `null`).
 */
import { Headers, HttpApi, HttpApiError, HttpApiSchema, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApiEndpoint, HttpApp } from "@effect/platform"
import {
  InternalServerError,
  OpenAiInternalServerError,
  OpenAiPayloadTooLarge,
  openAiValidationError,
  OpenAiValidationError,
  PayloadTooLarge,
  toOpenAiError,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Cause, Effect, Either, Option, ParseResult, Schema, SchemaAST as AST } from "effect"
import * as FindMyWay from "find-my-way-ts"
import { type Location, toValidationIssues } from "./issues.js"

/** The schemas of an endpoint's request parts. */
export interface EndpointSchemas {
  readonly path: Option.Option<Schema.Schema.Any>
  readonly payload: Option.Option<Schema.Schema.Any>
  readonly urlParams: Option.Option<Schema.Schema.Any>
  readonly headers: Option.Option<Schema.Schema.Any>
  readonly hasBody: boolean
}

const parseOptions = { errors: "all", onExcessProperty: "ignore" } as const

/** The 422 response for a list of issues (`openAi`: the endpoint's 422 is `OpenAiValidationError`). */
export const validationResponse = (issues: ReadonlyArray<ValidationIssue>, openAi = false) =>
  HttpServerResponse.unsafeJson(
    openAi
      ? Schema.encodeSync(OpenAiValidationError)(openAiValidationError(issues))
      : Schema.encodeSync(ValidationError)(new ValidationError({ detail: issues })),
    { status: 422 }
  )

/** Whether `endpoint` answers its 422 as OpenAI's clients read it (it declares `OpenAiValidationError`). */
export const answersOpenAiErrors = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps) => {
  const errors = new Set<Schema.Schema.Any>()
  HttpApiSchema.deunionize(errors, endpoint.errorSchema)
  // the endpoint's errors are its Schemas re-annotated (their status): the same class declaration inside
  const openAi = (OpenAiValidationError.ast as AST.Transformation).to
  for (const error of errors) if (AST.isTransformation(error.ast) && error.ast.to === openAi) return true
  return false
}

/**
 * What answers whether a request is to an endpoint that answers its errors as OpenAI's clients read
 * them (`answersOpenAiErrors`): for the request middleware's own 413 and 500 (http/middleware.ts),
 * asked on those answers only; the table is made at the first question.
 */
export const makeOpenAiRoutes = (api: HttpApi.HttpApi.Any) => {
  let made: FindMyWay.Router<true> | undefined
  const table = () => {
    if (made !== undefined) return made
    made = FindMyWay.make<true>({ ignoreTrailingSlash: true })
    HttpApi.reflect(api as any, {
      onGroup() {},
      onEndpoint({ endpoint }) {
        const e = endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
        if (answersOpenAiErrors(e)) made!.on(e.method, e.path as FindMyWay.PathInput, true)
      }
    })
    return made
  }
  return (request: HttpServerRequest.HttpServerRequest) => table().find(request.method, request.url) !== undefined
}

/** The middleware's `{detail}` 413 or 500 as an endpoint that answers OpenAI's `error` object beside it does. */
export const openAiDetailResponse = (status: 413 | 500, message: string) =>
  HttpServerResponse.unsafeJson(
    status === 413
      ? Schema.encodeSync(OpenAiPayloadTooLarge)(toOpenAiError(new PayloadTooLarge({ detail: message })))
      : Schema.encodeSync(OpenAiInternalServerError)(toOpenAiError(new InternalServerError({ detail: message }))),
    { status }
  )

/** The 422 for a body that is not JSON (or not JSON this API can take back). */
export const jsonInvalid = (message: string, openAi = false) =>
  validationResponse([
    new ValidationIssue({ loc: ["body"], msg: `JSON decode error: ${message}`, type: "json_invalid", input: null })
  ], openAi)

const decodeAll = (
  location: Location,
  schema: Option.Option<Schema.Schema.Any>,
  input: unknown,
  out: Array<ValidationIssue>
) => {
  if (Option.isNone(schema)) return
  const result = ParseResult.decodeUnknownEither(schema.value as Schema.Schema<unknown, unknown, never>)(
    input,
    parseOptions
  )
  if (Either.isLeft(result)) out.push(...toValidationIssues(location, result.left))
}

/**
 * Every problem of a request's parts, in the contract's order (path, body, query, header), each
 * part decoded with every error reported. Empty when the request fits its endpoint.
 */
export const requestIssues = (
  schemas: EndpointSchemas,
  parts: { readonly params: unknown; readonly body: unknown; readonly query: unknown; readonly headers: unknown }
): Array<ValidationIssue> => {
  const issues: Array<ValidationIssue> = []
  decodeAll("path", schemas.path, parts.params, issues)
  if (schemas.hasBody) decodeAll("body", schemas.payload, parts.body, issues)
  decodeAll("query", schemas.urlParams, parts.query, issues)
  decodeAll("header", schemas.headers, parts.headers, issues)
  return issues
}

/**
 * What a decode error's items say, as 422 issues at `body`: for a failure the all-errors decode of
 * `requestIssues` did not repeat.
 */
export const decodeErrorIssues = (
  items: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>
): Array<ValidationIssue> =>
  items.map((item) =>
    new ValidationIssue({ loc: ["body", ...item.path.map(String)], msg: item.message, type: "value_error", input: null })
  )

/** The query of `url` as the 422 mapping reads it: every key once, repeated keys as arrays. */
export const searchParamsRecord = (url: string): Record<string, string | Array<string>> => {
  const out: Record<string, string | Array<string>> = {}
  const query = url.indexOf("?")
  if (query === -1) return out
  for (const [key, value] of new URLSearchParams(url.slice(query + 1))) {
    const previous = out[key]
    out[key] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value]
  }
  return out
}

/** Whether `endpoint`'s body is a multipart form (`upload_files`): its handler reads it part by part. */
export const takesForm = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps) =>
  Option.exists(endpoint.payloadSchema, (schema) =>
    HttpApiSchema.getMultipart(schema.ast) !== undefined || HttpApiSchema.getMultipartStream(schema.ast) !== undefined)

/**
 * Whether `endpoint`'s body may be bytes of another content type (`POST /v1/traces`: OTLP's
 * protobuf): a member of its payload is a `Uint8Array` encoding; its handler reads it as it came.
 */
export const takesBytes = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps) =>
  Option.exists(endpoint.payloadSchema, (schema) =>
    (schema.ast._tag === "Union" ? schema.ast.types : [schema.ast]).some((ast) => HttpApiSchema.getEncoding(ast).kind === "Uint8Array"))

/** An endpoint of the table: its request schemas, whether it takes a form, or bytes, and the shape of its 422. */
interface TableEntry extends EndpointSchemas {
  readonly form: boolean
  readonly bytes: boolean
  readonly openAi: boolean
}

/** The request schemas of every endpoint of `api`, by route. */
const endpointTable = (api: HttpApi.HttpApi.Any) => {
  const router = FindMyWay.make<TableEntry>({ ignoreTrailingSlash: true })
  HttpApi.reflect(api as any, {
    onGroup() {},
    onEndpoint({ endpoint }) {
      const e = endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
      router.on(e.method, e.path as FindMyWay.PathInput, {
        path: e.pathSchema,
        payload: e.payloadSchema,
        urlParams: e.urlParamsSchema,
        headers: e.headersSchema,
        hasBody: hasBody(e.method),
        form: takesForm(e),
        bytes: takesBytes(e),
        openAi: answersOpenAiErrors(e)
      })
    }
  })
  return router
}

/** Builds the middleware for `api`; the endpoint table is made once, at the first decode failure or form. */
export const makeRequestValidation = <Id extends string, Groups extends HttpApi.HttpApi.AnyWithProps["groups"][string], E, R>(
  api: HttpApi.HttpApi<Id, any, E, R>
) => {
  // made at the first request that fails to decode (or sends a form), not at start-up
  let made: FindMyWay.Router<TableEntry> | undefined
  const endpoints = () => (made ??= endpointTable(api))
  const isForm = (request: HttpServerRequest.HttpServerRequest) => endpoints().find(request.method, request.url)?.handler.form === true
  const isBytes = (request: HttpServerRequest.HttpServerRequest) => endpoints().find(request.method, request.url)?.handler.bytes === true

  const redecode = (request: HttpServerRequest.HttpServerRequest, fallback: HttpApiError.HttpApiDecodeError) =>
    Effect.gen(function*() {
      const found = endpoints().find(request.method, request.url)
      const openAi = found?.handler.openAi === true
      const issues: Array<ValidationIssue> = []
      if (found !== undefined) {
        const schemas = found.handler
        let body: unknown = undefined
        if (schemas.hasBody && Option.isSome(schemas.payload)) {
          const read = yield* Effect.either(request.json)
          if (Either.isLeft(read)) {
            if (isBodyTooLarge(read.left)) return yield* Effect.die(read.left)
            if (read.left.cause instanceof UnfitBody) return read.left.cause.response(openAi)
            return jsonInvalid(String((read.left.cause as any)?.message ?? read.left.message), openAi)
          }
          body = read.right
        }
        issues.push(...requestIssues(schemas, {
          params: found.params,
          body,
          query: searchParamsRecord(request.url),
          headers: request.headers
        }))
      }
      if (issues.length === 0) issues.push(...decodeErrorIssues(fallback.issues))
      return validationResponse(issues, openAi)
    })

  return (app: HttpApp.Default): HttpApp.Default =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (original) => {
      const request = asJsonRequest(original, isForm, isBytes)
      // a request without a body is served as it came: no copy of the request's context
      const served = request === original ? app : Effect.provideService(app, HttpServerRequest.HttpServerRequest, request)
      return Effect.catchAllCause(served, (cause) => {
        const failure = Cause.failureOption(cause)
        const error: unknown = Option.getOrUndefined(failure)
        if (error instanceof HttpApiError.HttpApiDecodeError) return redecode(request, error)
        // the builder reads JSON bodies with `orDie`: an unparseable body arrives as a defect
        const defect = Cause.dieOption(cause)
        if (Option.isSome(defect) && isRequestDecodeError(defect.value) && !isBodyTooLarge(defect.value)) {
          const unfit = (defect.value as any).cause
          const openAi = endpoints().find(request.method, request.url)?.handler.openAi === true
          if (unfit instanceof UnfitBody) return Effect.succeed(unfit.response(openAi))
          return Effect.succeed(jsonInvalid(String((defect.value as any).cause?.message ?? "invalid JSON"), openAi))
        }
        return Effect.failCause(cause)
      })
    })
}

/** How deep a JSON body may nest (objects and arrays); deeper is a `json_invalid` 422. */
export const maxJsonDepth = 128

/** What makes a parsed body unfit: nesting past `limit`, or a number JSON cannot write back (`1e999`). */
type Unfit = { readonly _tag: "TooDeep" } | { readonly _tag: "NonFinite"; readonly path: ReadonlyArray<string | number> }

interface Visit {
  readonly node: unknown
  readonly depth: number
  readonly parent: Visit | undefined
  readonly key: string | number | undefined
}

const pathOf = (visit: Visit): Array<string | number> => {
  const path: Array<string | number> = []
  for (let v: Visit | undefined = visit; v?.parent !== undefined; v = v.parent) path.unshift(v.key!)
  return path
}

const unfitness = (value: unknown, limit: number): Unfit | undefined => {
  const stack: Array<Visit> = [{ node: value, depth: 0, parent: undefined, key: undefined }]
  while (stack.length > 0) {
    const visit = stack.pop()!
    const node = visit.node
    if (typeof node === "number" && !Number.isFinite(node)) return { _tag: "NonFinite", path: pathOf(visit) }
    if (typeof node !== "object" || node === null) continue
    if (visit.depth >= limit) return { _tag: "TooDeep" }
    const depth = visit.depth + 1
    if (Array.isArray(node)) node.forEach((child, key) => stack.push({ node: child, depth, parent: visit, key }))
    else for (const [key, child] of Object.entries(node)) stack.push({ node: child, depth, parent: visit, key })
  }
  return undefined
}

/**
 * A request body read as this API reads JSON: the empty body is `null`; text that does not parse,
 * nests too deep or holds a number JSON cannot write back is the 422 response to answer instead
 * (`openAi`: the endpoint's 422 is `OpenAiValidationError`).
 */
export const parseJsonBody = (text: string, openAi = false): Either.Either<unknown, HttpServerResponse.HttpServerResponse> => {
  let value: unknown
  try {
    value = text === "" ? null : JSON.parse(text)
  } catch (error) {
    return Either.left(jsonInvalid(String((error as Error)?.message ?? "invalid JSON"), openAi))
  }
  const unfit = unfitness(value, maxJsonDepth)
  return unfit === undefined ? Either.right(value) : Either.left(new UnfitBody(unfit).response(openAi))
}

/** The 422 for a body `unfitness` refused, kept as the cause of the platform's decode error. */
class UnfitBody extends Error {
  constructor(readonly unfit: Unfit) {
    super(unfit._tag === "TooDeep" ? `nested deeper than ${maxJsonDepth} levels` : "a number JSON cannot represent")
  }
  response(openAi: boolean) {
    return this.unfit._tag === "TooDeep"
      ? jsonInvalid(this.message, openAi)
      : validationResponse([
        new ValidationIssue({
          loc: ["body", ...this.unfit.path.map((p) => (typeof p === "number" ? p : String(p)))],
          msg: "Input should be a finite number",
          type: "finite_number",
          input: null
        })
      ], openAi)
  }
}

/** Whether a request of `method` is read for a body (the builder reads none for these). */
export const hasBody = (method: string) =>
  method !== "GET" && method !== "HEAD" && method !== "DELETE" && method !== "OPTIONS"

/** `request` whose body is read as JSON whatever its content type, and refused when nested too deep. */
const asJsonRequest = (
  request: HttpServerRequest.HttpServerRequest,
  isForm: (request: HttpServerRequest.HttpServerRequest) => boolean,
  isBytes: (request: HttpServerRequest.HttpServerRequest) => boolean
): HttpServerRequest.HttpServerRequest => {
  if (!hasBody(request.method)) return request
  const contentType = request.headers["content-type"]
  // a form sent to an endpoint that takes one (`upload_files`) is read part by part by its
  // handler, as it came; to any other endpoint, its body is JSON like every body
  if (contentType !== undefined && contentType.toLowerCase().startsWith("multipart/form-data") && isForm(request)) return request
  // a body of another content type to an endpoint that takes bytes goes to its handler as it came
  if (contentType !== undefined && !contentType.toLowerCase().includes("application/json") && isBytes(request)) return request
  // the header is overridden on an object over `request` (not `modify`, which makes a new request
  // without the body `request` may already have read: an Idempotency-Key POST reads it first)
  const base: HttpServerRequest.HttpServerRequest = contentType !== undefined && !contentType.toLowerCase().includes("application/json")
    ? Object.create(request, { headers: { value: Headers.set(request.headers, "content-type", "application/json") } })
    : request
  const json = Effect.flatMap(base.json, (value) => {
    const unfit = unfitness(value, maxJsonDepth)
    return unfit === undefined
      ? Effect.succeed(value)
      : Effect.fail(new HttpServerError.RequestError({ request: base, reason: "Decode", cause: new UnfitBody(unfit) }))
  })
  return Object.create(base, {
    json: { value: json },
    modify: { value: (options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]) => asJsonRequest(base.modify(options), isForm, isBytes) }
  }) as HttpServerRequest.HttpServerRequest
}

/** A body read that stopped at the size limit (answered 413 by the request middleware). */
export const isBodyTooLarge = (u: any): boolean =>
  /max(imum)?\s?bytes|too large|maxBytes/i.test(String(u?.cause?.message ?? u?.message ?? ""))

const isRequestDecodeError = (u: unknown): boolean =>
  typeof u === "object" && u !== null && (u as any)._tag === "RequestError" && (u as any).reason === "Decode"
