/** Evaluation dashboards, their widgets and widget results (v5; docs/evaluation-dashboards.md). */
import { Schema } from "effect"
import {
  DateTimeString,
  Id,
  Identity,
  JsonObject,
  NonEmptyString,
  Nullable,
  Optional,
  QueryArray,
  QueryBoolean,
  V5PageQuery
} from "./common.js"

// ---------------------------------------------------------------------------------------------
// Widget query

/*
 * The members of a widget (column expression, select item, order item, query) are plain structs,
 * not classes, so a caller can send them as plain objects through the typed client.
 */

/** A column a widget query reads: `{column, type: "COLUMN", source}`. */
export const EvaluationDashboardColumnExpression = Schema.Struct({
  column: NonEmptyString,
  type: Schema.Literal("COLUMN"),
  source: Schema.String
}).annotations({ identifier: "EvaluationDashboardColumnExpression" })

/** The aggregates a widget query computes over the items of a group. */
export const EvaluationDashboardAggregateFunction = Schema.Literal("COUNT", "AVG", "SUM", "MIN", "MAX").annotations({
  identifier: "EvaluationDashboardAggregateFunction"
})

/**
 * An aggregate over a group's items (docs/evaluation-dashboards.md "Computing"): `COUNT` counts
 * the items (with a `column`, those where it has a value), the others take a numeric column.
 * `column` is `null` when not given, `source` `data` (the items' data, task results included).
 */
export const EvaluationDashboardAggregateExpression = Schema.Struct({
  type: Schema.Literal("AGGREGATE"),
  function: EvaluationDashboardAggregateFunction,
  column: Schema.optionalWith(Schema.NullOr(NonEmptyString), { exact: true, default: () => null }),
  source: Schema.optionalWith(Schema.String, { exact: true, default: () => "data" })
}).annotations({ identifier: "EvaluationDashboardAggregateExpression" })

/** One selected column or aggregate of a widget query, under its alias. */
export const EvaluationDashboardSelect = Schema.Struct({
  expression: Schema.Union(EvaluationDashboardColumnExpression, EvaluationDashboardAggregateExpression),
  alias: Schema.String
}).annotations({ identifier: "EvaluationDashboardSelect" })

/** `ASC` is the value the spec shows; `DESC` is accepted too. */
export const EvaluationDashboardSortDirection = Schema.Literal("ASC", "DESC").annotations({
  identifier: "EvaluationDashboardSortDirection"
})

export const EvaluationDashboardOrderBy = Schema.Struct({
  column: NonEmptyString,
  source: Schema.String,
  direction: EvaluationDashboardSortDirection
}).annotations({ identifier: "EvaluationDashboardOrderBy" })

/**
 * The query a widget is computed from. In a request only `select` (at least one column) is
 * required: `groupBy`, `orderBy` and `evaluation_ids` default to `[]`, `limit` to `null`
 * (no limit). Responses always carry every member.
 */
export const EvaluationDashboardWidgetQuery = Schema.Struct({
  select: Schema.Array(EvaluationDashboardSelect).pipe(Schema.minItems(1)),
  groupBy: Schema.optionalWith(Schema.Array(NonEmptyString), { exact: true, nullable: true, default: () => [] }),
  orderBy: Schema.optionalWith(Schema.Array(EvaluationDashboardOrderBy), {
    exact: true,
    nullable: true,
    default: () => []
  }),
  limit: Schema.optionalWith(Schema.NullOr(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))), {
    exact: true,
    default: () => null
  }),
  evaluation_ids: Schema.optionalWith(Schema.Array(Id), { exact: true, nullable: true, default: () => [] })
}).annotations({ identifier: "EvaluationDashboardWidgetQuery" })
export type EvaluationDashboardWidgetQuery = typeof EvaluationDashboardWidgetQuery.Type

// ---------------------------------------------------------------------------------------------
// Widget and widget result

/**
 * A widget's type. The spec shows only `bar` and says the full set is not shown, so any non-empty
 * string is accepted and kept as given.
 */
