import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  CreateSpanAssessment,
  Id,
  NotFound,
  SpanAssessment,
  SpanAssessmentList,
  SpanAssessmentListQuery,
  UpdateSpanAssessment
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const AssessmentPath = Schema.Struct({ assessment_id: Id })

export class SpanAssessmentsApi extends HttpApiGroup.make("spanAssessments")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v5/span-assessments")
      .setPayload(CreateSpanAssessment)
      .addSuccess(SpanAssessment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Create a span assessment")
      .annotate(
        OpenApi.Description,
        "Records an assessment of a stored span of a trace (404 when the account holds no span `span_id` in trace `trace_id`); the value field named by `assessment_type` is required (422)."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v5/span-assessments")
      .setUrlParams(SpanAssessmentListQuery)
      .addSuccess(SpanAssessmentList)
      .annotate(OpenApi.Summary, "List span assessments")
      .annotate(
        OpenApi.Description,
        "The assessments of a span and/or a trace (at least one of span_id, trace_id), newest first by default (sort_order=asc: oldest first, a span's assessments as a thread)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v5/span-assessments/:assessment_id")
      .setPath(AssessmentPath)
      .addSuccess(SpanAssessment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a span assessment")
      .annotate(OpenApi.Description, "Answers the span assessment; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v5/span-assessments/:assessment_id")
      .setPath(AssessmentPath)
      .setPayload(UpdateSpanAssessment)
      .addSuccess(SpanAssessment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a span assessment")
      .annotate(
        OpenApi.Description,
        "Changes the value fields given (`null` clears one); clearing the value field of the assessment's own type is a 422."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v5/span-assessments/:assessment_id")
      .setPath(AssessmentPath)
      .addSuccess(SpanAssessment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a span assessment")
      .annotate(OpenApi.Description, "Deletes the assessment for good; answers it as it was.")
  )
  .annotate(OpenApi.Title, "Span assessments")
  .annotate(
    OpenApi.Description,
    "Span assessments (v5): comments, ratings, approvals, rubrics, metadata and overwrites of a trace's spans."
  )
{}
