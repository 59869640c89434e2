/**
 * `POST /v1/traces`: OpenTelemetry's OTLP/HTTP trace export into the spans store (docs/spans.md
 * "OpenTelemetry"). Raw, because OTLP/HTTP has its own answers: the body is JSON or protobuf by
 * its content type (another is a 415), maybe gzip-compressed, and one that is not an
 * `ExportTraceServiceRequest` is a 400 with a `google.rpc.Status` in the request's encoding, not
 * the kit's 422. Spans that cannot be stored are counted in the answer's `partialSuccess`; the
 * others are stored as `PUT /v5/spans/batch` stores them.
 */
import { HttpServerResponse } from "@effect/platform"
import type { HttpServerRequest } from "@effect/platform"
import { ExportTraceServiceRequest } from "@platform-kit/schema"
import { Data, Effect, Either, Layer, ParseResult, Schema } from "effect"
import * as Zlib from "node:zlib"
import { accountForWrite, createdByIdentity } from "../auth/access.js"
import { MaxBodyBytes } from "../config.js"
import type { ImplementGroup } from "../http/groups.js"
import { maxJsonDepth } from "../http/validation.js"
import { SpansRepo } from "../spans/SpansRepo.js"
import { spansOfRequest } from "./spans.js"

type Encoding = "json" | "protobuf"

type Codec = typeof import("./protobuf.js")
let loading: Promise<Codec> | undefined
/** The protobuf codec, loaded by the first protobuf request: protobufjs costs ~30 ms a start otherwise. */
const protobufCodec = Effect.promise(() => (loading ??= import("./protobuf.js")))

/** google.rpc.Code INVALID_ARGUMENT: the code of every OTLP error the kit answers. */
const invalidArgument = 3

/** An OTLP/HTTP error: its status and message, answered in the request's encoding. */
class OtlpFailure extends Data.TaggedError("OtlpFailure")<{ readonly status: 400 | 415; readonly message: string }> {}

const failureResponse = (failure: OtlpFailure, codec: Codec | undefined) =>
  codec !== undefined
    ? HttpServerResponse.uint8Array(codec.encodeStatus(invalidArgument, failure.message), {
      status: failure.status,
      contentType: "application/x-protobuf"
    })
    : HttpServerResponse.unsafeJson({ code: invalidArgument, message: failure.message }, { status: failure.status })

const encodingOf = (contentType: string | undefined): Encoding | undefined => {
  const media = (contentType ?? "").split(";")[0]!.trim().toLowerCase()
  return media === "application/json" ? "json" : media === "application/x-protobuf" ? "protobuf" : undefined
}

/** The body's bytes, inflated when gzip-compressed (at most `maxBytes` once inflated). */
const bodyBytes = (request: HttpServerRequest.HttpServerRequest, maxBytes: number) =>
  Effect.gen(function*() {
    const coding = (request.headers["content-encoding"] ?? "identity").trim().toLowerCase()
    if (coding !== "identity" && coding !== "gzip") {
      return yield* Effect.fail(new OtlpFailure({ status: 415, message: `Content-Encoding ${coding} is not supported: send gzip or none` }))
    }
    const bytes = new Uint8Array(yield* Effect.orDie(request.arrayBuffer))
    if (coding === "identity") return bytes
    return yield* Effect.try({
      try: () => new Uint8Array(Zlib.gunzipSync(bytes, { maxOutputLength: maxBytes })),
      catch: () => new OtlpFailure({ status: 400, message: `The body is not gzip data of at most ${maxBytes} bytes` })
    })
  })

const decodeExport = Schema.decodeUnknownEither(ExportTraceServiceRequest)

/** Whether `value` nests objects and arrays deeper than the kit takes in any body (`maxJsonDepth`), counted without recursion. */
const tooDeep = (value: unknown): boolean => {
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (typeof node !== "object" || node === null) continue
    if (depth > maxJsonDepth) return true
    for (const child of Object.values(node)) stack.push([child, depth + 1])
  }
  return false
}

/** The body as an `ExportTraceServiceRequest`, or a 400 saying why not. */
const exportRequest = (bytes: Uint8Array, codec: Codec | undefined) =>
  Effect.gen(function*() {
    const raw = yield* Effect.try({
      try: () => codec === undefined ? JSON.parse(Buffer.from(bytes).toString("utf8")) as unknown : codec.decodeRequest(bytes),
      catch: () => new OtlpFailure({ status: 400, message: codec === undefined ? "The body is not JSON" : "The body is not an ExportTraceServiceRequest message" })
    })
    if (tooDeep(raw)) return yield* Effect.fail(new OtlpFailure({ status: 400, message: `The body nests deeper than ${maxJsonDepth} levels` }))
    const decoded = decodeExport(raw)
    if (Either.isLeft(decoded)) {
      const issue = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]
      return yield* Effect.fail(
        new OtlpFailure({ status: 400, message: `Not an ExportTraceServiceRequest: ${issue === undefined || issue.path.length === 0 ? "" : `${issue.path.join(".")}: `}${issue?.message ?? ""}` })
      )
    }
    return decoded.right
  })

/** How many rejections the answer's `errorMessage` names. */
const namedRejections = 5

export const OtlpHttp = (group: ImplementGroup) =>
  group("otlp", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* SpansRepo
    const maxBytes = yield* Effect.orDie(MaxBodyBytes)

    return handlers.handleRaw("exportTraces", ({ request }) => {
      const encoding = encodingOf(request.headers["content-type"])
      if (encoding === undefined) {
        return Effect.succeed(failureResponse(
          new OtlpFailure({ status: 415, message: `Content-Type ${request.headers["content-type"] ?? "(none)"} is not supported: send application/json or application/x-protobuf` }),
          undefined
        ))
      }
      return Effect.gen(function*() {
        const codec = encoding === "protobuf" ? yield* protobufCodec : undefined
        return yield* Effect.gen(function*() {
          const body = yield* exportRequest(yield* bodyBytes(request, maxBytes), codec)
          const writer = {
            account_id: yield* accountForWrite(undefined, ["header", "x-selected-account-id"]),
            created_by: yield* createdByIdentity
          }
          const { rejections, spans } = spansOfRequest(body, writer)
          yield* repo.upsert(spans)
          const message = rejections.length === 0
            ? ""
            : `${rejections.length} span(s) rejected: ${rejections.slice(0, namedRejections).join("; ")}${
              rejections.length > namedRejections ? "; …" : ""
            }`
          return codec !== undefined
            ? HttpServerResponse.uint8Array(codec.encodeResponse(rejections.length, message), { contentType: "application/x-protobuf" })
            : HttpServerResponse.unsafeJson({
              partialSuccess: rejections.length === 0 ? {} : { rejectedSpans: String(rejections.length), errorMessage: message }
            })
        }).pipe(Effect.catchTag("OtlpFailure", (failure) => Effect.succeed(failureResponse(failure, codec))))
      })
    })
  })).pipe(Layer.provide(SpansRepo.Default))
