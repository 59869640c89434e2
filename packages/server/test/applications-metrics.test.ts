import { assert, layer } from "@effect/vitest"
import type { MetricId } from "@platform-kit/schema"
import { Effect } from "effect"
import { issues, provision, request, TestServerLive } from "../src/testing.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

const SPEC = "spec-metrics"
/** The start of the fixed data set: 2026-01-10T00:00:00Z, and the same in seconds. */
const T0 = Date.parse("2026-01-10T00:00:00Z")
const S0 = T0 / 1000
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString()

/**
 * The fixed data set every expectation below is computed from by hand.
 *
 * | # | start (s) | variant | ms  | in | out | error | user | feedback | nodes          |
 * | 1 | 0         | v1      | 100 | 10 | 20  |       | u1   | up       | a 40, b 50     |
 * | 2 | 60        | v1      | 200 | 5  | 15  | boom  | u2   | down     | a 60           |
 * | 3 | 120       | v2      | 300 | 20 | 30  |       | u1   | up       | a 110, b 150   |
 * | 4 | 180       | v2      | 400 | 0  | 10  | x     |      |          |                |
 * | 5 | 86400     | v1      | 600 | 30 | 40  |       | u3   | up       | b 220          |
 * | 6 | 86460     | v3      | 500 | 10 | 10  |       | u3   |          | c 300          |
 *
 * Noise that must never count: the same caller on another spec, another account on this spec.
 */
interface Row {
  readonly t: number
  readonly v: string
  readonly ms: number
  readonly in: number
  readonly out: number
  readonly error: string | null
  readonly user: string | null
  readonly feedback: "thumbs_up" | "thumbs_down" | null
  readonly nodes: ReadonlyArray<readonly [string, number]>
}

const dataSet: ReadonlyArray<Row> = [
  { t: 0, v: "v1", ms: 100, in: 10, out: 20, error: null, user: "u1", feedback: "thumbs_up", nodes: [["a", 40], ["b", 50]] },
  { t: 60, v: "v1", ms: 200, in: 5, out: 15, error: "boom", user: "u2", feedback: "thumbs_down", nodes: [["a", 60]] },
  { t: 120, v: "v2", ms: 300, in: 20, out: 30, error: null, user: "u1", feedback: "thumbs_up", nodes: [["a", 110], ["b", 150]] },
  { t: 180, v: "v2", ms: 400, in: 0, out: 10, error: "x", user: null, feedback: null, nodes: [] },
  { t: 86400, v: "v1", ms: 600, in: 30, out: 40, error: null, user: "u3", feedback: "thumbs_up", nodes: [["b", 220]] },
  { t: 86460, v: "v3", ms: 500, in: 10, out: 10, error: null, user: "u3", feedback: null, nodes: [["c", 300]] }
]

const record = (caller: Caller, spec: string, row: Row) =>
  caller.client.applications.recordInteraction({
    path: { application_spec_id: spec },
    payload: {
      application_variant_id: row.v,
      start_timestamp: at(row.t),
      duration_ms: row.ms,
      input_tokens: row.in,
      output_tokens: row.out,
      ...(row.error === null ? {} : { error: row.error }),
      ...(row.user === null ? {} : { user_id: row.user }),
      ...(row.feedback === null ? {} : { feedback: row.feedback }),
      node_latencies: row.nodes.map(([node_id, duration_ms]) => ({ node_id, duration_ms }))
    }
  })

/** A caller owning the data set, plus the noise around it. */
const seeded = Effect.gen(function*() {
  const alice = yield* provision()
  const bob = yield* provision()
  for (const row of dataSet) yield* record(alice, SPEC, row)
  yield* record(alice, "another-spec", { ...dataSet[0]!, ms: 9999, error: "noise" })
  yield* record(bob, SPEC, { ...dataSet[3]!, ms: 9999, in: 999, user: "u9", feedback: "thumbs_down" })
  return alice
})

