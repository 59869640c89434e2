/**
 * OTLP/HTTP's protobuf encoding, read and written with protobufjs from the messages of
 * opentelemetry-proto (v1: collector/trace/v1/trace_service.proto, trace/v1/trace.proto,
 * common/v1/common.proto, resource/v1/resource.proto) and google.rpc.Status, kept here as text
 * with the official field numbers (fields the kit does not read are left out: a decoder skips
 * them). A request decodes to the shape of its JSON encoding, so one Schema and one mapping
 * serve both.
 */
import protobuf from "protobufjs"

const proto = `
syntax = "proto3";
package otlp;

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; }
message Resource { repeated KeyValue attributes = 1; }

message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
  repeated Event events = 11;
  message Link { bytes trace_id = 1; bytes span_id = 2; repeated KeyValue attributes = 4; }
  repeated Link links = 13;
  Status status = 15;
}
message Status { string message = 2; int32 code = 3; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }

message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2; }
message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }

message RpcStatus { int32 code = 1; string message = 2; }
`

const root = protobuf.parse(proto).root
const RequestType = root.lookupType("otlp.ExportTraceServiceRequest")
const ResponseType = root.lookupType("otlp.ExportTraceServiceResponse")
const StatusType = root.lookupType("otlp.RpcStatus")

const hex = (base64: unknown) => typeof base64 === "string" ? Buffer.from(base64, "base64").toString("hex") : base64

/** The span ids of a decoded message (base64 from `toObject`) as OTLP/JSON's hex. */
const hexIds = (object: Record<string, unknown>) => {
  for (const key of ["traceId", "spanId", "parentSpanId"]) if (key in object) object[key] = hex(object[key])
}

/**
 * A protobuf `ExportTraceServiceRequest` as its JSON encoding would carry it (camelCase fields,
 * hex ids, 64-bit integers as decimal strings, bytes values base64); throws on bytes that are not
 * such a message.
 */
export const decodeRequest = (bytes: Uint8Array): unknown => {
  const object = RequestType.toObject(RequestType.decode(bytes), { longs: String, bytes: String, enums: Number })
  for (const resourceSpans of (object.resourceSpans ?? []) as Array<any>) {
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        hexIds(span)
        for (const link of span.links ?? []) hexIds(link)
      }
    }
  }
  return object
}

/** An `ExportTraceServiceResponse`: empty when nothing was rejected. */
export const encodeResponse = (rejected: number, errorMessage: string): Uint8Array =>
  ResponseType.encode(
    ResponseType.fromObject(rejected === 0 ? {} : { partialSuccess: { rejectedSpans: rejected, errorMessage } })
  ).finish()

/** A `google.rpc.Status`: the body of an OTLP/HTTP error. */
export const encodeStatus = (code: number, message: string): Uint8Array =>
  StatusType.encode(StatusType.fromObject({ code, message })).finish()
