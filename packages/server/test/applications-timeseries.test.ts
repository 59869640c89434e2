import { assert, layer } from "@effect/vitest"
import type { ApplicationDashboardId, MetricId, TimeseriesData } from "@platform-kit/schema"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive } from "../src/testing.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

const SPEC = "spec-timeseries"
/** 2026-01-10T00:00:00Z, in ms and in seconds. */
const T0 = Date.parse("2026-01-10T00:00:00Z")
const S0 = T0 / 1000
const HOUR = 3600

/**
 * | start (s) | variant | ms  | in | out | error | nodes      |
 * | 0         | v1      | 100 | 10 | 20  |       | a 40, b 50 |
 * | 75        | v3      | 150 | 6  | 10  |       |            |
 * | 600       | v1      | 200 | 5  | 15  | boom  | a 60       |
 * | 3600      | v2      | 300 | 20 | 30  |       | a 110      |
 * | 7260      | v2      | 400 | 0  | 10  | x     |            |
 */
const rows = [
  { t: 0, v: "v1", ms: 100, in: 10, out: 20, error: null, nodes: [["a", 40], ["b", 50]] },
  { t: 75, v: "v3", ms: 150, in: 6, out: 10, error: null, nodes: [] },
  { t: 600, v: "v1", ms: 200, in: 5, out: 15, error: "boom", nodes: [["a", 60]] },
  { t: 3600, v: "v2", ms: 300, in: 20, out: 30, error: null, nodes: [["a", 110]] },
  { t: 7260, v: "v2", ms: 400, in: 0, out: 10, error: "x", nodes: [] }
] as const

interface Row {
  readonly t: number
  readonly v: string
  readonly ms: number
  readonly in: number
  readonly out: number
  readonly error: string | null
  readonly nodes: ReadonlyArray<readonly [string, number]>
}

const record = (caller: Caller, spec: string, row: Row, startMs = T0 + row.t * 1000) =>
  caller.client.applications.recordInteraction({
    path: { application_spec_id: spec },
    payload: {
      application_variant_id: row.v,
      start_timestamp: new Date(startMs).toISOString(),
      duration_ms: row.ms,
      input_tokens: row.in,
      output_tokens: row.out,
      ...(row.error === null ? {} : { error: row.error }),
      node_latencies: row.nodes.map(([node_id, duration_ms]) => ({ node_id, duration_ms }))
    }
  })

/** Alice owns the rows; Bob records on the same spec id, which must never count for her. */
const seeded = Effect.gen(function*() {
  const alice = yield* provision()
  const bob = yield* provision()
  for (const row of rows) yield* record(alice, SPEC, row)
  yield* record(bob, SPEC, { ...rows[0], ms: 9999 })
  return { alice, bob }
})

type Query = {
  readonly variants?: ReadonlyArray<string>
  readonly from_ts?: number
  readonly to_ts?: number
  readonly token_type?: "input" | "response" | "total"
  readonly node_id?: string
}

const series = (caller: Caller, metric_id: MetricId, urlParams: Query, spec = SPEC) =>
  caller.client.applications.timeseriesMetric({ path: { application_spec_id: spec, metric_id }, urlParams })

/** `length` values, zero but at the given indices. */
const sparse = (length: number, at: Readonly<Record<number, number>>) =>
  Array.from({ length }, (_, i) => at[i] ?? 0)

const plain = (data: TimeseriesData) => ({
  bins: data.bins,
  values: data.values.map((s) => ({ label: s.label, value: s.value })),
  unit: data.unit
})

/** Two days from T0, both ends inclusive: 48 hourly bins. */
const twoDays = { from_ts: S0, to_ts: S0 + 48 * HOUR - 1 }
const hourlyBins = Array.from({ length: 48 }, (_, i) => new Date(T0 + i * HOUR * 1000).toISOString())

