/**
 * The error bodies of docs/decisions.md "Errors". Each is a Schema class whose wire form is
 * exactly that body (no `_tag` on the wire); the `_tag` lives on the instance so callers can
 * `Effect.catchTag`. The HTTP status lives on the class.
 */
import { HttpApiSchema } from "@effect/platform"
import { Option, Schema } from "effect"

/**
 * The `_tag` of an error: required on the instance (so unions of errors that share a wire shape
 * still tell each other apart, and callers can `Effect.catchTag`), absent on the wire.
 */
export const errorTag = <const Tag extends string>(value: Tag) =>
  Schema.optionalToRequired(Schema.Literal(value), Schema.Literal(value), {
    decode: () => value,
    encode: () => Option.none()
  }).pipe(Schema.withConstructorDefault(() => value))

/** One problem of a validation failure (the shape FastAPI-style clients decode). */
export class ValidationIssue extends Schema.Class<ValidationIssue>("ValidationIssue")({
  loc: Schema.Array(Schema.Union(Schema.String, Schema.Int)),
  msg: Schema.String,
  type: Schema.String,
  input: Schema.optionalWith(Schema.Unknown, { exact: true }),
  ctx: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { exact: true })
}) {}

/** 422: the request did not match its schema (body, path, query or header), one item per problem. */
export class ValidationError extends Schema.Class<ValidationError>("ValidationError")(
  { _tag: errorTag("ValidationError"), detail: Schema.Array(ValidationIssue) },
  HttpApiSchema.annotations({ status: 422, description: "Validation error" })
) {}

/** 401: missing or unknown API key. */
export class Unauthorized extends Schema.Class<Unauthorized>("Unauthorized")(
  { _tag: errorTag("Unauthorized"), detail: Schema.String },
  HttpApiSchema.annotations({ status: 401, description: "Missing or unknown API key" })
) {}

/** 403: an `account_id` (or `x-selected-account-id`) the caller does not belong to. */
export class Forbidden extends Schema.Class<Forbidden>("Forbidden")(
  { _tag: errorTag("Forbidden"), detail: Schema.String },
  HttpApiSchema.annotations({ status: 403, description: "Account not accessible to the caller" })
) {}

/** 404: entity missing, or owned by an account the caller is not in. */
export class NotFound extends Schema.Class<NotFound>("NotFound")(
  { _tag: errorTag("NotFound"), detail: Schema.String },
  HttpApiSchema.annotations({ status: 404, description: "Not found" })
) {}

/** 409: conflicting state, e.g. a duplicate unique name. */
export class Conflict extends Schema.Class<Conflict>("Conflict")(
  { _tag: errorTag("Conflict"), detail: Schema.String },
  HttpApiSchema.annotations({ status: 409, description: "Conflict" })
) {}

/** 413: request body over the size limit. */
export class PayloadTooLarge extends Schema.Class<PayloadTooLarge>("PayloadTooLarge")(
  { _tag: errorTag("PayloadTooLarge"), detail: Schema.String },
  HttpApiSchema.annotations({ status: 413, description: "Request body too large" })
) {}

/** 400: a model's upstream refused the request as malformed (its reason passed on). */
export class UpstreamBadRequest extends Schema.Class<UpstreamBadRequest>("UpstreamBadRequest")(
  { _tag: errorTag("UpstreamBadRequest"), detail: Schema.String },
  HttpApiSchema.annotations({ status: 400, description: "The model's upstream refused the request" })
) {}

/** 429: a model's upstream kept answering "too many requests" through the retries. */
export class UpstreamRateLimited extends Schema.Class<UpstreamRateLimited>("UpstreamRateLimited")(
  { _tag: errorTag("UpstreamRateLimited"), detail: Schema.String },
  HttpApiSchema.annotations({ status: 429, description: "The model's upstream is rate limiting" })
) {}

/** 502: a model's upstream is down, failed, or answered something unreadable. */
export class BadGateway extends Schema.Class<BadGateway>("BadGateway")(
  { _tag: errorTag("BadGateway"), detail: Schema.String },
  HttpApiSchema.annotations({ status: 502, description: "The model's upstream failed" })
) {}

