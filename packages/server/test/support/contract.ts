/**
 * The contract's promises about every answer (docs/decisions.md "Errors"), as checks that list what is
 * wrong with a response: never a 5xx, every 4xx body in its shape, every 200 in the endpoint's
 * success schema (a streamed 200, docs/models.md "Streaming": every frame in the endpoint's frame
 * schema, ending with `[DONE]` or an error frame).
 */
import {
  ChatCompletionsStreamFrame,
  CompletionsStreamFrame,
  OpenAiErrorObject,
  OtlpBadRequest,
  OtlpUnsupportedMediaType,
  StreamErrorFrame
} from "@platform-kit/schema"
import { HttpApiSchema } from "@effect/platform"
import { Either, Schema } from "effect"
import type { Endpoint } from "./endpoints.js"
import type { WireResponse } from "../../src/testing.js"

const locations = new Set(["body", "query", "path", "header"])
const issueKeys = new Set(["loc", "msg", "type", "input", "ctx"])
/** Statuses any endpoint may answer besides its own declared errors. */
const common = new Set([200, 401, 403, 404, 409, 413, 422])

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** What is wrong with a 422 body; empty when it is the contract's `{detail: [{loc, msg, type, input?, ctx?}]}`. */
export const validationBodyProblems = (body: unknown): Array<string> => {
  if (!isObject(body) || Object.keys(body).join() !== "detail") return ["422 body is not {detail}"]
  const detail = body.detail
  if (!Array.isArray(detail) || detail.length === 0) return ["422 detail is not a non-empty array"]
  const out: Array<string> = []
  for (const item of detail) {
    if (!isObject(item)) {
      out.push("422 item is not an object")
      continue
    }
    const extra = Object.keys(item).filter((k) => !issueKeys.has(k))
    if (extra.length > 0) out.push(`422 item has extra keys ${extra.join(",")}`)
    const loc = item.loc
    if (!Array.isArray(loc) || loc.length === 0) out.push("422 loc is not a non-empty array")
    else if (!locations.has(loc[0] as string)) out.push(`422 loc[0] is ${JSON.stringify(loc[0])}`)
    else if (!loc.every((s) => typeof s === "string" || (typeof s === "number" && Number.isInteger(s)))) {
      out.push(`422 loc ${JSON.stringify(loc)} has a segment that is neither a string nor an integer`)
    }
    if (typeof item.msg !== "string") out.push("422 msg is not a string")
    if (typeof item.type !== "string" || item.type.length === 0) out.push("422 type is not a string")
    if ("ctx" in item && item.ctx !== undefined && !isObject(item.ctx)) out.push("422 ctx is not an object")
  }
  return out
}

/** What is wrong with `response` to a request to `endpoint` (or to no endpoint: an unknown route). */
/** The frames of the endpoints whose streamed frames are not their answer's shape (`token_usage: null`). */
const streamFrames: Record<string, Schema.Schema<any, any>> = {
  "inference.chatCompletionsByModel": ChatCompletionsStreamFrame,
  "inference.completionsByModel": CompletionsStreamFrame
}

/**
 * The endpoints that answer errors as another protocol specifies (OTLP/HTTP's `POST /v1/traces`:
 * a `google.rpc.Status`, 400 for a body its Schema rejects, 415 for another content type), by
 * their error statuses: the body of each is in the Schema given, not the kit's.
 */
export const foreignErrors: Readonly<Record<string, Readonly<Record<number, Schema.Schema<any, any>>>>> = {
  "otlp.exportTraces": { 400: OtlpBadRequest, 415: OtlpUnsupportedMediaType }
}

/**
 * The groups of the OpenAI-style front door: each error body has OpenAI's `error` object beside the
 * kit's body (docs/inference-v5.md "Errors"); the rest is checked as every endpoint's.
 */
const openAiErrorGroups = new Set(["openAiInference", "betaInference"])

