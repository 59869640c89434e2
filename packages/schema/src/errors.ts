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