export const EvaluationDashboardWidgetType = NonEmptyString.annotations({
  identifier: "EvaluationDashboardWidgetType",
  examples: ["bar"]
})

export class EvaluationDashboardWidget extends Schema.Class<EvaluationDashboardWidget>("EvaluationDashboardWidget")({
  id: Id,
  title: Schema.String,
  type: EvaluationDashboardWidgetType,
  account_id: Id,
  created_at: DateTimeString,
  archived_at: Nullable(DateTimeString),
  object: Schema.Literal("evaluation_dashboard_widget"),
  config: JsonObject,
  query: EvaluationDashboardWidgetQuery
}) {}

/**
 * Where a widget's computation stands: `pending` until it is computed (and again while it is
 * computed anew), then `completed` or `failed` (the real SDK's docstring names these three).
 */
export const EvaluationDashboardComputationStatus = Schema.Literal("pending", "completed", "failed").annotations({
  identifier: "EvaluationDashboardComputationStatus"
})

export class EvaluationDashboardWidgetResult
  extends Schema.Class<EvaluationDashboardWidgetResult>("EvaluationDashboardWidgetResult")({
    id: Id,
    widget_id: Id,
    computation_status: EvaluationDashboardComputationStatus,
    account_id: Id,
    created_at: DateTimeString,
    object: Schema.Literal("evaluation_dashboard_widget_result"),
    evaluation_id: Nullable(Id),
    evaluation_group_id: Nullable(Id),
    computed_result: Nullable(JsonObject),
    error_message: Nullable(Schema.String),
    computation_job_id: Nullable(Id),
    computed_at: Nullable(DateTimeString)
  })
{}

// ---------------------------------------------------------------------------------------------
// Dashboard

/** A dashboard's own fields (what is stored): every field of the platform's dashboard but `widgets` and `widget_results`. */
export const EvaluationDashboardFields = {
  id: Id,
  name: Schema.String,
  description: Nullable(Schema.String),
  account_id: Id,
  evaluation_id: Nullable(Id),
  evaluation_group_id: Nullable(Id),
  error_message: Nullable(Schema.String),
  created_at: DateTimeString,
  updated_at: DateTimeString,
  archived_at: Nullable(DateTimeString),
  created_by: Identity,
  tags: Schema.Array(Schema.String),
  object: Schema.Literal("evaluation_dashboard"),
  /** The dashboard's widget ids, in display order. */
  widget_order: Schema.Array(Id)
} as const

/**
 * The dashboard as every answer carries it: the platform's dashboard has `widgets` and
 * `widget_results` as plain fields (no "only with view"), so both are always present, in
 * `widget_order`.
 */
export class EvaluationDashboard extends Schema.Class<EvaluationDashboard>("EvaluationDashboard")({
  ...EvaluationDashboardFields,
  /** The widgets, in `widget_order`. */
  widgets: Schema.Array(EvaluationDashboardWidget),
  /** One result per widget, in `widget_order`. */
  widget_results: Schema.Array(EvaluationDashboardWidgetResult)
}) {}

// ---------------------------------------------------------------------------------------------
// Requests

const Tags = Schema.Array(NonEmptyString)

const widgetFields = {
  title: NonEmptyString,
  type: EvaluationDashboardWidgetType,
  /** Defaults to `{}`. */
  config: Optional(JsonObject),
  query: EvaluationDashboardWidgetQuery
} as const

/** A widget as a request gives it (each initial widget of a create). */
export const NewEvaluationDashboardWidget = Schema.Struct(widgetFields).annotations({
  identifier: "NewEvaluationDashboardWidget"
})
export type NewEvaluationDashboardWidget = typeof NewEvaluationDashboardWidget.Type

/** Body of `POST /v5/evaluation-dashboards/:dashboard_id/widgets`. */
export class CreateEvaluationDashboardWidget
  extends Schema.Class<CreateEvaluationDashboardWidget>("CreateEvaluationDashboardWidget")(widgetFields)
{}

