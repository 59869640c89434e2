import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./security.js"

export class EvaluationDashboardsApi extends HttpApiGroup.make("evaluationDashboards")
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Evaluation dashboards")
{}
