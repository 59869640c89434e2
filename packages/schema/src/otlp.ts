/**
 * OpenTelemetry's trace export (OTLP/HTTP, docs/spans.md "OpenTelemetry"): the JSON encoding of an
 * `ExportTraceServiceRequest` as `POST /v1/traces` takes it, and its answers. Only what the kit
 * reads is declared; every other field (dropped counts, flags, trace state) is accepted and
 * ignored. Ids are hex, as OTLP/JSON sends them; 64-bit integers a decimal string or a number.
 */
import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/** An OTLP 64-bit integer in JSON: a decimal string (protobuf's JSON mapping) or a number. */
const Int64 = Schema.Union(Schema.String, Schema.Number)

/**
 * An attribute's value: one of its fields is set. `arrayValue.values` holds AnyValues and
 * `kvlistValue.values` KeyValues, at any depth: declared as unknown here (a recursive Schema
 * would make the OpenAPI document and the fuzz recurse), read leniently by the server.
 */
export const OtlpAnyValue = Schema.Struct({
  stringValue: Schema.optional(Schema.String),
  boolValue: Schema.optional(Schema.Boolean),
  intValue: Schema.optional(Int64),
  // protobuf's JSON mapping writes NaN and the infinities as strings
  doubleValue: Schema.optional(Schema.Union(Schema.Number, Schema.String)),
  bytesValue: Schema.optional(Schema.String),
  arrayValue: Schema.optional(Schema.Struct({ values: Schema.optional(Schema.Array(Schema.Unknown)) })),
  kvlistValue: Schema.optional(Schema.Struct({ values: Schema.optional(Schema.Array(Schema.Unknown)) }))
}).annotations({ identifier: "OtlpAnyValue" })
export type OtlpAnyValue = typeof OtlpAnyValue.Type

export const OtlpKeyValue = Schema.Struct({
  key: Schema.String,
  value: Schema.optional(OtlpAnyValue)
}).annotations({ identifier: "OtlpKeyValue" })
export type OtlpKeyValue = typeof OtlpKeyValue.Type

const Attributes = Schema.optional(Schema.Array(OtlpKeyValue))

/** A span's status: `code` 0 UNSET, 1 OK, 2 ERROR (or the enum's name). */
export const OtlpStatus = Schema.Struct({
  code: Schema.optional(Schema.Union(Schema.Number, Schema.String)),
  message: Schema.optional(Schema.String)
}).annotations({ identifier: "OtlpStatus" })

export const OtlpSpan = Schema.Struct({
  traceId: Schema.String,
  spanId: Schema.String,
  parentSpanId: Schema.optional(Schema.String),
  name: Schema.optional(Schema.String),
  kind: Schema.optional(Schema.Union(Schema.Number, Schema.String)),
  startTimeUnixNano: Schema.optional(Int64),
  endTimeUnixNano: Schema.optional(Int64),
  attributes: Attributes,
  events: Schema.optional(Schema.Array(Schema.Struct({
    timeUnixNano: Schema.optional(Int64),
    name: Schema.optional(Schema.String),
    attributes: Attributes
  }))),
  links: Schema.optional(Schema.Array(Schema.Struct({
    traceId: Schema.optional(Schema.String),
    spanId: Schema.optional(Schema.String),
    attributes: Attributes
  }))),
  status: Schema.optional(OtlpStatus)
}).annotations({ identifier: "OtlpSpan" })
export type OtlpSpan = typeof OtlpSpan.Type

export const OtlpScopeSpans = Schema.Struct({
  scope: Schema.optional(Schema.Struct({
    name: Schema.optional(Schema.String),
    version: Schema.optional(Schema.String),
    attributes: Attributes
  })),
  spans: Schema.optional(Schema.Array(OtlpSpan))
}).annotations({ identifier: "OtlpScopeSpans" })

export const OtlpResourceSpans = Schema.Struct({
  resource: Schema.optional(Schema.Struct({ attributes: Attributes })),
  scopeSpans: Schema.optional(Schema.Array(OtlpScopeSpans))
}).annotations({ identifier: "OtlpResourceSpans" })

/** `POST /v1/traces` with `content-type: application/json`. */
export const ExportTraceServiceRequest = Schema.Struct({
  resourceSpans: Schema.optional(Schema.Array(OtlpResourceSpans))
}).annotations({ identifier: "ExportTraceServiceRequest" })
export type ExportTraceServiceRequest = typeof ExportTraceServiceRequest.Type

/** The same request in protobuf (`content-type: application/x-protobuf`). */
export const ExportTraceServiceRequestProtobuf = HttpApiSchema.Uint8Array({ contentType: "application/x-protobuf" })

/**
 * The answer: `{"partialSuccess": {}}` when every span was stored; else the number of spans
 * rejected (a decimal string, protobuf's JSON mapping of an int64) and why.
 */
export const ExportTraceServiceResponse = Schema.Struct({
  partialSuccess: Schema.Struct({
    rejectedSpans: Schema.optional(Schema.String),
    errorMessage: Schema.optional(Schema.String)
  })
}).annotations({ identifier: "ExportTraceServiceResponse" })
export type ExportTraceServiceResponse = typeof ExportTraceServiceResponse.Type

const statusFields = {
  /** google.rpc.Code: 3 INVALID_ARGUMENT. */
  code: Schema.Int,
  message: Schema.String
}

/** 400 (OTLP/HTTP): a body that is not an `ExportTraceServiceRequest`, as a `google.rpc.Status`. */
export class OtlpBadRequest extends Schema.Class<OtlpBadRequest>("OtlpBadRequest")(
  statusFields,
  HttpApiSchema.annotations({ status: 400 })
) {}

/** 415 (OTLP/HTTP): a content type other than JSON and protobuf, or a content encoding other than gzip. */
export class OtlpUnsupportedMediaType extends Schema.Class<OtlpUnsupportedMediaType>("OtlpUnsupportedMediaType")(
  statusFields,
  HttpApiSchema.annotations({ status: 415 })
) {}
