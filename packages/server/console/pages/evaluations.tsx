/**
 * Evaluations (v5, docs/evaluations.md): the account's evaluations a page at a time with the v5
 * cursor (`GET /v5/evaluations`, `starting_after`), a form running a small one (items given as
 * JSON, a metric task: nothing to set up), and an evaluation's page: its status and progress read
 * again while it is `running` (never while the tab is hidden), a chart per task of its scores, and
 * its items with their results a page at a time (`GET /v5/evaluation-items`), filtered by their
 * state. The v4 evaluations are in evaluations-v4.tsx.
 */
import type { Evaluation, EvaluationItem, MetricType } from "@platform-kit/schema"
import { useState } from "preact/hooks"
import { Histogram } from "../charts.js"
import { Link, navigate } from "../router.js"
import { inAccount, type Session } from "../session.js"
import { Empty, ErrorBox, Show, useLoad, usePolled, when } from "../ui.js"

const pageSize = 20
/** Most items a chart reads (one request): a chart of a larger evaluation says it shows the first ones. */
const chartItems = 1000

/**
 * Where a v5 list page starts: the cursors of the pages before it (`starting_after` = the last id
 * of the page before), so that Previous goes back without a count.
 */
export const useCursor = () => {
  const [cursors, setCursors] = useState<ReadonlyArray<string>>([])
  return {
    startingAfter: cursors[cursors.length - 1],
    page: cursors.length + 1,
    next: (lastId: string) => setCursors([...cursors, lastId]),
    previous: () => setCursors(cursors.slice(0, -1)),
    reset: () => setCursors([])
  }
}

/** Previous and next of a v5 list (the cursor knows no page count: `total` is the count of the whole list). */
export const CursorPager = (
  { cursor, hasMore, lastId, total, label }: {
    readonly cursor: ReturnType<typeof useCursor>
    readonly hasMore: boolean
    readonly lastId: string | undefined
    readonly total: number
    readonly label: string
  }
) =>
  cursor.page === 1 && !hasMore
    ? <p class="muted">{total} in all</p>
    : (
      <nav class="row" aria-label={label}>
        <button type="button" disabled={cursor.page === 1} onClick={cursor.previous}>Previous</button>
        <span>Page {cursor.page} ({total} in all)</span>
        <button type="button" disabled={!hasMore || lastId === undefined} onClick={() => lastId !== undefined && cursor.next(lastId)}>
          Next
        </button>
      </nav>
    )

export const StatusBadge = ({ status }: { readonly status: string }) => (
  <span class={`badge status-${status.toLowerCase()}`}>{status}</span>
)

/** The evaluation's items done (successful or failed) of all, as a bar and in words. */
const ItemsProgress = ({ evaluation }: { readonly evaluation: Evaluation }) => {
  const items = evaluation.progress.items
  return (
    <div class="stack">
      <progress max={Math.max(items.total, 1)} value={items.total === 0 ? 1 : items.successful + items.failed} aria-label="Items run">
        {items.successful + items.failed} of {items.total}
      </progress>
      <p class="muted">
        {items.successful} successful, {items.failed} failed, {items.pending} pending (of {items.total} items)
      </p>
    </div>
  )
}

