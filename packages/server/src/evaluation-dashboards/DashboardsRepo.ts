/**
 * Evaluation dashboards in storage: the dashboard documents with their filter/sort columns, their
 * lowered tags (`evaluation_dashboard_tags`), their widgets and the widgets' results. Writes that
 * touch several tables run in one transaction; read-modify-writes of a dashboard (`modify`) hold
 * the dashboard's row lock, so two concurrent widget appends cannot lose one another.
 */
import { SqlClient, SqlError } from "@effect/sql"
import type { Statement } from "@effect/sql"
import {
  EvaluationDashboard,
  EvaluationDashboardFields,
  EvaluationDashboardWidget,
  EvaluationDashboardWidgetResult,
  Id,
  NotFound
} from "@platform-kit/schema"
import type { CursorRequest } from "../sql/documents.js"
import { ensureReference, makeDocuments } from "../sql/documents.js"
import { Effect, Option, Schema } from "effect"
import { containsPattern, likeEscape } from "../sql/like.js"

/**
 * A dashboard as stored: its own fields; `widgets` and `widget_results` live in their tables and
 * are added on every answer (`present`).
 */
export class StoredDashboard extends Schema.Class<StoredDashboard>("StoredEvaluationDashboard")(
  EvaluationDashboardFields
) {}

/** A widget as stored: with the dashboard it belongs to (not a field of the wire resource). */
const StoredWidget = Schema.Struct({ dashboard_id: Id, widget: EvaluationDashboardWidget })
type StoredWidget = typeof StoredWidget.Type

/**
 * A result as stored: with its dashboard, and the number of the computation it waits for or came
 * from (`run`: each request for a computation takes the next; a computation whose run is no
 * longer the result's writes nothing).
 */
export const StoredResult = Schema.Struct({
  dashboard_id: Id,
  result: EvaluationDashboardWidgetResult,
  run: Schema.optionalWith(Schema.Int, { exact: true, default: () => 0 })
})
export type StoredResult = typeof StoredResult.Type

const decodeResult = Schema.decodeUnknownSync(Schema.parseJson(StoredResult))

/** The filters of the dashboard list (docs/decisions.md "Pagination and lists"). */
export interface DashboardFilters {
  readonly evaluationId?: string | undefined
  readonly evaluationGroupId?: string | undefined
  readonly tags?: ReadonlyArray<string> | undefined
  readonly createdByIds?: ReadonlyArray<string> | undefined
  readonly search?: string | undefined
  readonly includeArchived?: boolean | undefined
}

const lowerTags = (tags: ReadonlyArray<string>) => [...new Set(tags.map((tag) => tag.toLowerCase()))]

/** Widgets (or results) in the dashboard's `widget_order`; any the order does not name go last. */
const inOrder = <A>(order: ReadonlyArray<string>, items: ReadonlyArray<A>, widgetId: (a: A) => string) => {
  const position = new Map(order.map((id, i) => [id, i]))
  const at = (a: A) => position.get(widgetId(a)) ?? order.length
  return [...items].sort((a, b) => at(a) - at(b))
}