/** What is wrong with a streamed 200 (`text/event-stream`) of `endpoint`. */
const streamProblems = (endpoint: Endpoint | undefined, text: string): Array<string> => {
  const frames = text.split("\n\n").filter((frame) => frame !== "")
  if (!text.endsWith("\n\n") || frames.some((frame) => !frame.startsWith("data: "))) return [`a stream not of data frames: ${text.slice(0, 200)}`]
  const data = frames.map((frame) => frame.slice("data: ".length))
  const last = data[data.length - 1]
  const ended = last === "[DONE]" || (last !== undefined && Either.isRight(Schema.decodeUnknownEither(Schema.parseJson(StreamErrorFrame))(last)))
  if (!ended) return [`a stream that ends with neither [DONE] nor an error frame: ${text.slice(-200)}`]
  const schema = endpoint === undefined ? undefined : streamFrames[endpoint.key] ?? endpoint.success
  if (schema === undefined) return []
  const decode = Schema.decodeUnknownEither(Schema.parseJson(schema as Schema.Schema<unknown, unknown, never>))
  return data.slice(0, -1).flatMap((frame) =>
    Either.isLeft(decode(frame)) ? [`a frame not in the endpoint's frame schema: ${frame.slice(0, 200)}`] : []
  )
}

export const responseProblems = (endpoint: Endpoint | undefined, response: WireResponse): Array<string> => {
  const { status } = response
  let json = response.json
  if (status >= 500) {
    return [`${status}${response.text === "{\"detail\":\"Internal Server Error\"}" ? "" : ` with body ${response.text.slice(0, 300)}`}`]
  }
  const out: Array<string> = []
  if (!common.has(status) && !(endpoint?.errorStatuses.has(status) ?? false) && status !== endpoint?.successStatus) {
    out.push(`unexpected status ${status}`)
  }
  if (status === 204) return response.text === "" ? out : [...out, `204 with a body: ${response.text.slice(0, 200)}`]
  const contentType = String(response.headers["content-type"] ?? "")
  if (status === 200 && contentType.startsWith("text/event-stream")) return [...out, ...streamProblems(endpoint, response.text)]
  // a binary success (a file's bytes): any bytes, of the content type its Schema declares (`*/*`: any)
  const encoding = endpoint === undefined ? undefined : HttpApiSchema.getEncoding(endpoint.success.ast)
  if (status === 200 && encoding?.kind === "Uint8Array") {
    return encoding.contentType === "*/*" || contentType.startsWith(encoding.contentType)
      ? out
      : [...out, `200 content-type ${contentType}, not ${encoding.contentType}`]
  }
  if (!contentType.startsWith("application/json")) out.push(`${status} content-type ${contentType}`)
  if (json === undefined) return [...out, `${status} body is not JSON: ${response.text.slice(0, 200)}`]
  const foreign = endpoint === undefined ? undefined : foreignErrors[endpoint.key]?.[status]
  if (foreign !== undefined) {
    const decoded = Schema.decodeUnknownEither(foreign)(json, { onExcessProperty: "error" })
    return Either.isLeft(decoded) ? [...out, `${status} body is not the protocol's: ${response.text.slice(0, 200)}`] : out
  }
  if (status >= 400 && endpoint !== undefined && openAiErrorGroups.has(endpoint.group)) {
    const error = isObject(json) ? Schema.decodeUnknownEither(OpenAiErrorObject)(json.error, { onExcessProperty: "error" }) : undefined
    if (error === undefined || Either.isLeft(error)) return [...out, `${status} body has no OpenAI error object: ${response.text.slice(0, 200)}`]
    const { error: _, ...kits } = json as Record<string, unknown>
    json = kits
  }
  if (status === 422) return [...out, ...validationBodyProblems(json)]
  if (status === 400) {
    if (!isObject(json) || !Array.isArray(json.errors) || typeof json.service_error_code !== "string") {
      out.push(`400 body is not {errors, service_error_code}: ${response.text.slice(0, 200)}`)
    }
    return out
  }
  if (status >= 400) {
    if (!isObject(json) || Object.keys(json).join() !== "detail" || typeof json.detail !== "string") {
      out.push(`${status} body is not {detail: string}: ${response.text.slice(0, 200)}`)
    }
    return out
  }
  if (status === 200 && endpoint !== undefined) {
    const decoded = Schema.decodeUnknownEither(endpoint.success as Schema.Schema<unknown, unknown, never>)(json)
    if (Either.isLeft(decoded)) out.push(`200 body does not match the success schema: ${String(decoded.left).slice(0, 400)}`)
  }
  return out
}