type Query = {
  readonly variants?: ReadonlyArray<string>
  readonly from_ts?: number
  readonly to_ts?: number
  readonly token_type?: "input" | "response" | "total"
  readonly percentile?: number
  readonly node_id?: string
}

const metric = (caller: Caller, metric_id: MetricId, urlParams: Query = {}, spec = SPEC) =>
  Effect.map(
    caller.client.applications.scalarMetric({ path: { application_spec_id: spec, metric_id }, urlParams }),
    (result) => ({ metric_id, value: result.value, unit: result.unit })
  )

/** The ids of online evaluation and guardrails: nothing the kit records scores them. */
const unscored = [
  "average_faithfulness",
  "average_relevance",
  "engagement_faithfulness",
  "engagement_relevance",
  "total_guardrail_triggers",
  "guardrail_triggers_timeseries",
  "guardrail_severity_timeseries"
] as const
/** The metrics computed from the recorded interactions. */
type Recorded = Exclude<MetricId, typeof unscored[number]>

/** Asserts every metric of `expected` (value and unit) under `query`. */
const expectAll = (caller: Caller, query: Query, expected: Readonly<Record<Recorded, readonly [number, string]>>) =>
  Effect.forEach(Object.entries(expected) as Array<[MetricId, readonly [number, string]]>, ([id, [value, unit]]) =>
    Effect.map(metric(caller, id, query), (actual) =>
      assert.deepStrictEqual(actual, { metric_id: id, value, unit }, `${id} ${JSON.stringify(query)}`)), {
    discard: true
  })

const allIds: ReadonlyArray<Recorded> = [
  "total_requests",
  "total_errors",
  "total_tokens",
  "average_latency",
  "p95_latency",
  "error_rate",
  "average_users",
  "aggregated_tokens",
  "feedback",
  "execution_input_response_tokens",
  "execution_average_latency_per_variant",
  "execution_error_rate",
  "execution_latency_percentile",
  "execution_average_latency_per_node"
]

const units: Record<MetricId, string> = {
  total_requests: "count",
  total_errors: "count",
  total_tokens: "tokens",
  average_latency: "ms",
  p95_latency: "ms",
  error_rate: "ratio",
  average_users: "users",
  aggregated_tokens: "tokens",
  feedback: "ratio",
  execution_input_response_tokens: "tokens",
  execution_average_latency_per_variant: "ms",
  execution_error_rate: "ratio",
  execution_latency_percentile: "ms",
  execution_average_latency_per_node: "ms",
  average_faithfulness: "score",
  average_relevance: "score",
  engagement_faithfulness: "score",
  engagement_relevance: "score",
  total_guardrail_triggers: "count",
  guardrail_triggers_timeseries: "count",
  guardrail_severity_timeseries: "severity"
}

const zeros = Object.fromEntries(allIds.map((id) => [id, [0, units[id]] as const])) as Record<
  Recorded,
  readonly [number, string]
>

