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
  .add(HttpApiEndpoint.post("create", "/v5/span-assessments").setPayload(CreateSpanAssessment).addSuccess(SpanAssessment))
  .add(
    HttpApiEndpoint.get("list", "/v5/span-assessments")
      .setUrlParams(SpanAssessmentListQuery)
      .addSuccess(SpanAssessmentList)
      .annotate(
        OpenApi.Description,
        "The assessments of a span and/or a trace (at least one of span_id, trace_id), oldest first."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v5/span-assessments/:assessment_id")
      .setPath(AssessmentPath)
      .addSuccess(SpanAssessment)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.patch("update", "/v5/span-assessments/:assessment_id")
      .setPath(AssessmentPath)
      .setPayload(UpdateSpanAssessment)
      .addSuccess(SpanAssessment)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("delete", "/v5/span-assessments/:assessment_id")
      .setPath(AssessmentPath)
      .addSuccess(SpanAssessment)
      .addError(NotFound)
      .annotate(OpenApi.Description, "Deletes the assessment for good; answers it as it was.")
  )
  .annotate(OpenApi.Title, "Span assessments")
{}