/** 504: a model's upstream did not answer in time. */
export class GatewayTimeout extends Schema.Class<GatewayTimeout>("GatewayTimeout")(
  { _tag: errorTag("GatewayTimeout"), detail: Schema.String },
  HttpApiSchema.annotations({ status: 504, description: "The model's upstream did not answer in time" })
) {}

/** What executing a model can fail with, besides the common errors. */
export const UpstreamErrors = [UpstreamBadRequest, UpstreamRateLimited, BadGateway, GatewayTimeout] as const
export type UpstreamError = UpstreamBadRequest | UpstreamRateLimited | BadGateway | GatewayTimeout

/** 500: unexpected failure; the body never carries a stack or SQL. */
export class InternalServerError extends Schema.Class<InternalServerError>("InternalServerError")(
  { _tag: errorTag("InternalServerError"), detail: Schema.String },
  HttpApiSchema.annotations({ status: 500, description: "Internal Server Error" })
) {}

/** The errors every authenticated endpoint can answer. */
export const CommonErrors = [ValidationError, Unauthorized, Forbidden, NotFound] as const

// ---------------------------------------------------------------------------------------------
// The OpenAI-style front door's errors (docs/inference-v5.md "Errors")

/**
 * OpenAI's error object: what OpenAI's clients read from an error body (`APIError.message`,
 * `.type`, `.param`, `.code`); without it they show only the status ("404 status code (no body)").
 */
export const OpenAiErrorObject = Schema.Struct({
  message: Schema.String,
  type: Schema.String,
  param: Schema.NullOr(Schema.String),
  code: Schema.NullOr(Schema.String)
}).annotations({ identifier: "OpenAiErrorObject" })
export type OpenAiErrorObject = typeof OpenAiErrorObject.Type

/*
 * The front door's errors: each the kit's body (`detail`, as its own clients read it) with OpenAI's
 * `error` object beside it. Tags of their own: the server's error encoding tries the API's errors
 * in turn, and an error of the kit's tag would be encoded as the kit's body.
 */

/** 422 of the front door: the issues in `detail`; `error` says them all (`param` the first one's field). */
export class OpenAiValidationError extends Schema.Class<OpenAiValidationError>("OpenAiValidationError")(
  { _tag: errorTag("OpenAiValidationError"), detail: Schema.Array(ValidationIssue), error: OpenAiErrorObject },
  HttpApiSchema.annotations({ status: 422, description: "Validation error, with OpenAI's error object" })
) {}

/** 401 of the front door: missing or unknown API key (`code: "invalid_api_key"`). */
export class OpenAiUnauthorized extends Schema.Class<OpenAiUnauthorized>("OpenAiUnauthorized")(
  { _tag: errorTag("OpenAiUnauthorized"), detail: Schema.String, error: OpenAiErrorObject },
  HttpApiSchema.annotations({ status: 401, description: "Missing or unknown API key, with OpenAI's error object" })
) {}

/** 403 of the front door: a selected account the caller does not belong to. */
export class OpenAiForbidden extends Schema.Class<OpenAiForbidden>("OpenAiForbidden")(
  { _tag: errorTag("OpenAiForbidden"), detail: Schema.String, error: OpenAiErrorObject },
  HttpApiSchema.annotations({ status: 403, description: "Account not accessible to the caller, with OpenAI's error object" })
) {}

/** 404 of the front door: no model by that name (`code: "model_not_found"`). */
export class OpenAiNotFound extends Schema.Class<OpenAiNotFound>("OpenAiNotFound")(
  { _tag: errorTag("OpenAiNotFound"), detail: Schema.String, error: OpenAiErrorObject },
  HttpApiSchema.annotations({ status: 404, description: "Model not found, with OpenAI's error object" })
) {}

/** 409 of the front door: the model has no deployment ready to run it. */
export class OpenAiConflict extends Schema.Class<OpenAiConflict>("OpenAiConflict")(
  { _tag: errorTag("OpenAiConflict"), detail: Schema.String, error: OpenAiErrorObject },
  HttpApiSchema.annotations({ status: 409, description: "Model not ready, with OpenAI's error object" })
) {}

