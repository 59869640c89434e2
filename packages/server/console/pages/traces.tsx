/**
 * Traces (docs/spans.md): the span search (`POST /v5/spans/search`: the filters in the body, the
 * keyset cursors `starting_after` / `ending_before` in the query, 25 a page, newest first), and a
 * trace as a waterfall: its spans (`trace_ids: [id]`, oldest first) nested by `parent_id`, each a
 * bar at its offset from the trace's start and as long as its duration; a span selected shows its
 * facts, `input`, `output` and `metadata`. The kit's own work makes traces (docs/spans.md "The kit's
 * own traces"): a chat completion or an application run is one.
 */
import type { Span, SpanStatus } from "@platform-kit/schema"
import { useState } from "preact/hooks"
import { Link } from "../router.js"
import type { Session } from "../session.js"
import { Empty, Show, useLoad, when } from "../ui.js"

const pageSize = 25
/** The spans of one trace read at most (a trace of more says so). */
const traceLimit = 1000

/** A timestamp in microseconds since the epoch: the kit answers spans' times to the microsecond. */
const micros = (timestamp: string) => {
  const fraction = /\.(\d+)/.exec(timestamp)?.[1] ?? ""
  return Date.parse(timestamp) * 1000 + Number(fraction.padEnd(6, "0").slice(3, 6))
}

/** A duration in µs as a person reads it. */
const duration = (us: number) =>
  us < 1_000 ? `${us} µs` : us < 10_000 ? `${(us / 1000).toFixed(2)} ms` : us < 10_000_000 ? `${Math.round(us / 1000)} ms` : `${(us / 1e6).toFixed(1)} s`

const spanDuration = (span: Span) =>
  span.end_timestamp === null ? "running" : duration(micros(span.end_timestamp) - micros(span.start_timestamp))

const StatusBadge = ({ status }: { readonly status: SpanStatus | null }) =>
  status === null ? <span class="muted">—</span> : <span class={`badge status-${status.toLowerCase()}`}>{status}</span>

interface Filters {
  readonly name: string
  readonly status: "" | SpanStatus
  readonly text: string
  readonly rootsOnly: boolean
}

/** Where the page is in the list: the first page, or after / before a span id. */
type Cursor = { readonly starting_after?: string; readonly ending_before?: string }