export class DashboardsRepo extends Effect.Service<DashboardsRepo>()("@platform-kit/server/EvaluationDashboardsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const dashboards = yield* makeDocuments({
      table: "evaluation_dashboards",
      label: "Evaluation dashboard",
      schema: StoredDashboard,
      columns: (d) => ({
        id: d.id,
        account_id: d.account_id,
        created_at: d.created_at,
        name: d.name,
        name_lower: d.name.toLowerCase(),
        updated_at: d.updated_at,
        archived_at: d.archived_at,
        evaluation_id: d.evaluation_id,
        evaluation_group_id: d.evaluation_group_id,
        created_by_id: d.created_by.id
      })
    })
    const widgets = yield* makeDocuments({
      table: "evaluation_dashboard_widgets",
      label: "Evaluation dashboard widget",
      schema: StoredWidget,
      columns: ({ dashboard_id, widget }) => ({
        id: widget.id,
        account_id: widget.account_id,
        created_at: widget.created_at,
        dashboard_id
      })
    })
    const results = yield* makeDocuments({
      table: "evaluation_dashboard_widget_results",
      label: "Evaluation dashboard widget result",
      schema: StoredResult,
      columns: ({ dashboard_id, result }) => ({
        id: result.id,
        account_id: result.account_id,
        created_at: result.created_at,
        dashboard_id,
        widget_id: result.widget_id,
        computation_status: result.computation_status
      })
    })

    const writeTags = (dashboard: StoredDashboard) =>
      Effect.gen(function*() {
        yield* sql`DELETE FROM evaluation_dashboard_tags WHERE dashboard_id = ${dashboard.id}`
        const tags = lowerTags(dashboard.tags)
        if (tags.length > 0) {
          yield* sql`INSERT INTO evaluation_dashboard_tags ${
            sql.insert(tags.map((tag_lower) => ({ dashboard_id: dashboard.id, tag_lower })))
          }`
        }
      }).pipe(Effect.orDie)

    /** `effect` in one transaction (rolled back when it fails); SQL errors are defects. */
    const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      sql.withTransaction(effect).pipe(
        Effect.catchAll((e) => e instanceof SqlError.SqlError ? Effect.die(e) : Effect.fail(e as E))
      )

    /**
     * Adds a widget and its result to `dashboard` (whose `widget_order` already names it); the
     * result waits for the widget's first computation (run 1).
     */
    const insertWidget = (dashboardId: string, widget: EvaluationDashboardWidget, result: EvaluationDashboardWidgetResult) =>
      Effect.zipRight(
        widgets.insert({ dashboard_id: dashboardId, widget }),
        results.insert({ dashboard_id: dashboardId, result, run: 1 })
      )

    /** A new dashboard with its tags, widgets and their results, in one transaction. */
    const create = (
      dashboard: StoredDashboard,
      initial: ReadonlyArray<readonly [EvaluationDashboardWidget, EvaluationDashboardWidgetResult]>
    ) =>
      transaction(Effect.gen(function*() {
        yield* dashboards.insert(dashboard)
        yield* writeTags(dashboard)
        for (const [widget, result] of initial) yield* insertWidget(dashboard.id, widget, result)
        return dashboard
      }))

    /** The dashboard in `accountIds`, archived ones only when `includeArchived`; else 404. */
    const get = (id: string, accountIds: ReadonlyArray<string>, includeArchived: boolean) =>
      Effect.flatMap(dashboards.findById(id, accountIds), (found) =>
        Option.isSome(found) && (includeArchived || found.value.archived_at === null)
          ? Effect.succeed(found.value)
          : Effect.fail(new NotFound({ detail: `Evaluation dashboard ${id} not found` })))

    /**
     * Runs `change` on the current dashboard inside a transaction that first takes the dashboard's
     * row lock (a no-op UPDATE: portable between SQLite and PostgreSQL), so concurrent changes of
     * one dashboard apply one after the other. A failure of `change` writes nothing.
     */
    const modify = <A, E, R>(
      id: string,
      accountIds: ReadonlyArray<string>,
      includeArchived: boolean,
      change: (current: StoredDashboard) => Effect.Effect<A, E, R>
    ) =>
      transaction(Effect.gen(function*() {
        if (accountIds.length > 0) {
          yield* Effect.orDie(
            sql`UPDATE evaluation_dashboards SET updated_at = updated_at WHERE id = ${id} AND ${
              sql.in("account_id", accountIds)
            }`
          )
        }
        const current = yield* get(id, accountIds, includeArchived)
        return yield* change(current)
      }))

    /** Writes a changed dashboard and its tags (call inside `modify`). */
    const save = (dashboard: StoredDashboard) =>
      Effect.zipRight(dashboards.update(dashboard), writeTags(dashboard)).pipe(Effect.as(dashboard))

    /**
     * The dashboards as answered: each with its widgets and widget results, in `widget_order`
     * (two queries for the whole batch, whatever its size).
     */
    const present = (batch: ReadonlyArray<StoredDashboard>): Effect.Effect<ReadonlyArray<EvaluationDashboard>> =>
      Effect.gen(function*() {
        if (batch.length === 0) return []
        const accountIds = [...new Set(batch.map((d) => d.account_id))]
        const owned = [sql.in("dashboard_id", batch.map((d) => d.id))]
        // by the (dashboard_id, account_id) index, ordered in memory (sql/documents.ts `findNarrowed`)
        const storedWidgets = yield* widgets.findNarrowed(accountIds, owned)
        const storedResults = yield* results.findNarrowed(accountIds, owned)
        // a widget removed from the dashboard (`removeWidget`) stays stored, and is no longer shown
        const shown = (dashboard: StoredDashboard, widgetId: string) =>
          dashboard.widget_order.includes(widgetId)
        return batch.map((dashboard) =>
          new EvaluationDashboard({
            ...dashboard,
            widgets: inOrder(
              dashboard.widget_order,
              storedWidgets.filter((s) => s.dashboard_id === dashboard.id && shown(dashboard, s.widget.id)).map((s) => s.widget),
              (w) => w.id
            ),
            widget_results: inOrder(
              dashboard.widget_order,
              storedResults.filter((s) => s.dashboard_id === dashboard.id && shown(dashboard, s.result.widget_id)).map((s) => s.result),
              (r) => r.widget_id
            )
          }, true)
        )
      })

    /** One dashboard as answered (`present`). */
    const presentOne = (dashboard: StoredDashboard) => Effect.map(present([dashboard]), (all) => all[0]!)

    const tagged = (condition: Statement.Fragment) =>
      sql`id IN (SELECT dashboard_id FROM evaluation_dashboard_tags WHERE ${condition})`

    const filtersOf = (filters: DashboardFilters): Array<Statement.Fragment> => {
      const where = [...dashboards.unlessArchived(filters.includeArchived)]
      if (filters.evaluationId !== undefined) where.push(sql`evaluation_id = ${filters.evaluationId}`)
      if (filters.evaluationGroupId !== undefined) where.push(sql`evaluation_group_id = ${filters.evaluationGroupId}`)
      if (filters.tags !== undefined && filters.tags.length > 0) {
        where.push(tagged(sql.in("tag_lower", lowerTags(filters.tags))))
      }
      if (filters.createdByIds !== undefined && filters.createdByIds.length > 0) {
        where.push(sql.in("created_by_id", filters.createdByIds))
      }
      if (filters.search !== undefined && filters.search.length > 0) {
        const pattern = containsPattern(filters.search)
        const escape = sql.literal(likeEscape)
        where.push(sql`(name_lower LIKE ${pattern} ${escape} OR ${tagged(sql`tag_lower LIKE ${pattern} ${escape}`)})`)
      }
      return where
    }

    /** One v5 page of the dashboards matching `filters`. */
    const list = (request: Omit<CursorRequest, "where">, filters: DashboardFilters) =>
      dashboards.cursorPage({ ...request, where: filtersOf(filters) })

    /** 404 naming the first of `ids` that is not an evaluation of `accountId`. */
    const ensureEvaluations = (ids: ReadonlyArray<string>, accountId: string) =>
      Effect.forEach(
        [...new Set(ids)],
        (id) => ensureReference({ table: "evaluations", id, accountIds: [accountId], label: "Evaluation" }),
        { discard: true }
      ).pipe(Effect.provideService(SqlClient.SqlClient, sql))

    /** The widget `widgetId` of dashboard `dashboardId` (404 otherwise). */
    const widgetOf = (dashboardId: string, widgetId: string, accountIds: ReadonlyArray<string>) =>
      Effect.flatMap(widgets.findAll(accountIds, [sql`id = ${widgetId}`, sql`dashboard_id = ${dashboardId}`]), (found) =>
        found.length === 0
          ? Effect.fail(new NotFound({ detail: `Evaluation dashboard widget ${widgetId} not found` }))
          : Effect.succeed(found[0]!.widget))

    /**
     * Takes the row lock of widget `widgetId`'s result until the transaction ends (a no-op UPDATE:
     * on PostgreSQL a row lock, on SQLite the write lock taken first): a read-modify-write of the
     * result after it is never interleaved with another.
     */
    const lockResult = (widgetId: string) =>
      Effect.orDie(sql`UPDATE evaluation_dashboard_widget_results SET computation_status = computation_status WHERE widget_id = ${widgetId}`)

    /** The stored result of widget `widgetId`, if any. */
    const resultOf = (widgetId: string) =>
      sql<{ doc: string }>`SELECT doc FROM evaluation_dashboard_widget_results WHERE widget_id = ${widgetId}`.pipe(
        Effect.map((rows) => rows.length === 0 ? Option.none<StoredResult>() : Option.some(decodeResult(rows[0]!.doc))),
        Effect.orDie
      )

    /** Writes a changed widget (of `dashboardId`). */
    const saveWidget = (dashboardId: string, widget: EvaluationDashboardWidget) => widgets.update({ dashboard_id: dashboardId, widget })

    /** Writes a changed result. */
    const saveResult = (stored: StoredResult) => results.update(stored)

    /** Every widget of `accountId` with the dashboard it is on (for the widgets an evaluation's end recomputes). */
    const widgetsOfAccount = (accountId: string) =>
      Effect.gen(function*() {
        const stored = yield* widgets.findAll([accountId])
        const boards = yield* dashboards.findAll([accountId])
        const byId = new Map(boards.map((board) => [board.id, board]))
        return stored.flatMap((s) => {
          const board = byId.get(s.dashboard_id)
          return board === undefined ? [] : [{ widget: s.widget, dashboard: board }]
        })
      })

    /** The results waiting for a computation (what the engine's start computes). */
    const pendingResults = sql<{ doc: string }>`
      SELECT doc FROM evaluation_dashboard_widget_results WHERE computation_status = 'pending'`.pipe(
      Effect.map((rows) => rows.map((row) => decodeResult(row.doc))),
      Effect.orDie
    )

    return {
      create,
      get,
      modify,
      save,
      insertWidget,
      present,
      presentOne,
      list,
      ensureEvaluations,
      transaction,
      widgetOf,
      resultOf,
      lockResult,
      saveWidget,
      saveResult,
      widgetsOfAccount,
      pendingResults
    } as const
  })
}) {}
