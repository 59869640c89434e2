import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  CreateEvaluationDashboard,
  CreateEvaluationDashboardWidget,
  EvaluationDashboard,
  EvaluationDashboardWidget,
  GetEvaluationDashboardQuery,
  Id,
  ListEvaluationDashboardsQuery,
  NotFound,
  UpdateEvaluationDashboard,
  V5List
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const DashboardPath = Schema.Struct({ dashboard_id: Id })

export class EvaluationDashboardsApi extends HttpApiGroup.make("evaluationDashboards")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v5/evaluation-dashboards")
      .setPayload(CreateEvaluationDashboard)
      .addSuccess(EvaluationDashboard)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("list", "/v5/evaluation-dashboards")
      .setUrlParams(ListEvaluationDashboardsQuery)
      .addSuccess(V5List(EvaluationDashboard))
  )
  .add(
    HttpApiEndpoint.get("get", "/v5/evaluation-dashboards/:dashboard_id")
      .setPath(DashboardPath)
      .setUrlParams(GetEvaluationDashboardQuery)
      .addSuccess(EvaluationDashboard)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.patch("update", "/v5/evaluation-dashboards/:dashboard_id")
      .setPath(DashboardPath)
      .setPayload(UpdateEvaluationDashboard)
      .addSuccess(EvaluationDashboard)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("archive", "/v5/evaluation-dashboards/:dashboard_id")
      .setPath(DashboardPath)
      .addSuccess(EvaluationDashboard)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("addWidget", "/v5/evaluation-dashboards/:dashboard_id/widgets")
      .setPath(DashboardPath)
      .setPayload(CreateEvaluationDashboardWidget)
      .addSuccess(EvaluationDashboardWidget)
      .addError(NotFound)
  )
  .annotate(OpenApi.Title, "Evaluation dashboards")
{}