/** Body of `PATCH /v5/evaluation-dashboards/:dashboard_id/widgets/:widget_id`: only the fields given change. */
export class UpdateEvaluationDashboardWidget
  extends Schema.Class<UpdateEvaluationDashboardWidget>("UpdateEvaluationDashboardWidget")({
    title: Optional(NonEmptyString),
    config: Optional(JsonObject),
    query: Optional(EvaluationDashboardWidgetQuery)
  })
{}

/** A widget with its result, as a widget's update answers it (the real SDK's `EvaluationDashboardWidgetWithResult`). */
export class EvaluationDashboardWidgetWithResult
  extends Schema.Class<EvaluationDashboardWidgetWithResult>("EvaluationDashboardWidgetWithResult")({
    ...EvaluationDashboardWidget.fields,
    result: EvaluationDashboardWidgetResult
  })
{}

/** Body of `POST /v5/evaluation-dashboards`. */
export class CreateEvaluationDashboard extends Schema.Class<CreateEvaluationDashboard>("CreateEvaluationDashboard")({
  name: NonEmptyString,
  description: Optional(Schema.String),
  /** An evaluation of the same account (404 otherwise). */
  evaluation_id: Optional(Id),
  /** Kept as given. */
  evaluation_group_id: Optional(Id),
  tags: Optional(Tags),
  /** Initial widgets, in display order. */
  widgets: Optional(Schema.Array(NewEvaluationDashboardWidget)),
  account_id: Optional(Id)
}) {}

/** Body of `PATCH /v5/evaluation-dashboards/:dashboard_id`: only the fields given change. */
export class UpdateEvaluationDashboard extends Schema.Class<UpdateEvaluationDashboard>("UpdateEvaluationDashboard")({
  name: Optional(NonEmptyString),
  description: Optional(Schema.String),
  tags: Optional(Tags),
  /** A permutation of the dashboard's widget ids (422 otherwise). */
  widget_order: Optional(Schema.Array(Id)),
  /** `true` un-archives the dashboard; `false` changes nothing. */
  restore: Optional(Schema.Boolean)
}) {}

export const EvaluationDashboardView = Schema.Literal("widgets", "widget_results").annotations({
  identifier: "EvaluationDashboardView"
})
export type EvaluationDashboardView = typeof EvaluationDashboardView.Type

/**
 * Query of `GET /v5/evaluation-dashboards/:dashboard_id`. `views` is still accepted (and checked:
 * `widgets`, `widget_results`) for clients that send it, but changes nothing: both fields are
 * always present.
 */
export const GetEvaluationDashboardQuery = Schema.Struct({
  include_archived: Schema.optionalWith(QueryBoolean, { exact: true }),
  views: Schema.optionalWith(QueryArray(Schema.compose(Schema.String, EvaluationDashboardView, { strict: false })), {
    exact: true
  })
})

/** The fields a dashboard list can be sorted by. */
export const EvaluationDashboardSortFields = ["created_at", "updated_at", "name"] as const

/** Query of `GET /v5/evaluation-dashboards` (docs/decisions.md "Pagination and lists"). */
export const ListEvaluationDashboardsQuery = Schema.Struct({
    ...V5PageQuery(EvaluationDashboardSortFields),
    account_id: Schema.optionalWith(Id, { exact: true }),
    evaluation_id: Schema.optionalWith(Id, { exact: true }),
    evaluation_group_id: Schema.optionalWith(Id, { exact: true }),
    /** Dashboards having any of these tags, case-insensitively. */
    tags: Schema.optionalWith(QueryArray(Schema.String), { exact: true }),
    /** Dashboards created by any of these identities. */
    created_by_ids: Schema.optionalWith(QueryArray(Id), { exact: true }),
    /** Case-insensitive substring of the name or of a tag. */
    search: Schema.optionalWith(Schema.String, { exact: true }),
    include_archived: Schema.optionalWith(QueryBoolean, { exact: true })
  })
