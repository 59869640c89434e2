/**
 * Application dashboards and metric timeseries (docs/applications.md "Metrics", "Dashboards"): the
 * fixed layouts of an application's dashboards, and a metric of the spec's interactions binned over a
 * window.
 */
import { Schema } from "effect"
import { DateTimeString, Nullable } from "./common.js"
import { MetricId } from "./applications.js"

export const ApplicationDashboardId = Schema.Literal(
  "top_level_dashboard",
  "engagements_dashboard",
  "executions_dashboard",
  "guardrails_dashboard",
  "variant_overview_dashboard"
).annotations({ identifier: "ApplicationDashboardId" })
export type ApplicationDashboardId = typeof ApplicationDashboardId.Type

export const VisualizationType = Schema.Literal("scalar", "bar", "stacked_bar", "line").annotations({
  identifier: "VisualizationType"
})
export type VisualizationType = typeof VisualizationType.Type

export class VisualizationMetadata extends Schema.Class<VisualizationMetadata>("VisualizationMetadata")({
  /** The series are one per variant, or the client narrows the metric to one variant (`variants`). */
  is_variant_specific_metric: Nullable(Schema.Boolean),
  /** A colour per series `label`. */
  label_color_map: Nullable(Schema.Record({ key: Schema.String, value: Schema.String })),
  /** A display title per series `label`. */
  label_title_map: Nullable(Schema.Record({ key: Schema.String, value: Schema.String }))
}) {}

export class Visualization extends Schema.Class<Visualization>("Visualization")({
  id: Schema.String,
  /** A metric the scalar and timeseries endpoints answer. */
  metric_id: MetricId,
  title: Schema.String,
  type: VisualizationType,
  metadata: Nullable(VisualizationMetadata)
}) {}

export class Dashboard extends Schema.Class<Dashboard>("Dashboard")({
  id: Schema.String,
  title: Schema.String,
  visualizations: Schema.Array(Visualization)
}) {}

/** One series of a timeseries: a value per bin, in the order of `bins`. */
export class TimeseriesSeries extends Schema.Class<TimeseriesSeries>("TimeseriesSeries")({
  label: Schema.String,
  value: Schema.Array(Schema.Number)
}) {}

export class TimeseriesData extends Schema.Class<TimeseriesData>("TimeseriesData")({
  /** The start of each bin, oldest first. */
  bins: Schema.Array(DateTimeString),
  values: Schema.Array(TimeseriesSeries),
  unit: Nullable(Schema.String)
}) {}