layer(TestServerLive)("application metrics", (it) => {
  it.effect("the online evaluation and guardrail ids answer 0 over recorded interactions", () =>
    Effect.gen(function*() {
      const alice = yield* seeded
      for (const id of unscored) {
        assert.deepStrictEqual(yield* metric(alice, id), { metric_id: id, value: 0, unit: units[id] })
      }
    }))

  it.effect("every metric over the whole data set", () =>
    Effect.gen(function*() {
      const alice = yield* seeded
      yield* expectAll(alice, {}, {
        total_requests: [6, "count"],
        total_errors: [2, "count"],
        total_tokens: [200, "tokens"], // 30 + 20 + 50 + 10 + 70 + 20
        average_latency: [350, "ms"], // 2100 / 6
        p95_latency: [600, "ms"], // rank ceil(0.95 * 6) = 6 of 100..600
        error_rate: [2 / 6, "ratio"],
        average_users: [1.5, "users"], // day 0 {u1, u2}, day 1 {u3}
        aggregated_tokens: [100, "tokens"], // day 0 110, day 1 90
        feedback: [0.75, "ratio"], // up, down, up, up
        execution_input_response_tokens: [200 / 6, "tokens"],
        execution_average_latency_per_variant: [500, "ms"], // v1 300, v2 350, v3 500
        execution_error_rate: [0.5, "ratio"], // v1 1/3, v2 1/2, v3 0
        execution_latency_percentile: [300, "ms"], // default 50: rank 3
        execution_average_latency_per_node: [300, "ms"] // a 70, b 140, c 300
      })
    }))

  it.effect("the extra parameters: token_type, percentile, node_id", () =>
    Effect.gen(function*() {
      const alice = yield* seeded
      const value = (id: MetricId, query: Query) => Effect.map(metric(alice, id, query), (m) => m.value)
      assert.strictEqual(yield* value("execution_input_response_tokens", { token_type: "input" }), 75 / 6)
      assert.strictEqual(yield* value("execution_input_response_tokens", { token_type: "response" }), 125 / 6)
      assert.strictEqual(yield* value("execution_input_response_tokens", { token_type: "total" }), 200 / 6)
      // nearest rank over 100, 200, 300, 400, 500, 600
      assert.strictEqual(yield* value("execution_latency_percentile", { percentile: 1 }), 100)
      assert.strictEqual(yield* value("execution_latency_percentile", { percentile: 33 }), 200) // ceil(1.98) = 2
      assert.strictEqual(yield* value("execution_latency_percentile", { percentile: 34 }), 300) // ceil(2.04) = 3
      assert.strictEqual(yield* value("execution_latency_percentile", { percentile: 95 }), 600)
      assert.strictEqual(yield* value("execution_latency_percentile", { percentile: 100 }), 600)
      assert.strictEqual(yield* value("execution_average_latency_per_node", { node_id: "a" }), 70) // 40, 60, 110
      assert.strictEqual(yield* value("execution_average_latency_per_node", { node_id: "b" }), 140) // 50, 150, 220
      assert.strictEqual(yield* value("execution_average_latency_per_node", { node_id: "nope" }), 0)
      // the extra parameters do not change the other metrics
      assert.strictEqual(yield* value("p95_latency", { percentile: 1 }), 600)
      assert.strictEqual(yield* value("total_tokens", { token_type: "input" }), 200)
    }))

  it.effect("the variants filter (repeated, comma-joined, empty)", () =>
    Effect.gen(function*() {
      const alice = yield* seeded
      yield* expectAll(alice, { variants: ["v1", "v2"] }, {
        total_requests: [5, "count"],
        total_errors: [2, "count"],
        total_tokens: [180, "tokens"],
        average_latency: [320, "ms"], // 1600 / 5
        p95_latency: [600, "ms"], // rank ceil(4.75) = 5 of 100, 200, 300, 400, 600
        error_rate: [0.4, "ratio"],
        average_users: [1.5, "users"], // day 0 {u1, u2}, day 1 {u3}
        aggregated_tokens: [90, "tokens"], // day 0 110, day 1 70
        feedback: [0.75, "ratio"],
        execution_input_response_tokens: [36, "tokens"],
        execution_average_latency_per_variant: [350, "ms"], // v1 300, v2 350
        execution_error_rate: [0.5, "ratio"],
        execution_latency_percentile: [300, "ms"], // rank ceil(2.5) = 3
        execution_average_latency_per_node: [140, "ms"] // a 70, b 140 (c is v3's)
      })
      yield* expectAll(alice, { variants: ["v3"] }, {
        total_requests: [1, "count"],
        total_errors: [0, "count"],
        total_tokens: [20, "tokens"],
        average_latency: [500, "ms"],
        p95_latency: [500, "ms"],
        error_rate: [0, "ratio"],
        average_users: [1, "users"],
        aggregated_tokens: [20, "tokens"],
        feedback: [0, "ratio"], // no feedback given
        execution_input_response_tokens: [20, "tokens"],
        execution_average_latency_per_variant: [500, "ms"],
        execution_error_rate: [0, "ratio"],
        execution_latency_percentile: [500, "ms"],
        execution_average_latency_per_node: [300, "ms"]
      })
      yield* expectAll(alice, { variants: ["no-such-variant"] }, zeros)

      const raw = (query: string) =>
        Effect.map(
          request("GET", `/v4/applications/${SPEC}/metrics/scalar/total_requests${query}`, { key: alice.key }),
          (response) => response.body
        )
      assert.deepStrictEqual(yield* raw("?variants=v1,v2"), { value: 5, unit: "count" })
      assert.deepStrictEqual(yield* raw("?variants=v1&variants=v3"), { value: 4, unit: "count" })
      assert.deepStrictEqual(yield* raw("?variants="), { value: 6, unit: "count" })
    }))

  it.effect("the window is inclusive at both ends, on the start time", () =>
    Effect.gen(function*() {
      const alice = yield* seeded
      yield* expectAll(alice, { from_ts: S0 + 60, to_ts: S0 + 180 }, {
        total_requests: [3, "count"], // #2, #3, #4
        total_errors: [2, "count"],
        total_tokens: [80, "tokens"],
        average_latency: [300, "ms"],
        p95_latency: [400, "ms"], // rank ceil(2.85) = 3
        error_rate: [2 / 3, "ratio"],
        average_users: [2, "users"], // {u2, u1}
        aggregated_tokens: [80, "tokens"],
        feedback: [0.5, "ratio"], // down, up
        execution_input_response_tokens: [80 / 3, "tokens"],
        execution_average_latency_per_variant: [350, "ms"], // v1 200, v2 350
        execution_error_rate: [1, "ratio"], // v1 1/1, v2 1/2
        execution_latency_percentile: [300, "ms"], // rank ceil(1.5) = 2 of 200, 300, 400
        execution_average_latency_per_node: [150, "ms"] // a (60, 110) 85, b 150
      })
      const count = (query: Query) => Effect.map(metric(alice, "total_requests", query), (m) => m.value)
      assert.strictEqual(yield* count({ from_ts: S0 + 61, to_ts: S0 + 179 }), 1) // #3 only
      assert.strictEqual(yield* count({ from_ts: S0 + 60.0005, to_ts: S0 + 179.9999 }), 1)
      assert.strictEqual(yield* count({ from_ts: S0 + 59.9995, to_ts: S0 + 180 }), 3)
      assert.strictEqual(yield* count({ from_ts: S0 + 120, to_ts: S0 + 120 }), 1) // a point window
      assert.strictEqual(yield* count({ from_ts: S0 + 86400 }), 2) // #5, #6
      assert.strictEqual(yield* count({ to_ts: S0 }), 1) // #1
      assert.strictEqual(yield* count({ to_ts: S0 - 1 }), 0)
      assert.strictEqual(yield* count({ from_ts: 0, to_ts: S0 + 1_000_000 }), 6)

      // window and variants together: #3 and #4
      const both = { from_ts: S0 + 60, to_ts: S0 + 86400, variants: ["v2"] }
      assert.strictEqual(yield* count(both), 2)
      assert.strictEqual((yield* metric(alice, "average_latency", both)).value, 350)

      yield* expectAll(alice, { from_ts: S0 + 200_000 }, zeros)
    }))

  it.effect("an unknown spec id, or another account's spec, is all zeros", () =>
    Effect.gen(function*() {
      const alice = yield* seeded
      for (const id of allIds) {
        assert.deepStrictEqual(yield* metric(alice, id, {}, "no-such-spec"), { metric_id: id, value: 0, unit: units[id] })
      }
      const carol = yield* provision()
      yield* expectAll(carol, {}, zeros)
    }))

  it.effect("another account's interactions never count; account_id narrows and a foreign one is 403", () =>
    Effect.gen(function*() {
      const alice = yield* seeded
      const bob = yield* provision()
      yield* record(bob, SPEC, { ...dataSet[0]!, ms: 1000 })
      assert.deepStrictEqual(yield* metric(bob, "average_latency"), { metric_id: "average_latency", value: 1000, unit: "ms" })
      assert.strictEqual((yield* metric(alice, "total_requests", {})).value, 6)
      const narrowed = yield* request(
        "GET",
        `/v4/applications/${SPEC}/metrics/scalar/total_requests?account_id=${alice.accountId}`,
        { key: alice.key }
      )
      assert.deepStrictEqual(narrowed.body, { value: 6, unit: "count" })
      const foreign = yield* request(
        "GET",
        `/v4/applications/${SPEC}/metrics/scalar/total_requests?account_id=${bob.accountId}`,
        { key: alice.key }
      )
      assert.strictEqual(foreign.status, 403)
      assert.isString(foreign.body.detail)
    }))

  it.effect("validation: unknown metric id, bad timestamps, inverted window, bad extra parameters", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const base = `/v4/applications/${SPEC}/metrics/scalar`
      const unknown = yield* request("GET", `${base}/median_latency`, { key })
      assert.strictEqual(unknown.status, 422)
      assert.deepStrictEqual(issues(unknown), [{ loc: ["path", "metric_id"], type: "literal_error" }])

      const badTimes = yield* request("GET", `${base}/total_requests?from_ts=yesterday&to_ts=-5`, { key })
      assert.strictEqual(badTimes.status, 422)
      assert.deepStrictEqual(issues(badTimes), [
        { loc: ["query", "from_ts"], type: "number_parsing" },
        { loc: ["query", "to_ts"], type: "range_error" }
      ])

      const tooFar = yield* request("GET", `${base}/total_requests?from_ts=1e20&to_ts=Infinity`, { key })
      assert.deepStrictEqual(issues(tooFar), [
        { loc: ["query", "from_ts"], type: "range_error" },
        { loc: ["query", "to_ts"], type: "value_error" }
      ])

      const inverted = yield* request("GET", `${base}/total_requests?from_ts=200&to_ts=100`, { key })
      assert.strictEqual(inverted.status, 422)
      assert.deepStrictEqual(issues(inverted), [{ loc: ["query", "to_ts"], type: "value_error" }])
      assert.strictEqual(inverted.body.detail[0].msg, "to_ts must not be before from_ts")
      const beforeForbidden = yield* request("GET", `${base}/total_requests?from_ts=200&to_ts=100&account_id=elsewhere`, {
        key
      })
      assert.strictEqual(beforeForbidden.status, 422)
      assert.strictEqual((yield* request("GET", `${base}/total_requests?account_id=elsewhere`, { key })).status, 403)

      const extras = yield* request("GET", `${base}/unknown_id?percentile=0&token_type=all`, { key })
      assert.strictEqual(extras.status, 422)
      assert.deepStrictEqual(issues(extras), [
        { loc: ["path", "metric_id"], type: "literal_error" },
        { loc: ["query", "token_type"], type: "literal_error" },
        { loc: ["query", "percentile"], type: "range_error" }
      ])
      const fraction = yield* request("GET", `${base}/execution_latency_percentile?percentile=50.5`, { key })
      assert.deepStrictEqual(issues(fraction), [{ loc: ["query", "percentile"], type: "int_type" }])
    }))

  it.effect("401 without a key", () =>
    Effect.gen(function*() {
      const response = yield* request("GET", `/v4/applications/${SPEC}/metrics/scalar/total_requests`)
      assert.strictEqual(response.status, 401)
      assert.isString(response.body.detail)
    }))
})
