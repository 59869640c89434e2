/** A new widget of a dashboard, and the `pending` result that goes with it (waiting for its first computation). */
import {
  type NewEvaluationDashboardWidget,
  type EvaluationDashboard,
  EvaluationDashboardWidget,
  EvaluationDashboardWidgetResult
} from "@platform-kit/schema"
import { Effect } from "effect"
import { freshIdentity } from "../platform/Ids.js"

export const newWidget = (
  dashboard: Pick<EvaluationDashboard, "account_id" | "evaluation_id" | "evaluation_group_id">,
  body: NewEvaluationDashboardWidget
) =>
  Effect.gen(function*() {
    const [id, created_at] = yield* freshIdentity
    const [resultId] = yield* freshIdentity
    // its first computation (run 1) is requested with it
    const [jobId] = yield* freshIdentity
    const widget = new EvaluationDashboardWidget({
      id,
      title: body.title,
      type: body.type,
      account_id: dashboard.account_id,
      created_at,
      archived_at: null,
      object: "evaluation_dashboard_widget",
      config: body.config ?? {},
      query: body.query
    }, true)
    const result = new EvaluationDashboardWidgetResult({
      id: resultId,
      widget_id: id,
      computation_status: "pending",
      account_id: dashboard.account_id,
      created_at,
      object: "evaluation_dashboard_widget_result",
      evaluation_id: dashboard.evaluation_id,
      evaluation_group_id: dashboard.evaluation_group_id,
      computed_result: null,
      error_message: null,
      computation_job_id: jobId,
      computed_at: null
    })
    return [widget, result] as const
  })

/** The evaluations a widget's query names (each must be an evaluation of the dashboard's account). */
export const evaluationIdsOf = (widgets: ReadonlyArray<NewEvaluationDashboardWidget>) =>
  widgets.flatMap((widget) => widget.query.evaluation_ids)
