/**
 * A metric of an application over time: the window (with its defaults), the bins it is cut into and
 * the series a metric has; each bin's value is the scalar metric (`ApplicationMetrics`, the same SQL)
 * over the interactions of that bin. docs/applications.md "Metrics over time" says what is decided
 * here.
 */
import { type MetricId, type MetricQuery, TimeseriesData, TimeseriesSeries } from "@platform-kit/schema"
import { Effect } from "effect"
import { type ApplicationMetrics, DAY_MS, type MetricFilter, metricUnits, unscoredMetrics } from "../metrics.js"

const MINUTE_MS = 60_000
const HOUR_MS = 3_600_000

/** The most bins a timeseries has. */
export const MAX_BINS = 50

/** The window when neither end is given: the 7 days up to now. */
export const DEFAULT_WINDOW_MS = 7 * DAY_MS

/** The bin widths tried first, narrowest first; past a day, a whole number of days. */
const widths = [
  MINUTE_MS,
  5 * MINUTE_MS,
  15 * MINUTE_MS,
  30 * MINUTE_MS,
  HOUR_MS,
  3 * HOUR_MS,
  6 * HOUR_MS,
  12 * HOUR_MS,
  DAY_MS
]

/** Bins of width `w` are aligned on the epoch: bin `k` is `[k·w, (k+1)·w)` in epoch ms. */
const binsBetween = (fromMs: number, toMs: number, w: number) => Math.floor(toMs / w) - Math.floor(fromMs / w) + 1

/** The narrowest width whose aligned bins cover `[fromMs, toMs]` in at most `MAX_BINS` bins. */
export const binWidth = (fromMs: number, toMs: number): number => {
  for (const w of widths) if (binsBetween(fromMs, toMs, w) <= MAX_BINS) return w
  let days = Math.max(2, Math.ceil((toMs - fromMs) / DAY_MS / MAX_BINS))
  while (binsBetween(fromMs, toMs, days * DAY_MS) > MAX_BINS) days++
  return days * DAY_MS
}

/**
 * The window in epoch ms, both ends inclusive (as the scalar metrics: `ceil(from_ts·1000)`,
 * `floor(to_ts·1000)`). A missing `to_ts` is now (or `from_ts` when that is later); a missing
 * `from_ts` is 7 days before the end (not before 1970).
 */
export const windowOf = (query: typeof MetricQuery.Type, nowMs: number) => {
  const givenFrom = query.from_ts === undefined ? undefined : Math.ceil(query.from_ts * 1000)
  const toMs = query.to_ts !== undefined ? Math.floor(query.to_ts * 1000) : Math.max(nowMs, givenFrom ?? 0)
  const fromMs = givenFrom ?? Math.max(0, toMs - DEFAULT_WINDOW_MS)
  return { fromMs, toMs }
}

interface Series {
  readonly label: string
  /** `undefined`: a metric nothing the kit records scores, zeros without asking. */
  readonly filter: MetricFilter | undefined
}

const uniqueSorted = (values: ReadonlyArray<string>) => [...new Set(values)].sort()

/** The series of a metric over the window's set `base` (docs/applications.md, "series"). */
const seriesOf = (
  metrics: ApplicationMetrics,
  metric: MetricId,
  base: MetricFilter,
  tokenTypeGiven: boolean
): Effect.Effect<ReadonlyArray<Series>> => {
  if (unscoredMetrics.has(metric)) return Effect.succeed([{ label: "all", filter: undefined }])
  switch (metric) {
    case "execution_average_latency_per_variant":
    case "execution_error_rate":
      return Effect.map(
        base.variants.length > 0 ? Effect.succeed(uniqueSorted(base.variants)) : metrics.variantsOf(base),
        (variants) => variants.map((variant) => ({ label: variant, filter: { ...base, variants: [variant] } }))
      )
    case "execution_average_latency_per_node":
      return Effect.map(
        base.nodeId !== undefined ? Effect.succeed([base.nodeId]) : metrics.nodesOf(base),
        (nodes) => nodes.map((nodeId) => ({ label: nodeId, filter: { ...base, nodeId } }))
      )
    case "execution_input_response_tokens":
      return Effect.succeed(
        tokenTypeGiven
          ? [{ label: base.tokenType, filter: base }]
          : [
            { label: "input", filter: { ...base, tokenType: "input" as const } },
            { label: "response", filter: { ...base, tokenType: "response" as const } }
          ]
      )
    default:
      return Effect.succeed([{ label: "all", filter: base }])
  }
}

/**
 * The metric per bin of the window of `base` (whose `fromMs`/`toMs` are the resolved window), one
 * series per label. Bins without an interaction are 0 without a query.
 */
export const timeseries = (
  metrics: ApplicationMetrics,
  metric: MetricId,
  base: MetricFilter & { readonly fromMs: number; readonly toMs: number },
  tokenTypeGiven: boolean
) =>
  Effect.gen(function*() {
    const lastMs = Math.max(base.fromMs, base.toMs)
    const w = binWidth(base.fromMs, lastMs)
    const first = Math.floor(base.fromMs / w)
    const count = Math.floor(lastMs / w) - first + 1
    const bins = Array.from({ length: count }, (_, i) => (first + i) * w)
    const series = yield* seriesOf(metrics, metric, base, tokenTypeGiven)
    const occupied = unscoredMetrics.has(metric) ? new Set<number>() : new Set(yield* metrics.occupiedBins(base, w))
    const values = yield* Effect.forEach(series, ({ filter, label }) =>
      Effect.map(
        Effect.forEach(bins, (start) =>
          filter === undefined || !occupied.has(start / w)
            ? Effect.succeed(0)
            : metrics.value(metric, {
              ...filter,
              fromMs: Math.max(start, base.fromMs),
              toMs: Math.min(start + w - 1, base.toMs)
            })),
        (value) => new TimeseriesSeries({ label, value })
      ))
    return new TimeseriesData({
      bins: bins.map((start) => new Date(start).toISOString()),
      values,
      unit: metricUnits[metric]
    }, true)
  })