export const TracesPage = ({ session }: { readonly session: Session }) => {
  const [draft, setDraft] = useState<Filters>({ name: "", status: "", text: "", rootsOnly: true })
  const [filters, setFilters] = useState<Filters>(draft)
  const [cursor, setCursor] = useState<Cursor>({})
  const spans = useLoad(
    () =>
      session.client.spans.search({
        urlParams: { limit: pageSize, ...cursor },
        payload: {
          ...(filters.name.trim() === "" ? {} : { names: [filters.name.trim()] }),
          ...(filters.status === "" ? {} : { statuses: [filters.status] }),
          ...(filters.text.trim() === "" ? {} : { search_texts: [filters.text.trim()] }),
          ...(filters.rootsOnly ? { parents_only: true } : {})
        }
      }),
    [filters, cursor]
  )
  return (
    <section aria-labelledby="traces-title">
      <h1 id="traces-title">Traces</h1>
      <form
        class="row"
        aria-label="Search spans"
        onSubmit={(event) => {
          event.preventDefault()
          setCursor({})
          setFilters(draft)
        }}
      >
        <label for="span-name">Name</label>
        <input
          id="span-name"
          placeholder="application.process"
          value={draft.name}
          onInput={(event) => setDraft({ ...draft, name: event.currentTarget.value })}
        />
        <label for="span-status">Status</label>
        <select
          id="span-status"
          value={draft.status}
          onChange={(event) => setDraft({ ...draft, status: event.currentTarget.value as Filters["status"] })}
        >
          <option value="">Any</option>
          <option value="SUCCESS">SUCCESS</option>
          <option value="ERROR">ERROR</option>
          <option value="CANCELED">CANCELED</option>
        </select>
        <label for="span-text">Text in input or output</label>
        <input id="span-text" value={draft.text} onInput={(event) => setDraft({ ...draft, text: event.currentTarget.value })} />
        <label>
          <input
            type="checkbox"
            checked={draft.rootsOnly}
            onChange={(event) => setDraft({ ...draft, rootsOnly: event.currentTarget.checked })}
          />{" "}
          Roots only
        </label>
        <button type="submit" class="primary">Search</button>
      </form>
      <Show loaded={spans} what="spans">
        {(page) =>
          page.items.length === 0 && cursor.starting_after === undefined && cursor.ending_before === undefined
            ? (
              <Empty>
                No spans match. The kit records its own work as traces: run a chat in the playground or an application, then
                search again (docs/spans.md).
              </Empty>
            )
            : (
              <>
                <table>
                  <caption class="sr-only">Spans found, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Span</th>
                      <th scope="col">Type</th>
                      <th scope="col">Status</th>
                      <th scope="col">Started</th>
                      <th scope="col">Duration</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.items.map((span) => (
                      <tr key={span.id}>
                        <td>
                          <Link to={`/traces/${encodeURIComponent(span.trace_id)}?span=${encodeURIComponent(span.id)}`}>{span.name}</Link>
                        </td>
                        <td>{span.type ?? "—"}</td>
                        <td><StatusBadge status={span.status} /></td>
                        <td>{when(span.start_timestamp)}</td>
                        <td>{spanDuration(span)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <CursorPager
                  cursor={cursor}
                  hasMore={page.has_more}
                  first={page.items[0]?.id}
                  last={page.items[page.items.length - 1]?.id}
                  onCursor={setCursor}
                />
              </>
            )}
      </Show>
    </section>
  )
}

/**
 * Newer and Older of a keyset list: `has_more` tells whether more lie in the direction of travel
 * (older after `starting_after`, newer before `ending_before`); the other direction has more
 * whenever the page was reached by a cursor.
 */
const CursorPager = (
  { cursor, hasMore, first, last, onCursor }: {
    readonly cursor: Cursor
    readonly hasMore: boolean
    readonly first: string | undefined
    readonly last: string | undefined
    readonly onCursor: (cursor: Cursor) => void
  }
) => {
  const backwards = cursor.ending_before !== undefined
  const newer = backwards ? hasMore : cursor.starting_after !== undefined
  const older = backwards ? true : hasMore
  return (
    <nav class="row" aria-label="Pages of the list">
      <button type="button" disabled={!newer || first === undefined} onClick={() => onCursor({ ending_before: first! })}>Newer</button>
      <button type="button" disabled={!older || last === undefined} onClick={() => onCursor({ starting_after: last! })}>Older</button>
    </nav>
  )
}

/** A span in the waterfall: its depth under its root and its times in µs. */
interface Row {
  readonly span: Span
  readonly depth: number
  readonly start: number
  readonly end: number | undefined
}

/** The spans in tree order (each after its parent, siblings by start); a span whose parent is absent is a root. */
const waterfall = (spans: ReadonlyArray<Span>): ReadonlyArray<Row> => {
  const ids = new Set(spans.map((span) => span.id))
  const children = new Map<string | null, Array<Span>>()
  for (const span of spans) {
    const parent = span.parent_id !== null && ids.has(span.parent_id) ? span.parent_id : null
    children.set(parent, [...(children.get(parent) ?? []), span])
  }
  const rows: Array<Row> = []
  const seen = new Set<string>()
  const visit = (parent: string | null, depth: number) => {
    const kids = [...(children.get(parent) ?? [])].sort((a, b) => micros(a.start_timestamp) - micros(b.start_timestamp))
    for (const span of kids) {
      if (seen.has(span.id)) continue
      seen.add(span.id)
      rows.push({
        span,
        depth,
        start: micros(span.start_timestamp),
        end: span.end_timestamp === null ? undefined : micros(span.end_timestamp)
      })
      visit(span.id, depth + 1)
    }
  }
  visit(null, 0)
  return rows
}

export const TracePage = ({ session, traceId }: { readonly session: Session; readonly traceId: string }) => {
  const trace = useLoad(
    () => session.client.spans.search({ urlParams: { limit: traceLimit, sort_order: "asc" }, payload: { trace_ids: [traceId] } }),
    [traceId]
  )
  const [selected, setSelected] = useState<string | null>(() => new URLSearchParams(location.search).get("span"))
  return (
    <section aria-labelledby="trace-title">
      <p><Link to="/traces">← Traces</Link></p>
      <h1 id="trace-title">Trace <code>{traceId}</code></h1>
      <Show loaded={trace} what="the trace">
        {(page) => {
          if (page.items.length === 0) return <Empty>No span of this trace in the account.</Empty>
          const rows = waterfall(page.items)
          const t0 = Math.min(...rows.map((row) => row.start))
          const t1 = Math.max(...rows.map((row) => row.end ?? row.start))
          const total = Math.max(1, t1 - t0)
          const chosen = rows.find((row) => row.span.id === selected)?.span ?? rows[0]!.span
          return (
            <>
              <p class="muted">
                {rows.length} spans, {duration(t1 - t0)} from {when(page.items[0]!.start_timestamp)}
                {page.has_more && <> (the first {traceLimit} shown)</>}
              </p>
              <ol class="waterfall" aria-label="Spans of the trace, by start, nested by parent">
                {rows.map((row) => {
                  const left = ((row.start - t0) / total) * 100
                  const width = row.end === undefined ? 100 - left : Math.max(0.4, ((row.end - row.start) / total) * 100)
                  return (
                    <li key={row.span.id}>
                      <button
                        type="button"
                        class="span-row"
                        aria-pressed={row.span.id === chosen.id}
                        onClick={() => setSelected(row.span.id)}
                      >
                        <span class="span-name" data-depth={row.depth} style={{ paddingLeft: `${row.depth * 1.1}rem` }}>
                          {row.span.name}
                          {row.span.status === "ERROR" && <span class="status-error"> (error)</span>}
                        </span>
                        <span class="span-track" aria-hidden="true">
                          <span
                            class={`span-bar${row.span.status === "ERROR" ? " failed" : ""}`}
                            style={{ left: `${left}%`, width: `${Math.min(width, 100 - left)}%` }}
                          />
                        </span>
                        <span class="span-time">{spanDuration(row.span)}</span>
                      </button>
                    </li>
                  )
                })}
              </ol>
              <SpanDetails span={chosen} />
            </>
          )
        }}
      </Show>
    </section>
  )
}

const Json = ({ title, value }: { readonly title: string; readonly value: unknown }) => (
  <div class="stack">
    <h3>{title}</h3>
    {value === null ? <p class="muted">None</p> : <pre class="json">{JSON.stringify(value, null, 2)}</pre>}
  </div>
)

const SpanDetails = ({ span }: { readonly span: Span }) => (
  <div class="card stack" aria-labelledby="span-title" data-testid="span-details">
    <h2 id="span-title">{span.name}</h2>
    <dl class="facts">
      <dt>Id</dt>
      <dd><code>{span.id}</code></dd>
      <dt>Type</dt>
      <dd>{span.type ?? "—"}</dd>
      <dt>Status</dt>
      <dd><StatusBadge status={span.status} /></dd>
      <dt>Started</dt>
      <dd>{span.start_timestamp}</dd>
      <dt>Duration</dt>
      <dd>{spanDuration(span)}</dd>
      <dt>Parent</dt>
      <dd>{span.parent_id === null ? "—" : <code>{span.parent_id}</code>}</dd>
    </dl>
    <Json title="Input" value={span.input} />
    <Json title="Output" value={span.output} />
    <Json title="Metadata" value={span.metadata} />
  </div>
)
