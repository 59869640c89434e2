import {
  cursorOf,
  EvaluationDashboard,
  EvaluationDashboardWidget,
  EvaluationDashboardWidgetWithResult,
  Identity,
  NotFound,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { Lifecycles } from "../engine/Lifecycles.js"
import { type ComputationStart, WidgetComputations } from "./computation.js"
import { accountForWrite, accountsForRead, callerAccounts, createdByIdentity } from "../auth/access.js"
import { freshIdentity, nowIso } from "../platform/Ids.js"
import { DashboardsRepo, StoredDashboard } from "./DashboardsRepo.js"
import { evaluationIdsOf, newWidget } from "./widgets.js"
import type { ImplementGroup } from "../http/groups.js"

/** `order` names exactly the dashboard's widgets, each once. */
const isPermutation = (order: ReadonlyArray<string>, widgetIds: ReadonlyArray<string>) =>
  order.length === widgetIds.length && new Set(order).size === order.length &&
  order.every((id) => widgetIds.includes(id))

const badWidgetOrder = (input: ReadonlyArray<string>) =>
  new ValidationError({
    detail: [
      new ValidationIssue({
        loc: ["body", "widget_order"],
        msg: "widget_order must list each of the dashboard's widget ids exactly once",
        type: "value_error",
        input
      })
    ]
  })

export const EvaluationDashboardsHttp = (group: ImplementGroup) =>
  group("evaluationDashboards", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* DashboardsRepo
    const computations = yield* WidgetComputations
    const lifecycles = yield* Lifecycles
    /** Starts the computations requested (after the request's transaction: they read what it wrote). */
    const compute = (starts: ReadonlyArray<ComputationStart>) =>
      Effect.forEach(starts, (start) => lifecycles.start({ workflow: "WidgetComputation", ...start }), { discard: true })
    /** 404 unless `widgetId` is on the dashboard. */
    const onDashboard = (dashboard: StoredDashboard, widgetId: string) =>
      dashboard.widget_order.includes(widgetId)
        ? Effect.void
        : Effect.fail(new NotFound({ detail: `Evaluation dashboard widget ${widgetId} not found` }))

    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(payload.account_id)
          const initial = payload.widgets ?? []
          yield* repo.ensureEvaluations(
            [...(payload.evaluation_id !== undefined ? [payload.evaluation_id] : []), ...evaluationIdsOf(initial)],
            account_id
          )
          const [id, created_at] = yield* freshIdentity
          const evaluation = {
            account_id,
            evaluation_id: payload.evaluation_id ?? null,
            evaluation_group_id: payload.evaluation_group_id ?? null
          }
          const widgets = yield* Effect.forEach(initial, (body) => newWidget(evaluation, body))
          const dashboard = new StoredDashboard({
            id,
            name: payload.name,
            description: payload.description ?? null,
            ...evaluation,
            error_message: null,
            created_at,
            updated_at: created_at,
            archived_at: null,
            created_by: new Identity(yield* createdByIdentity),
            tags: payload.tags ?? [],
            object: "evaluation_dashboard",
            widget_order: widgets.map(([widget]) => widget.id)
          }, true)
          yield* repo.create(dashboard, widgets)
          yield* compute(widgets.map(([widget]) => ({ id: widget.id, account_id, run: 1 })))
          // answered with its widgets and their results, in `widget_order` (as created)
          return new EvaluationDashboard({
            ...dashboard,
            widgets: widgets.map(([widget]) => widget),
            widget_results: widgets.map(([, result]) => result)
          }, true)
        }))
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          Effect.gen(function*() {
            const page = yield* repo.list({ accountIds, ...cursorOf(urlParams) }, {
              evaluationId: urlParams.evaluation_id,
              evaluationGroupId: urlParams.evaluation_group_id,
              tags: urlParams.tags,
              createdByIds: urlParams.created_by_ids,
              search: urlParams.search,
              includeArchived: urlParams.include_archived
            })
            return { ...page, items: yield* repo.present(page.items) }
          })))
      .handle("get", ({ path, urlParams }) =>
        Effect.gen(function*() {
          // `views` is accepted for the clients that send it: both fields are always present
          const dashboard = yield* repo.get(path.dashboard_id, yield* callerAccounts, urlParams.include_archived === true)
          return yield* repo.presentOne(dashboard)
        }))
      .handle("update", ({ path, payload }) =>
        Effect.gen(function*() {
          // archived dashboards are reachable, so `restore: true` can bring one back
          const saved = yield* repo.modify(path.dashboard_id, yield* callerAccounts, true, (current) =>
            Effect.gen(function*() {
              if (payload.widget_order !== undefined && !isPermutation(payload.widget_order, current.widget_order)) {
                return yield* Effect.fail(badWidgetOrder(payload.widget_order))
              }
              return yield* repo.save(
                new StoredDashboard({
                  ...current,
                  name: payload.name ?? current.name,
                  description: payload.description ?? current.description,
                  tags: payload.tags ?? current.tags,
                  widget_order: payload.widget_order ?? current.widget_order,
                  archived_at: payload.restore === true ? null : current.archived_at,
                  updated_at: yield* nowIso
                }, true)
              )
            }))
          return yield* repo.presentOne(saved)
        }))
      .handle("archive", ({ path }) =>
        Effect.gen(function*() {
          const archived = yield* repo.modify(path.dashboard_id, yield* callerAccounts, true, (current) =>
            Effect.gen(function*() {
              // archiving an archived dashboard answers it unchanged
              if (current.archived_at !== null) return current
              const now = yield* nowIso
              return yield* repo.save(new StoredDashboard({ ...current, archived_at: now, updated_at: now }, true))
            }))
          return yield* repo.presentOne(archived)
        }))
      .handle("addWidget", ({ path, payload }) =>
        Effect.gen(function*() {
          const widget = yield* repo.modify(path.dashboard_id, yield* callerAccounts, false, (current) =>
            Effect.gen(function*() {
              yield* repo.ensureEvaluations(evaluationIdsOf([payload]), current.account_id)
              const [widget, result] = yield* newWidget(current, payload)
              yield* repo.save(
                new StoredDashboard({
                  ...current,
                  widget_order: [...current.widget_order, widget.id],
                  updated_at: widget.created_at
                }, true)
              )
              yield* repo.insertWidget(current.id, widget, result)
              return widget
            }))
          yield* compute([{ id: widget.id, account_id: widget.account_id, run: 1 }])
          return widget
        }))
      .handle("updateWidget", ({ path, payload }) =>
        Effect.gen(function*() {
          const [widget, start] = yield* repo.modify(path.dashboard_id, yield* callerAccounts, false, (current) =>
            Effect.gen(function*() {
              yield* onDashboard(current, path.widget_id)
              const before = yield* repo.widgetOf(current.id, path.widget_id, [current.account_id])
              if (payload.query !== undefined) yield* repo.ensureEvaluations(payload.query.evaluation_ids, current.account_id)
              const widget = new EvaluationDashboardWidget({
                ...before,
                title: payload.title ?? before.title,
                config: payload.config ?? before.config,
                query: payload.query ?? before.query
              }, true)
              yield* repo.saveWidget(current.id, widget)
              yield* repo.save(new StoredDashboard({ ...current, updated_at: yield* nowIso }, true))
              // computed anew: its query may read other items now
              return [widget, yield* computations.request(widget.id)] as const
            }))
          yield* compute(Option.toArray(start))
          const result = yield* repo.resultOf(widget.id)
          return new EvaluationDashboardWidgetWithResult({ ...widget, result: Option.getOrThrow(result).result }, true)
        }))
      .handle("removeWidget", ({ path }) =>
        Effect.gen(function*() {
          // the widget leaves the dashboard's order (and so its answers); it is not deleted
          yield* repo.modify(path.dashboard_id, yield* callerAccounts, false, (current) =>
            Effect.gen(function*() {
              yield* onDashboard(current, path.widget_id)
              yield* repo.save(
                new StoredDashboard({
                  ...current,
                  widget_order: current.widget_order.filter((id) => id !== path.widget_id),
                  updated_at: yield* nowIso
                }, true)
              )
            }))
        }))
  })
).pipe(Layer.provide([DashboardsRepo.Default, WidgetComputations.Default]))
