/**
 * The five dashboards of an application: fixed layouts (configuration, the same for every spec),
 * each visualization a metric that the scalar and timeseries endpoints answer. docs/applications.md
 * "Dashboards" lists them.
 */
import {
  Dashboard,
  type ApplicationDashboardId,
  type MetricId,
  Visualization,
  VisualizationMetadata,
  type VisualizationType
} from "@platform-kit/schema"

const tokenColors = { input: "#2563eb", response: "#f59e0b" }
const tokenTitles = { input: "Input tokens", response: "Response tokens" }

const visualization = (
  dashboard: string,
  metric_id: MetricId,
  title: string,
  type: VisualizationType,
  options: {
    readonly variantSpecific?: boolean
    readonly colors?: Record<string, string>
    readonly titles?: Record<string, string>
  } = {}
) =>
  new Visualization({
    id: `${dashboard}.${metric_id}.${type}`,
    metric_id,
    title,
    type,
    metadata: new VisualizationMetadata({
      is_variant_specific_metric: options.variantSpecific ?? false,
      label_color_map: options.colors ?? null,
      label_title_map: options.titles ?? null
    })
  }, true)

const overview = "top_level_dashboard"
const engagements = "engagements_dashboard"
const executions = "executions_dashboard"
const guardrails = "guardrails_dashboard"
const variant = "variant_overview_dashboard"

export const dashboards: { readonly [K in ApplicationDashboardId]: Dashboard } = {
  top_level_dashboard: new Dashboard({
    id: overview,
    title: "Overview",
    visualizations: [
      visualization(overview, "total_requests", "Total requests", "scalar"),
      visualization(overview, "total_errors", "Total errors", "scalar"),
      visualization(overview, "total_tokens", "Total tokens", "scalar"),
      visualization(overview, "average_latency", "Average latency", "scalar"),
      visualization(overview, "p95_latency", "P95 latency", "scalar"),
      visualization(overview, "error_rate", "Error rate", "scalar"),
      visualization(overview, "average_faithfulness", "Average faithfulness", "scalar"),
      visualization(overview, "average_relevance", "Average relevance", "scalar"),
      visualization(overview, "total_requests", "Requests", "line"),
      visualization(overview, "average_users", "Average daily users", "line"),
      visualization(overview, "aggregated_tokens", "Daily tokens", "bar"),
      visualization(overview, "feedback", "Positive feedback", "line")
    ]
  }, true),
  engagements_dashboard: new Dashboard({
    id: engagements,
    title: "Engagements",
    visualizations: [
      visualization(engagements, "total_requests", "Engagements", "line"),
      visualization(engagements, "average_users", "Average daily users", "line"),
      visualization(engagements, "feedback", "Positive feedback", "line"),
      visualization(engagements, "engagement_faithfulness", "Faithfulness", "line"),
      visualization(engagements, "engagement_relevance", "Relevance", "line")
    ]
  }, true),
  executions_dashboard: new Dashboard({
    id: executions,
    title: "Executions",
    visualizations: [
      visualization(executions, "execution_input_response_tokens", "Input and response tokens", "stacked_bar", {
        colors: tokenColors,
        titles: tokenTitles
      }),
      visualization(executions, "execution_average_latency_per_variant", "Average latency per variant", "line", {
        variantSpecific: true
      }),
      visualization(executions, "execution_error_rate", "Error rate per variant", "line", { variantSpecific: true }),
      visualization(executions, "execution_latency_percentile", "Latency percentile", "line"),
      visualization(executions, "execution_average_latency_per_node", "Average latency per node", "bar")
    ]
  }, true),
  guardrails_dashboard: new Dashboard({
    id: guardrails,
    title: "Guardrails",
    visualizations: [
      visualization(guardrails, "total_guardrail_triggers", "Guardrail triggers", "scalar"),
      visualization(guardrails, "guardrail_triggers_timeseries", "Guardrail triggers", "stacked_bar"),
      visualization(guardrails, "guardrail_severity_timeseries", "Guardrail severity", "line")
    ]
  }, true),
  variant_overview_dashboard: new Dashboard({
    id: variant,
    title: "Variant overview",
    visualizations: [
      visualization(variant, "total_requests", "Total requests", "scalar", { variantSpecific: true }),
      visualization(variant, "average_latency", "Average latency", "scalar", { variantSpecific: true }),
      visualization(variant, "error_rate", "Error rate", "scalar", { variantSpecific: true }),
      visualization(variant, "total_tokens", "Total tokens", "scalar", { variantSpecific: true }),
      visualization(variant, "total_requests", "Requests", "line", { variantSpecific: true }),
      visualization(variant, "average_latency", "Average latency", "line", { variantSpecific: true }),
      visualization(variant, "execution_input_response_tokens", "Input and response tokens", "stacked_bar", {
        variantSpecific: true,
        colors: tokenColors,
        titles: tokenTitles
      }),
      visualization(variant, "feedback", "Positive feedback", "line", { variantSpecific: true })
    ]
  }, true)
}
