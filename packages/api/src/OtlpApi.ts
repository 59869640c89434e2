import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import {
  ExportTraceServiceRequest,
  ExportTraceServiceRequestProtobuf,
  ExportTraceServiceResponse,
  OtlpBadRequest,
  OtlpUnsupportedMediaType
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

/** The protobuf answer (an `ExportTraceServiceResponse` message) to a protobuf request. */
const ResponseProtobuf = HttpApiSchema.Uint8Array({ contentType: "application/x-protobuf" })

export class OtlpApi extends HttpApiGroup.make("otlp")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("exportTraces", "/v1/traces")
      .setPayload(Schema.Union(ExportTraceServiceRequest, ExportTraceServiceRequestProtobuf))
      .addSuccess(Schema.Union(ExportTraceServiceResponse, ResponseProtobuf))
      .addError(OtlpBadRequest)
      .addError(OtlpUnsupportedMediaType)
      .annotate(OpenApi.Summary, "Export traces (OpenTelemetry)")
      .annotate(
        OpenApi.Description,
        "OTLP/HTTP trace export: an `ExportTraceServiceRequest` in JSON (`application/json`, hex ids) or protobuf (`application/x-protobuf`), optionally gzip-compressed. Each span is stored as a v5 span of the caller's account, replacing the span of the same id; spans that cannot be stored are counted in `partialSuccess.rejectedSpans`. A body that is not such a request is a 400 and another content type a 415, both a `google.rpc.Status` (OTLP/HTTP's errors, not the kit's 422)."
      )
  )
  .annotate(OpenApi.Title, "OpenTelemetry")
  .annotate(OpenApi.Description, "OpenTelemetry's OTLP/HTTP trace export into v5 spans: any OpenTelemetry SDK can send its traces to the kit.")
{}
