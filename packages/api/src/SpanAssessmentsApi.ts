import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./security.js"

export class SpanAssessmentsApi extends HttpApiGroup.make("spanAssessments")
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Span assessments")
{}
