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
      .annotate(OpenApi.Summary, "Create an evaluation dashboard")
      .annotate(
        OpenApi.Description,
        "Creates a dashboard with its initial widgets, whose results are computed in the background; the evaluations it names must be of its account, else 404."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v5/evaluation-dashboards")
      .setUrlParams(ListEvaluationDashboardsQuery)
      .addSuccess(V5List(EvaluationDashboard))
      .annotate(OpenApi.Summary, "List evaluation dashboards")
      .annotate(
        OpenApi.Description,
        "Lists the dashboards of the caller's accounts (`account_id` narrows to one) with the v5 cursor; `evaluation_id`, `evaluation_group_id`, `tags`, `created_by_ids` and `search` filter, archived ones only with `include_archived=true`."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v5/evaluation-dashboards/:dashboard_id")
      .setPath(DashboardPath)
      .setUrlParams(GetEvaluationDashboardQuery)
      .addSuccess(EvaluationDashboard)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an evaluation dashboard")
      .annotate(
        OpenApi.Description,
        "Answers the dashboard with its widgets and their results; an archived one is a 404 unless `include_archived=true`."
      )
  )
  .add(
    HttpApiEndpoint.patch("update", "/v5/evaluation-dashboards/:dashboard_id")
      .setPath(DashboardPath)
      .setPayload(UpdateEvaluationDashboard)
      .addSuccess(EvaluationDashboard)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update an evaluation dashboard")
      .annotate(
        OpenApi.Description,
        "Changes `name`, `description`, `tags` and/or `widget_order` (each widget id once, else 422); `restore: true` un-archives the dashboard."
      )
  )
  .add(
    HttpApiEndpoint.del("archive", "/v5/evaluation-dashboards/:dashboard_id")
      .setPath(DashboardPath)
      .addSuccess(EvaluationDashboard)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Archive an evaluation dashboard")
      .annotate(OpenApi.Description, "Sets `archived_at` and answers the dashboard (an archived one unchanged).")
  )
  .add(
    HttpApiEndpoint.post("addWidget", "/v5/evaluation-dashboards/:dashboard_id/widgets")
      .setPath(DashboardPath)
      .setPayload(CreateEvaluationDashboardWidget)
      .addSuccess(EvaluationDashboardWidget)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Add a widget to an evaluation dashboard")
      .annotate(
        OpenApi.Description,
        "Appends a widget to the dashboard (404 when archived) and answers it; its result is computed in the background."
      )
  )
  .add(
    HttpApiEndpoint.patch("updateWidget", "/v5/evaluation-dashboards/:dashboard_id/widgets/:widget_id")
      .setPath(WidgetPath)
      .setPayload(UpdateEvaluationDashboardWidget)
      .addSuccess(EvaluationDashboardWidgetWithResult)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a dashboard widget")
      .annotate(
        OpenApi.Description,
        "Changes the widget's `title`, `config` and/or `query` and answers it with its result, `pending` again for a new computation."
      )
  )
  .add(
    HttpApiEndpoint.del("removeWidget", "/v5/evaluation-dashboards/:dashboard_id/widgets/:widget_id")
      .setPath(WidgetPath)
      .addSuccess(Schema.Void)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Remove a widget from an evaluation dashboard")
      .annotate(
        OpenApi.Description,
        "Takes the widget off the dashboard (it is not deleted) and answers 204 with no body; 404 for a widget not on the dashboard."
      )
  )
  .annotate(OpenApi.Title, "Evaluation dashboards")
  .annotate(
    OpenApi.Description,
    "Evaluation dashboards (v5): widgets whose results are computed from evaluation items."
  )
{}
