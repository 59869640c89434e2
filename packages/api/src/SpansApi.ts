import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  Conflict,
  Id,
  NotFound,
  Span,
  SpanBatch,
  SpanBatchResponse,
  SpanCreate,
  SpanSearchBody,
  SpanSearchPage,
  SpanSearchQuery,
  SpanUpdate
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const SpanPath = Schema.Struct({ span_id: Id })

export class SpansApi extends HttpApiGroup.make("spans")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v5/spans")
      .setPayload(SpanCreate)
      .addSuccess(Span)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Create a span")
      .annotate(
        OpenApi.Description,
        "Stores one span; its `id` is the client's (a UUID when absent). An id the account already holds is a 409."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v5/spans/:span_id")
      .setPath(SpanPath)
      .addSuccess(Span)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a span")
      .annotate(OpenApi.Description, "The span; 404 when none of the caller's accounts holds it.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v5/spans/:span_id")
      .setPath(SpanPath)
      .setPayload(SpanUpdate)
      .addSuccess(Span)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a span")
      .annotate(
        OpenApi.Description,
        "Changes the fields given (`end_timestamp`, `metadata`, `name`, `output`, `status`); the others stay."
      )
  )
  .add(
    HttpApiEndpoint.post("batch", "/v5/spans/batch")
      .setPayload(SpanBatch)
      .addSuccess(SpanBatchResponse)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Create spans")
      .annotate(
        OpenApi.Description,
        "Inserts up to 1000 spans at once, all or none: an id the account already holds is a 409 naming it; a repeated id counts once, as its last item."
      )
  )
  .add(
    HttpApiEndpoint.put("upsertBatch", "/v5/spans/batch")
      .setPayload(SpanBatch)
      .addSuccess(SpanBatchResponse)
      .annotate(OpenApi.Summary, "Create or replace spans")
      .annotate(
        OpenApi.Description,
        "Inserts up to 1000 spans, replacing the account's span of the same id whole (what the SDK tracer sends at a span's start and again at its end); a repeated id counts once, as its last item."
      )
  )
  .add(
    HttpApiEndpoint.post("search", "/v5/spans/search")
      .setUrlParams(SpanSearchQuery)
      .setPayload(SpanSearchBody)
      .addSuccess(SpanSearchPage)
      .annotate(OpenApi.Summary, "Search spans")
      .annotate(
        OpenApi.Description,
        "The spans matching the body's filters in the window `[from_ts, to_ts]` of their start, by `start_timestamp` (newest first by default), keyset-paginated with `starting_after` / `ending_before` in the query; `total` is always 0."
      )
  )
  .annotate(OpenApi.Title, "Spans")
  .annotate(OpenApi.Description, "Spans (v5): the units of work of traces, sent by the SDK's tracer or any client.")
{}