/** 400 of the front door: the model's upstream refused the request. */
export class OpenAiUpstreamBadRequest extends Schema.Class<OpenAiUpstreamBadRequest>("OpenAiUpstreamBadRequest")(
  { _tag: errorTag("OpenAiUpstreamBadRequest"), detail: Schema.String, error: OpenAiErrorObject },
  HttpApiSchema.annotations({ status: 400, description: "The model's upstream refused the request, with OpenAI's error object" })
) {}

/** 429 of the front door: the model's upstream kept rate limiting through the retries. */
export class OpenAiUpstreamRateLimited extends Schema.Class<OpenAiUpstreamRateLimited>("OpenAiUpstreamRateLimited")(
  { _tag: errorTag("OpenAiUpstreamRateLimited"), detail: Schema.String, error: OpenAiErrorObject },
  HttpApiSchema.annotations({ status: 429, description: "The model's upstream is rate limiting, with OpenAI's error object" })
) {}

/** 502 of the front door: the model's upstream failed. */
export class OpenAiBadGateway extends Schema.Class<OpenAiBadGateway>("OpenAiBadGateway")(
  { _tag: errorTag("OpenAiBadGateway"), detail: Schema.String, error: OpenAiErrorObject },
  HttpApiSchema.annotations({ status: 502, description: "The model's upstream failed, with OpenAI's error object" })
) {}

/** 504 of the front door: the model did not answer in time. */
export class OpenAiGatewayTimeout extends Schema.Class<OpenAiGatewayTimeout>("OpenAiGatewayTimeout")(
  { _tag: errorTag("OpenAiGatewayTimeout"), detail: Schema.String, error: OpenAiErrorObject },
  HttpApiSchema.annotations({ status: 504, description: "The model's upstream did not answer in time, with OpenAI's error object" })
) {}

/** 413 of the front door: the request body over the size limit. */
export class OpenAiPayloadTooLarge extends Schema.Class<OpenAiPayloadTooLarge>("OpenAiPayloadTooLarge")(
  { _tag: errorTag("OpenAiPayloadTooLarge"), detail: Schema.String, error: OpenAiErrorObject },
  HttpApiSchema.annotations({ status: 413, description: "Request body too large, with OpenAI's error object" })
) {}

/** 500 of the front door: unexpected failure (`type: "server_error"`). */
export class OpenAiInternalServerError extends Schema.Class<OpenAiInternalServerError>("OpenAiInternalServerError")(
  { _tag: errorTag("OpenAiInternalServerError"), detail: Schema.String, error: OpenAiErrorObject },
  HttpApiSchema.annotations({ status: 500, description: "Internal Server Error, with OpenAI's error object" })
) {}

/** An error of the front door. */
export type OpenAiError =
  | OpenAiValidationError
  | OpenAiUnauthorized
  | OpenAiForbidden
  | OpenAiNotFound
  | OpenAiConflict
  | OpenAiUpstreamBadRequest
  | OpenAiUpstreamRateLimited
  | OpenAiBadGateway
  | OpenAiGatewayTimeout
  | OpenAiPayloadTooLarge
  | OpenAiInternalServerError

/** OpenAI's error object of a 422: every issue as `<loc>: <msg>`, `param` the first's field, `code` its type. */
const validationObject = (issues: ReadonlyArray<ValidationIssue>): OpenAiErrorObject => {
  const first = issues[0]
  // a body field is named as OpenAI names it (`messages.0.role`); a query or header field with its part
  const field = first === undefined ? [] : first.loc[0] === "body" ? first.loc.slice(1) : first.loc
  return {
    message: issues.length === 0 ? "Invalid request" : issues.map((issue) => `${issue.loc.join(".")}: ${issue.msg}`).join("; "),
    type: "invalid_request_error",
    param: field.length === 0 ? null : field.join("."),
    code: first?.type ?? null
  }
}

/** The front door's 422 for `issues`. */
export const openAiValidationError = (issues: ReadonlyArray<ValidationIssue>) =>
  new OpenAiValidationError({ detail: issues, error: validationObject(issues) })

const object = (message: string, type: string, code: string | null): OpenAiErrorObject => ({ message, type, param: null, code })

