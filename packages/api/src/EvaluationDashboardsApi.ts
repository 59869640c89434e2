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
  UpdateEvaluationDashboardWidget,
  EvaluationDashboardWidgetWithResult,
  V5List
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const DashboardPath = Schema.Struct({ dashboard_id: Id })
const WidgetPath = Schema.Struct({ dashboard_id: Id, widget_id: Id })

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
  .add(
    HttpApiEndpoint.patch("updateWidget", "/v5/evaluation-dashboards/:dashboard_id/widgets/:widget_id")
      .setPath(WidgetPath)
      .setPayload(UpdateEvaluationDashboardWidget)
      .addSuccess(EvaluationDashboardWidgetWithResult)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("removeWidget", "/v5/evaluation-dashboards/:dashboard_id/widgets/:widget_id")
      .setPath(WidgetPath)
      .addSuccess(Schema.Void)
      .addError(NotFound)
  )
  .annotate(OpenApi.Title, "Evaluation dashboards")
{}
