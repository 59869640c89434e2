/**
 * Evaluation dashboards (docs/evaluation-dashboards.md): the account's dashboards a page at a time
 * with the v5 cursor (`GET /v5/evaluation-dashboards`), and a dashboard's widgets drawn from their
 * results: a `metric` as its figure, a `table` as a table, the series types (`bar`, `histogram`,
 * …) as bars, `markdown` and `heading` as their text. **Recompute** asks for a widget's
 * computation again (`PATCH …/widgets/{id}`: its result goes `pending`, then lands); the
 * dashboard is read again while a result is `pending`, never while the tab is hidden.
 */
import type { EvaluationDashboard, EvaluationDashboardWidget, EvaluationDashboardWidgetResult } from "@platform-kit/schema"
import { useState } from "preact/hooks"
import { BarChart } from "../charts.js"
import { Link } from "../router.js"
import { inAccount, type Session } from "../session.js"
import { Empty, ErrorBox, Show, useLoad, usePolled, when } from "../ui.js"
import { CursorPager, StatusBadge, useCursor } from "./evaluations.js"

const pageSize = 20

export const DashboardsPage = ({ session }: { readonly session: Session }) => {
  const cursor = useCursor()
  const dashboards = useLoad(
    () =>
      session.client.evaluationDashboards.list({
        urlParams: { limit: pageSize, ...(cursor.startingAfter === undefined ? {} : { starting_after: cursor.startingAfter }), ...inAccount(session) }
      }),
    [cursor.startingAfter]
  )
  return (
    <section aria-labelledby="dashboards-title">
      <h1 id="dashboards-title">Dashboards</h1>
      <p class="muted">Widgets computed over evaluations' items (docs/evaluation-dashboards.md; made through the API).</p>
      <Show loaded={dashboards} what="dashboards">
        {(list) =>
          list.items.length === 0
            ? <Empty>No dashboards in this account yet: the recipe of docs/evaluation-dashboards.md makes one.</Empty>
            : (
              <>
                <table>
                  <caption class="sr-only">Evaluation dashboards of the account</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Widgets</th>
                      <th scope="col">Evaluation</th>
                      <th scope="col">Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.items.map((dashboard) => (
                      <tr key={dashboard.id}>
                        <td><Link to={`/dashboards/${encodeURIComponent(dashboard.id)}`}>{dashboard.name}</Link></td>
                        <td>{dashboard.widgets.length}</td>
                        <td>
                          {dashboard.evaluation_id === null
                            ? "—"
                            : <Link to={`/evaluations/${encodeURIComponent(dashboard.evaluation_id)}`}>the evaluation</Link>}
                        </td>
                        <td>{when(dashboard.updated_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <CursorPager
                  cursor={cursor}
                  hasMore={list.has_more}
                  lastId={list.items[list.items.length - 1]?.id}
                  total={list.total}
                  label="Pages of the dashboards"
                />
              </>
            )}
      </Show>
    </section>
  )
}

export const DashboardPage = ({ session, dashboardId }: { readonly session: Session; readonly dashboardId: string }) => {
  // a recompute asked for loads the dashboard again (and watches its results while pending)
  const [asked, setAsked] = useState(0)
  const [failure, setFailure] = useState<unknown>(undefined)
  const path = { dashboard_id: dashboardId }
  const dashboard = usePolled(
    () => session.client.evaluationDashboards.get({ path, urlParams: {} }),
    [dashboardId, asked],
    (dashboard) => dashboard.widget_results.some((result) => result.computation_status === "pending"),
    300
  )
  const recompute = (widgets: ReadonlyArray<EvaluationDashboardWidget>) => {
    setFailure(undefined)
    Promise.all(
      widgets.map((widget) =>
        session.client.evaluationDashboards.updateWidget({ path: { dashboard_id: dashboardId, widget_id: widget.id }, payload: { title: widget.title } })
      )
    ).then(() => setAsked((n) => n + 1), setFailure)
  }
  return (
    <section aria-labelledby="dashboard-title">
      <p><Link to="/dashboards">← Dashboards</Link></p>
      <Show loaded={dashboard} what="the dashboard">
        {(dashboard) => (
          <>
            <h1 id="dashboard-title">{dashboard.name}</h1>
            {dashboard.description !== null && <p>{dashboard.description}</p>}
            <div class="row">
              <button type="button" disabled={dashboard.widgets.length === 0} onClick={() => recompute(dashboard.widgets)}>Recompute all</button>
              {dashboard.evaluation_id !== null && (
                <Link to={`/evaluations/${encodeURIComponent(dashboard.evaluation_id)}`}>Open its evaluation</Link>
              )}
            </div>
            {failure !== undefined && <ErrorBox error={failure} />}
            {dashboard.widgets.length === 0
              ? <Empty>This dashboard has no widgets: add them with <code>POST …/widgets</code>.</Empty>
              : (
                <ul class="widgets">
                  {dashboard.widgets.map((widget) => (
                    <Widget key={widget.id} widget={widget} result={resultOf(dashboard, widget)} onRecompute={() => recompute([widget])} />
                  ))}
                </ul>
              )}
          </>
        )}
      </Show>
    </section>
  )
}

const resultOf = (dashboard: EvaluationDashboard, widget: EvaluationDashboardWidget) =>
  dashboard.widget_results.find((result) => result.widget_id === widget.id)

const Widget = (
  { widget, result, onRecompute }: {
    readonly widget: EvaluationDashboardWidget
    readonly result: EvaluationDashboardWidgetResult | undefined
    readonly onRecompute: () => void
  }
) => (
  <li class="card widget" aria-label={`Widget ${widget.title}`} data-computation={result?.computation_job_id ?? undefined}>
    <div class="row">
      <h2>{widget.title}</h2>
      <span class="muted">{widget.type}</span>
      {result !== undefined && <StatusBadge status={result.computation_status} />}
      <button type="button" onClick={onRecompute} aria-label={`Recompute ${widget.title}`}>Recompute</button>
    </div>
    {result?.error_message != null && <p class="error">{result.error_message}</p>}
    <WidgetBody widget={widget} computed={result?.computed_result ?? null} />
    {result?.computed_at != null && <p class="muted">Computed {when(result.computed_at)}</p>}
  </li>
)

const cell = (value: unknown) =>
  value === null || value === undefined ? "—" : typeof value === "number" ? (Number.isInteger(value) ? String(value) : value.toFixed(3)) : typeof value === "string" ? value : JSON.stringify(value)

/** A widget's result as its type shows it (docs/evaluation-dashboards.md "Computing"). */
const WidgetBody = ({ widget, computed }: { readonly widget: EvaluationDashboardWidget; readonly computed: Record<string, unknown> | null }) => {
  if (widget.type === "markdown" || widget.type === "heading") {
    const text = widget.config["text"] ?? widget.config["content"]
    return typeof text === "string" ? <p class="widget-text">{text}</p> : null
  }
  if (computed === null) return <p class="state">Not computed yet.</p>
  const data = computed["data"]
  if (computed["type"] === "metric") return <p class="metric" data-testid="metric">{cell(data)}</p>
  if (computed["type"] === "table" && Array.isArray(data)) {
    const records = data as ReadonlyArray<Record<string, unknown>>
    const columns = [...new Set(records.flatMap((record) => Object.keys(record)))]
    return records.length === 0
      ? <Empty>No rows.</Empty>
      : (
        <table>
          <caption class="sr-only">{widget.title}</caption>
          <thead>
            <tr>{columns.map((column) => <th key={column} scope="col">{column}</th>)}</tr>
          </thead>
          <tbody>
            {records.map((record, i) => <tr key={i}>{columns.map((column) => <td key={column}>{cell(record[column])}</td>)}</tr>)}
          </tbody>
        </table>
      )
  }
  if (computed["type"] === "series" && Array.isArray(data)) {
    const points = (data as ReadonlyArray<{ readonly x: unknown; readonly y: unknown }>)
      .map((point) => ({ label: cell(point.x), value: typeof point.y === "number" ? point.y : 0 }))
    return points.length === 0 ? <Empty>No points.</Empty> : <BarChart title={widget.title} bars={points} format={cell} />
  }
  return <pre class="json">{JSON.stringify(computed, null, 2)}</pre>
}
