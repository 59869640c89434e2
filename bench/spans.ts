/**
 * Spans as the platform's SDK tracer sends them (docs/spans.md), for `--data-plane`: the load
 * process's `PUT /v5/spans/batch` bodies and the seeded 1,000,000-span file share this shape. A
 * trace is `SPANS_PER_TRACE` spans (a root `agent.run`, its children in turn); timestamps are
 * Python's `isoformat()` with microseconds and `+00:00`; `input`, `output` and `metadata` small
 * objects.
 */

/** Spans of one trace: the root and its children. */
export const SPANS_PER_TRACE = 10

/** The spans' names and types, by position in the trace (the root first). */
const KINDS: ReadonlyArray<readonly [name: string, type: string]> = [
  ["agent.run", "STANDALONE"],
  ["prompt.render", "COMPLETION_INPUT"],
  ["retrieval.query", "KB_RETRIEVAL"],
  ["rerank", "RERANKING"],
  ["llm.completion", "COMPLETION"],
  ["tool.call", "EXTERNAL_ENDPOINT"],
  ["llm.completion", "COMPLETION"],
  ["guardrail.check", "STANDALONE"],
  ["memory.write", "STANDALONE"],
  ["response.format", "TEXT_OUTPUT"]
]

/** Every span name the generator uses (search filters by them). */
export const SPAN_NAMES = [...new Set(KINDS.map(([name]) => name))]

/** Python's `datetime.isoformat()` of an instant in epoch ms plus microseconds within it. */
export const isoMicros = (ms: number, us: number) => `${new Date(ms).toISOString().slice(0, 23)}${String(us).padStart(3, "0")}+00:00`

export interface SpanItem {
  readonly id: string
  readonly trace_id: string
  readonly parent_id?: string
  readonly name: string
  readonly type: string
  readonly status: "SUCCESS" | "ERROR"
  readonly start_timestamp: string
  readonly end_timestamp: string
  readonly input: Record<string, unknown>
  readonly output: Record<string, unknown>
  readonly metadata: Record<string, unknown>
}

/**
 * The `position`-th span (0 the root) of trace `traceId`, started at `startMs` (+ `us` µs), number
 * `n` overall (varies the words and the figures). About one span in 25 ends in `ERROR`.
 */
export const spanItem = (id: string, traceId: string, rootId: string, position: number, n: number, startMs: number, us: number): SpanItem => {
  const [name, type] = KINDS[position % KINDS.length]!
  const durationMs = position === 0 ? 900 + (n % 300) : 5 + (n % 80)
  // independent of the position (a name is not always or never an error)
  const error = Math.imul(n + 1, 2654435761) >>> 0 < 0xffffffff / 25
  return {
    id,
    trace_id: traceId,
    ...(position === 0 ? {} : { parent_id: rootId }),
    name,
    type,
    status: error ? "ERROR" : "SUCCESS",
    start_timestamp: isoMicros(startMs, us),
    end_timestamp: isoMicros(startMs + durationMs, (us + 417) % 1000),
    input: { question: `How do I rotate the API key of workspace ${n % 500}?`, user_id: `user-${n % 1000}`, step: position },
    output: error
      ? { error: "upstream timed out after 30 s", retryable: true }
      : { answer: `Open the settings of workspace ${n % 500}, then Keys, then Rotate.`, tokens: 20 + (n % 200) },
    metadata: { model: n % 3 === 0 ? "gpt-4o-mini" : "claude-3-5-haiku", environment: "production", sdk: "scale-gp-python 0.9" }
  }
}

/** A `PUT /v5/spans/batch` body of `size` new spans: `size / SPANS_PER_TRACE` whole traces, ids from `prefix` and `batch`. */
export const spanBatch = (prefix: string, batch: number, size: number, nowMs: number) => {
  const items: Array<SpanItem> = []
  for (let i = 0; i < size; i++) {
    const position = i % SPANS_PER_TRACE
    const traceId = `${prefix}-t${batch}-${Math.floor(i / SPANS_PER_TRACE)}`
    items.push(spanItem(`${prefix}-s${batch}-${i}`, traceId, `${prefix}-s${batch}-${i - position}`, position, batch * size + i, nowMs + position * 3, (batch + i * 37) % 1000))
  }
  return { items }
}