export const EvaluationsPage = ({ session }: { readonly session: Session }) => {
  const cursor = useCursor()
  const evaluations = usePolled(
    () =>
      session.client.evaluations.list({
        urlParams: { limit: pageSize, ...(cursor.startingAfter === undefined ? {} : { starting_after: cursor.startingAfter }), ...inAccount(session) }
      }),
    [cursor.startingAfter],
    (list) => list.items.some((evaluation) => evaluation.status === "running")
  )
  return (
    <section aria-labelledby="evaluations-title">
      <h1 id="evaluations-title">Evaluations</h1>
      <p>
        The v5 evaluations: items scored by tasks. The v4 evaluations (test case results, judged and annotated by people) are under{" "}
        <Link to="/evaluations-v4">v4 evaluations</Link>.
      </p>
      <CreateForm session={session} />
      <h2>Evaluations of the account</h2>
      <Show loaded={evaluations} what="evaluations">
        {(list) =>
          list.items.length === 0
            ? <Empty>No evaluations in this account yet: run one with the form above.</Empty>
            : (
              <>
                <table>
                  <caption class="sr-only">Evaluations of the account</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Status</th>
                      <th scope="col">Items</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.items.map((evaluation) => (
                      <tr key={evaluation.id}>
                        <td><Link to={`/evaluations/${encodeURIComponent(evaluation.id)}`}>{evaluation.name}</Link></td>
                        <td><StatusBadge status={evaluation.status} /></td>
                        <td>
                          {evaluation.progress.items.successful + evaluation.progress.items.failed} of {evaluation.progress.items.total}
                        </td>
                        <td>{when(evaluation.created_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <CursorPager
                  cursor={cursor}
                  hasMore={list.has_more}
                  lastId={list.items[list.items.length - 1]?.id}
                  total={list.total}
                  label="Pages of the evaluations"
                />
              </>
            )}
      </Show>
    </section>
  )
}

const metricTypes: ReadonlyArray<MetricType> = ["f1", "bleu", "meteor", "rouge1", "rouge2", "rougeL", "cosine_similarity"]
/** The form's example: one item a line. */
const exampleItems = `[\n${
  [{ answer: "Paris", expected: "Paris" }, { answer: "Milan", expected: "Rome" }, { answer: "the city of Lyon", expected: "Lyon" }]
    .map((item) => `  ${JSON.stringify(item)}`).join(",\n")
}\n]`

/**
 * A small evaluation: items as a JSON array of objects, a metric task scoring one field of each
 * against another (item locators), optionally after the built-in model answered a field (a
 * `chat_completion` task, alias `reply`). Opened once made.
 */
const CreateForm = ({ session }: { readonly session: Session }) => {
  const [name, setName] = useState("")
  const [items, setItems] = useState(exampleItems)
  const [metric, setMetric] = useState<MetricType>("f1")
  const [candidate, setCandidate] = useState("item.answer")
  const [reference, setReference] = useState("item.expected")
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<unknown>(undefined)
  return (
    <form
      class="card stack"
      onSubmit={(event) => {
        event.preventDefault()
        let data: Array<Record<string, unknown>>
        try {
          const parsed: unknown = JSON.parse(items)
          if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === "object" && item !== null && !Array.isArray(item))) {
            throw new Error("Items: a JSON array of objects, one an item")
          }
          data = parsed as Array<Record<string, unknown>>
        } catch (error) {
          setFailure(error instanceof SyntaxError ? new Error(`Items are not JSON: ${error.message}`) : error)
          return
        }
        setBusy(true)
        setFailure(undefined)
        session.client.evaluations.create({
          urlParams: {},
          payload: {
            name: name.trim(),
            data,
            tasks: [{ task_type: "metric", alias: metric, configuration: { type: metric, candidate, reference } }],
            ...inAccount(session)
          }
        }).then(
          (evaluation) => navigate(`/evaluations/${encodeURIComponent(evaluation.id)}`),
          (error: unknown) => {
            setFailure(error)
            setBusy(false)
          }
        )
      }}
    >
      <h2>Run an evaluation</h2>
      <div class="row">
        <label for="evaluation-name">Name</label>
        <input id="evaluation-name" value={name} required onInput={(event) => setName(event.currentTarget.value)} />
        <label for="evaluation-metric">Metric</label>
        <select id="evaluation-metric" value={metric} onChange={(event) => setMetric(event.currentTarget.value as MetricType)}>
          {metricTypes.map((type) => <option key={type} value={type}>{type}</option>)}
        </select>
      </div>
      <div class="row">
        <label for="evaluation-candidate">Candidate</label>
        <input id="evaluation-candidate" value={candidate} required onInput={(event) => setCandidate(event.currentTarget.value)} />
        <label for="evaluation-reference">Reference</label>
        <input id="evaluation-reference" value={reference} required onInput={(event) => setReference(event.currentTarget.value)} />
      </div>
      <label for="evaluation-items">Items (a JSON array of objects)</label>
      <textarea id="evaluation-items" rows={5} value={items} onInput={(event) => setItems(event.currentTarget.value)} />
      <div class="row">
        <button type="submit" class="primary" disabled={busy || name.trim() === ""}>{busy ? "Starting…" : "Run"}</button>
        <span class="muted">Scored on this server (docs/evaluations.md "Metrics"): nothing to set up.</span>
      </div>
      {failure !== undefined && <ErrorBox error={failure} />}
    </form>
  )
}

/** The results columns of an evaluation: its tasks' aliases (the real SDK's default when none). */
const resultColumns = (evaluation: Evaluation): ReadonlyArray<string> =>
  (evaluation.tasks ?? []).map((task) =>
    task.alias ?? (task.task_type === "metric" ? String((task.configuration as { type?: unknown }).type) : task.task_type)
  )

type ItemFilter = "all" | "scored" | "failed" | "pending"

export const EvaluationPage = ({ session, evaluationId }: { readonly session: Session; readonly evaluationId: string }) => {
  const evaluation = usePolled(
    () => session.client.evaluations.get({ path: { evaluation_id: evaluationId }, urlParams: { views: ["tasks"] } }),
    [evaluationId],
    (evaluation) => evaluation.status === "running",
    300
  )
  return (
    <section aria-labelledby="evaluation-title">
      <p><Link to="/evaluations">← Evaluations</Link></p>
      <Show loaded={evaluation} what="the evaluation">
        {(evaluation) => (
          <>
            <h1 id="evaluation-title">{evaluation.name}</h1>
            <dl class="facts">
              <dt>Status</dt>
              <dd>
                <span role="status" aria-live="polite">
                  <StatusBadge status={evaluation.status} />
                  {evaluation.status_reason !== null && <> {evaluation.status_reason}</>}
                </span>
              </dd>
              <dt>Id</dt>
              <dd><code>{evaluation.id}</code></dd>
              <dt>Tasks</dt>
              <dd>{(evaluation.tasks ?? []).map((task) => `${task.task_type}${task.alias === null ? "" : ` (${task.alias})`}`).join(", ") || "—"}</dd>
              <dt>Created</dt>
              <dd>{when(evaluation.created_at)}</dd>
            </dl>
            <ItemsProgress evaluation={evaluation} />
            {/* read again when the run ends: the charts and the items then show every result */}
            <Charts key={`charts-${evaluation.status}`} session={session} evaluation={evaluation} />
            <Items key={`items-${evaluation.status}`} session={session} evaluation={evaluation} />
          </>
        )}
      </Show>
    </section>
  )
}

/** A histogram per results column holding numbers (a metric's scores), over the first `chartItems` items. */
const Charts = ({ session, evaluation }: { readonly session: Session; readonly evaluation: Evaluation }) => {
  const items = useLoad(
    () => session.client.evaluations.listItems({ urlParams: { evaluation_id: evaluation.id, sort_order: "asc", limit: chartItems } }),
    [evaluation.id]
  )
  return (
    <div class="stack">
      <h2>Scores</h2>
      <Show loaded={items} what="the scores">
        {(list) => {
          const charts = resultColumns(evaluation).map((column) => ({
            column,
            values: list.items.map((item) => item.data[column]).filter((value): value is number => typeof value === "number")
          })).filter((chart) => chart.values.length > 0)
          return charts.length === 0
            ? <Empty>No scores yet{evaluation.status === "running" ? ": the items are being run" : ""}.</Empty>
            : (
              <>
                <div class="charts">
                  {charts.map((chart) => <Histogram key={chart.column} title={`Scores of ${chart.column}`} values={chart.values} />)}
                </div>
                {list.has_more && <p class="muted">Of the first {chartItems} items of {list.total}.</p>}
              </>
            )
        }}
      </Show>
    </div>
  )
}

/** An item's state: failed (listed in `failed_items`), scored (every results column present) or pending. */
const itemState = (evaluation: Evaluation, failed: ReadonlySet<string>, item: EvaluationItem): Exclude<ItemFilter, "all"> =>
  failed.has(item.id) ? "failed" : resultColumns(evaluation).every((column) => column in item.data) ? "scored" : "pending"

const show = (value: unknown) =>
  value === undefined ? "—" : typeof value === "number" ? (Number.isInteger(value) ? String(value) : value.toFixed(3)) : typeof value === "string" ? value : JSON.stringify(value)

/** The items with their data and results, a page at a time, filtered by state within the page. */
const Items = ({ session, evaluation }: { readonly session: Session; readonly evaluation: Evaluation }) => {
  const cursor = useCursor()
  const [filter, setFilter] = useState<ItemFilter>("all")
  const items = useLoad(
    () =>
      session.client.evaluations.listItems({
        urlParams: {
          evaluation_id: evaluation.id,
          sort_order: "asc",
          limit: pageSize,
          ...(cursor.startingAfter === undefined ? {} : { starting_after: cursor.startingAfter })
        }
      }),
    [evaluation.id, cursor.startingAfter]
  )
  const columns = resultColumns(evaluation)
  const failed = new Set(evaluation.progress.items.failed_items.map((failure) => String(failure["item_id"])))
  const errors = new Map(evaluation.progress.items.failed_items.map((failure) => [String(failure["item_id"]), String(failure["error"] ?? "")]))
  return (
    <div class="stack">
      <h2>Items</h2>
      <div class="row">
        <label for="items-filter">Show</label>
        <select id="items-filter" value={filter} onChange={(event) => setFilter(event.currentTarget.value as ItemFilter)}>
          <option value="all">All items</option>
          <option value="scored">Scored</option>
          <option value="failed">Failed</option>
          <option value="pending">Pending</option>
        </select>
      </div>
      <Show loaded={items} what="the items">
        {(list) => {
          const shown = list.items.filter((item) => filter === "all" || itemState(evaluation, failed, item) === filter)
          const fields = [...new Set(list.items.flatMap((item) => Object.keys(item.data)))].filter((key) => !columns.includes(key))
          return (
            <>
              {shown.length === 0
                ? <Empty>{list.items.length === 0 ? "This evaluation has no items." : "No item of this page is in that state."}</Empty>
                : (
                  <table class="items">
                    <caption class="sr-only">Items of the evaluation with their results</caption>
                    <thead>
                      <tr>
                        <th scope="col">State</th>
                        {fields.map((field) => <th key={field} scope="col">{field}</th>)}
                        {columns.map((column) => <th key={column} scope="col" class="result">{column}</th>)}
                      </tr>
                    </thead>
                    <tbody>
                      {shown.map((item) => {
                        const state = itemState(evaluation, failed, item)
                        return (
                          <tr key={item.id}>
                            <td>
                              <StatusBadge status={state} />
                              {state === "failed" && <div class="muted">{errors.get(item.id)}</div>}
                            </td>
                            {fields.map((field) => <td key={field}>{show(item.data[field])}</td>)}
                            {columns.map((column) => <td key={column} class="result">{show(item.data[column])}</td>)}
                          </tr>
                        )
                      })}
                    </tbody>
                  </table>
                )}
              <CursorPager
                cursor={cursor}
                hasMore={list.has_more}
                lastId={list.items[list.items.length - 1]?.id}
                total={list.total}
                label="Pages of the items"
              />
            </>
          )
        }}
      </Show>
    </div>
  )
}