layer(TestServerLive)("application metric timeseries and dashboards", (it) => {
  it.effect("a two-day window has 48 hourly bins; each bin is the scalar metric over its interactions", () =>
    Effect.gen(function*() {
      const { alice } = yield* seeded
      const expect = (metric: MetricId, query: Query, values: Record<string, Record<number, number>>, unit: string) =>
        Effect.map(series(alice, metric, { ...twoDays, ...query }), (data) =>
          assert.deepStrictEqual(plain(data), {
            bins: hourlyBins,
            values: Object.entries(values).map(([label, at]) => ({ label, value: sparse(48, at) })),
            unit
          }, metric))
      yield* expect("total_requests", {}, { all: { 0: 3, 1: 1, 2: 1 } }, "count")
      yield* expect("total_errors", {}, { all: { 0: 1, 2: 1 } }, "count")
      yield* expect("average_latency", {}, { all: { 0: 150, 1: 300, 2: 400 } }, "ms")
      yield* expect("error_rate", {}, { all: { 0: 1 / 3, 2: 1 } }, "ratio")
      // one series per variant seen in the window, ascending
      yield* expect("execution_average_latency_per_variant", {}, {
        v1: { 0: 150 },
        v2: { 1: 300, 2: 400 },
        v3: { 0: 150 }
      }, "ms")
      yield* expect("execution_error_rate", { variants: ["v2", "v1"] }, { v1: { 0: 0.5 }, v2: { 2: 1 } }, "ratio")
      // one series per node
      yield* expect("execution_average_latency_per_node", {}, { a: { 0: 50, 1: 110 }, b: { 0: 50 } }, "ms")
      yield* expect("execution_average_latency_per_node", { node_id: "b" }, { b: { 0: 50 } }, "ms")
      // input and response tokens, or the one kind asked for
      yield* expect("execution_input_response_tokens", {}, {
        input: { 0: 7, 1: 20 },
        response: { 0: 15, 1: 30, 2: 10 }
      }, "tokens")
      yield* expect("execution_input_response_tokens", { token_type: "total" }, { total: { 0: 22, 1: 50, 2: 10 } }, "tokens")
      // variants narrows the single series
      yield* expect("total_requests", { variants: ["v2"] }, { all: { 1: 1, 2: 1 } }, "count")
      // nothing the kit records scores these: zeros
      yield* expect("average_faithfulness", {}, { all: {} }, "score")
      yield* expect("total_guardrail_triggers", {}, { all: {} }, "count")
      // no variant in the window: no series
      const empty = yield* series(alice, "execution_error_rate", { from_ts: S0 + 10 * HOUR, to_ts: S0 + 11 * HOUR })
      assert.deepStrictEqual(empty.values, [])
    }))

  it.effect("bins are aligned on the epoch and the window's ends are inclusive and exact", () =>
    Effect.gen(function*() {
      const { alice } = yield* seeded
      // 90 s to 690 s: eleven 1-minute bins from 60 s; the interaction at 75 s is before the window
      const data = yield* series(alice, "total_requests", { from_ts: S0 + 90, to_ts: S0 + 690 })
      assert.deepStrictEqual(data.bins, Array.from({ length: 11 }, (_, i) => new Date(T0 + (i + 1) * 60_000).toISOString()))
      assert.deepStrictEqual(data.values.map((s) => [s.label, [...s.value]]), [["all", sparse(11, { 9: 1 })]])
      // to_ts exactly on an interaction's start counts it
      const edge = yield* series(alice, "total_requests", { from_ts: S0, to_ts: S0 + 600 })
      assert.strictEqual(edge.bins.length, 11)
      assert.deepStrictEqual([...edge.values[0]!.value], sparse(11, { 0: 1, 1: 1, 10: 1 }))
    }))

  it.effect("a window of any length has at most 50 bins of a whole number of days; the default window is the last 7 days", () =>
    Effect.gen(function*() {
      const { alice } = yield* seeded
      const all = yield* series(alice, "total_requests", { from_ts: 0, to_ts: 253402300799 })
      assert.isAtMost(all.bins.length, 50)
      const width = Date.parse(all.bins[1]!) - Date.parse(all.bins[0]!)
      assert.strictEqual(width % 86_400_000, 0)
      assert.strictEqual(all.values[0]!.value.reduce((a, b) => a + b, 0), 5)

      // no window: the 7 days up to now (T0 + 7 days + 1 hour), 29 bins of 6 hours from T0; the
      // window starts at T0 + 1 hour exactly, so it holds the interactions at 3600 s and 7260 s
      yield* TestClock.setTime(T0 + (7 * 24 + 1) * HOUR * 1000)
      const recent = yield* series(alice, "total_requests", {})
      assert.deepStrictEqual(plain(recent), {
        bins: Array.from({ length: 29 }, (_, i) => new Date(T0 + i * 6 * HOUR * 1000).toISOString()),
        values: [{ label: "all", value: sparse(29, { 0: 2 }) }],
        unit: "count"
      })
      // only from_ts (T0 + 2 hours): up to now, the same 29 bins; only the interaction at 7260 s
      const since = yield* series(alice, "total_requests", { from_ts: S0 + 7200 })
      assert.deepStrictEqual(since.bins, recent.bins)
      assert.deepStrictEqual([...since.values[0]!.value], sparse(29, { 0: 1 }))
    }))

  it.effect("another account's spec is 404; another account's interactions never count", () =>
    Effect.gen(function*() {
      const { alice, bob } = yield* seeded
      const bobs = yield* bob.client.applicationSpecs.create({ payload: { account_id: bob.accountId, name: "bob's", description: "d" } })
      for (const path of [`metrics/timeseries/total_requests`, `dashboards/top_level_dashboard`]) {
        const foreign = yield* request("GET", `/v4/applications/${bobs.id}/${path}`, { key: alice.key })
        assert.strictEqual(foreign.status, 404, path)
        assert.isString(foreign.body.detail)
        const own = yield* request("GET", `/v4/applications/${bobs.id}/${path}`, { key: bob.key })
        assert.strictEqual(own.status, 200, path)
      }
      const bobsCount = yield* series(bob, "total_requests", twoDays)
      assert.deepStrictEqual([...bobsCount.values[0]!.value], sparse(48, { 0: 1 }))
      const forbidden = yield* request("GET", `/v4/applications/${SPEC}/metrics/timeseries/total_requests?account_id=${bob.accountId}`, {
        key: alice.key
      })
      assert.strictEqual(forbidden.status, 403)
    }))

  it.effect("validation: unknown metric or dashboard id, inverted window", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const unknown = yield* request("GET", `/v4/applications/${SPEC}/metrics/timeseries/median_latency`, { key })
      assert.strictEqual(unknown.status, 422)
      assert.deepStrictEqual(issues(unknown), [{ loc: ["path", "metric_id"], type: "literal_error" }])
      const inverted = yield* request("GET", `/v4/applications/${SPEC}/metrics/timeseries/total_requests?from_ts=200&to_ts=100`, { key })
      assert.strictEqual(inverted.status, 422)
      assert.deepStrictEqual(issues(inverted), [{ loc: ["query", "to_ts"], type: "value_error" }])
      const board = yield* request("GET", `/v4/applications/${SPEC}/dashboards/cost_dashboard`, { key })
      assert.strictEqual(board.status, 422)
      assert.deepStrictEqual(issues(board), [{ loc: ["path", "application_dashboard_id"], type: "literal_error" }])
    }))

  it.effect("the five dashboards: each names only metrics the scalar and timeseries endpoints answer", () =>
    Effect.gen(function*() {
      const { alice } = yield* seeded
      const ids: ReadonlyArray<ApplicationDashboardId> = [
        "top_level_dashboard",
        "engagements_dashboard",
        "executions_dashboard",
        "guardrails_dashboard",
        "variant_overview_dashboard"
      ]
      const metrics = new Set<MetricId>()
      for (const id of ids) {
        const board = yield* alice.client.applications.dashboard({ path: { application_spec_id: SPEC, application_dashboard_id: id } })
        assert.strictEqual(board.id, id)
        assert.isAbove(board.visualizations.length, 0)
        assert.strictEqual(new Set(board.visualizations.map((v) => v.id)).size, board.visualizations.length)
        for (const v of board.visualizations) metrics.add(v.metric_id)
      }
      const executions = yield* request("GET", `/v4/applications/${SPEC}/dashboards/executions_dashboard`, { key: alice.key })
      assert.deepStrictEqual(executions.body.visualizations[0], {
        id: "executions_dashboard.execution_input_response_tokens.stacked_bar",
        metric_id: "execution_input_response_tokens",
        title: "Input and response tokens",
        type: "stacked_bar",
        metadata: {
          is_variant_specific_metric: false,
          label_color_map: { input: "#2563eb", response: "#f59e0b" },
          label_title_map: { input: "Input tokens", response: "Response tokens" }
        }
      })
      for (const metric of metrics) {
        const scalar = yield* request("GET", `/v4/applications/${SPEC}/metrics/scalar/${metric}`, { key: alice.key })
        assert.strictEqual(scalar.status, 200, metric)
        const over = yield* series(alice, metric, twoDays)
        assert.strictEqual(over.bins.length, 48, metric)
        assert.strictEqual(over.unit, scalar.body.unit, metric)
      }
    }))
})