/** The front door's error of each of the kit's errors, by `_tag`. */
interface OpenAiErrorOf {
  readonly ValidationError: OpenAiValidationError
  readonly Unauthorized: OpenAiUnauthorized
  readonly Forbidden: OpenAiForbidden
  readonly NotFound: OpenAiNotFound
  readonly Conflict: OpenAiConflict
  readonly UpstreamBadRequest: OpenAiUpstreamBadRequest
  readonly UpstreamRateLimited: OpenAiUpstreamRateLimited
  readonly BadGateway: OpenAiBadGateway
  readonly GatewayTimeout: OpenAiGatewayTimeout
  readonly PayloadTooLarge: OpenAiPayloadTooLarge
  readonly InternalServerError: OpenAiInternalServerError
  readonly OpenAiValidationError: OpenAiValidationError
  readonly OpenAiUnauthorized: OpenAiUnauthorized
  readonly OpenAiForbidden: OpenAiForbidden
  readonly OpenAiNotFound: OpenAiNotFound
  readonly OpenAiConflict: OpenAiConflict
  readonly OpenAiUpstreamBadRequest: OpenAiUpstreamBadRequest
  readonly OpenAiUpstreamRateLimited: OpenAiUpstreamRateLimited
  readonly OpenAiBadGateway: OpenAiBadGateway
  readonly OpenAiGatewayTimeout: OpenAiGatewayTimeout
  readonly OpenAiPayloadTooLarge: OpenAiPayloadTooLarge
  readonly OpenAiInternalServerError: OpenAiInternalServerError
}

/** What the front door answers for `E`, by its `_tag`. */
export type ToOpenAiError<E extends { readonly _tag: keyof OpenAiErrorOf }> = E extends unknown ? OpenAiErrorOf[E["_tag"]] : never

/**
 * The kit's error as the front door answers it: the same status and `detail`, OpenAI's `error`
 * beside it (`type` `invalid_request_error` for the caller's mistakes, `rate_limit_error` for 429,
 * `server_error` for the upstream's failures). An error already of the front door is kept.
 */
export const toOpenAiError = <
  E extends
    | ValidationError
    | Unauthorized
    | Forbidden
    | NotFound
    | Conflict
    | UpstreamBadRequest
    | UpstreamRateLimited
    | BadGateway
    | GatewayTimeout
    | PayloadTooLarge
    | InternalServerError
    | OpenAiError
>(error: E): ToOpenAiError<E> => openAiOf(error) as ToOpenAiError<E>

const openAiOf = (error: unknown): OpenAiError => {
  if (error instanceof ValidationError) return openAiValidationError(error.detail)
  if (error instanceof Unauthorized) return new OpenAiUnauthorized({ detail: error.detail, error: object(error.detail, "invalid_request_error", "invalid_api_key") })
  if (error instanceof Forbidden) return new OpenAiForbidden({ detail: error.detail, error: object(error.detail, "invalid_request_error", "account_not_accessible") })
  if (error instanceof NotFound) return new OpenAiNotFound({ detail: error.detail, error: object(error.detail, "invalid_request_error", "model_not_found") })
  if (error instanceof Conflict) return new OpenAiConflict({ detail: error.detail, error: object(error.detail, "invalid_request_error", "model_not_ready") })
  if (error instanceof UpstreamBadRequest) return new OpenAiUpstreamBadRequest({ detail: error.detail, error: object(error.detail, "invalid_request_error", null) })
  if (error instanceof UpstreamRateLimited) return new OpenAiUpstreamRateLimited({ detail: error.detail, error: object(error.detail, "rate_limit_error", "rate_limit_exceeded") })
  if (error instanceof BadGateway) return new OpenAiBadGateway({ detail: error.detail, error: object(error.detail, "server_error", "upstream_error") })
  if (error instanceof GatewayTimeout) return new OpenAiGatewayTimeout({ detail: error.detail, error: object(error.detail, "server_error", "timeout") })
  if (error instanceof PayloadTooLarge) return new OpenAiPayloadTooLarge({ detail: error.detail, error: object(error.detail, "invalid_request_error", "request_too_large") })
  if (error instanceof InternalServerError) return new OpenAiInternalServerError({ detail: error.detail, error: object(error.detail, "server_error", null) })
  return error as OpenAiError
}
