/**
 * The scalar metrics of an application, each one SQL query (two for percentiles: the count, then the
 * value at the nearest rank) over the recorded interactions of one application spec; the timeseries
 * (dashboards/timeseries.ts) asks the same per bin. Portable SQL
 * only: aggregates, GROUP BY in a subquery, ORDER BY … LIMIT/OFFSET. docs/applications.md defines
 * every metric.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError, Statement } from "@effect/sql"
import { ScalarMetric } from "@platform-kit/schema"
import type { MetricId, TokenType } from "@platform-kit/schema"
import { Effect } from "effect"

export interface MetricFilter {
  readonly accountIds: ReadonlyArray<string>
  readonly applicationSpecId: string
  /** Window on the start time, epoch milliseconds, both ends inclusive. */
  readonly fromMs: number | undefined
  readonly toMs: number | undefined
  /** Empty: every variant. */
  readonly variants: ReadonlyArray<string>
  readonly tokenType: TokenType
  readonly percentile: number
  readonly nodeId: string | undefined
}

export const metricUnits: { readonly [K in MetricId]: string } = {
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

/**
 * The metrics of online evaluation and guardrails: the kit runs neither, so nothing it records scores
 * them and they are 0 over any set (docs/applications.md "Metrics").
 */
export const unscoredMetrics: ReadonlySet<MetricId> = new Set<MetricId>([
  "average_faithfulness",
  "average_relevance",
  "engagement_faithfulness",
  "engagement_relevance",
  "total_guardrail_triggers",
  "guardrail_triggers_timeseries",
  "guardrail_severity_timeseries"
])

/** A day in milliseconds. */
export const DAY_MS = 86_400_000

export class ApplicationMetrics extends Effect.Service<ApplicationMetrics>()(
  "@platform-kit/server/ApplicationMetrics",
  {
    effect: Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      /** The interactions a metric reads (alias `i`). */
      const where = (filter: MetricFilter) =>
        sql.and([
          sql.in("i.account_id", filter.accountIds),
          sql`i.application_spec_id = ${filter.applicationSpecId}`,
          ...(filter.fromMs === undefined ? [] : [sql`i.start_ms >= ${filter.fromMs}`]),
          ...(filter.toMs === undefined ? [] : [sql`i.start_ms <= ${filter.toMs}`]),
          ...(filter.variants.length === 0 ? [] : [sql.in("i.application_variant_id", filter.variants)])
        ])

      /** The `value` of the first row; NULL (an aggregate over nothing) and no row are 0. */
      const scalar = (statement: Statement.Statement<{ readonly value: unknown }>) =>
        Effect.map(statement, (rows) => {
          const value = rows[0]?.value
          return value === null || value === undefined ? 0 : Number(value)
        })

      const tokens = (type: TokenType) =>
        sql.literal(
          type === "input" ? "i.input_tokens" : type === "response" ? "i.output_tokens" : "(i.input_tokens + i.output_tokens)"
        )

      const count = (filter: MetricFilter) =>
        scalar(sql`SELECT COUNT(*) AS value FROM application_interactions i WHERE ${where(filter)}`)

      /** Nearest rank: the smallest duration with at least `p`% of the interactions at or below it. */
      const latencyPercentile = (filter: MetricFilter, p: number) =>
        Effect.flatMap(count(filter), (n) => {
          if (n === 0) return Effect.succeed(0)
          const rank = Math.ceil((p * n) / 100)
          return scalar(
            sql`SELECT i.duration_ms AS value FROM application_interactions i WHERE ${where(filter)} ORDER BY i.duration_ms LIMIT 1 OFFSET ${rank - 1}`
          )
        }).pipe(sql.withTransaction) // the count and the read see the same rows

      const compute = (metric: MetricId, filter: MetricFilter): Effect.Effect<number, SqlError.SqlError> => {
        const w = where(filter)
        const day = sql.literal(`i.start_ms / ${DAY_MS}`)
        switch (metric) {
          case "total_requests":
            return count(filter)
          case "total_errors":
            return scalar(
              sql`SELECT COUNT(*) AS value FROM application_interactions i WHERE ${w} AND i.is_error = 1`
            )
          case "total_tokens":
            return scalar(sql`SELECT SUM(${tokens("total")}) AS value FROM application_interactions i WHERE ${w}`)
          case "average_latency":
            return scalar(sql`SELECT AVG(i.duration_ms) AS value FROM application_interactions i WHERE ${w}`)
          case "p95_latency":
            return latencyPercentile(filter, 95)
          case "error_rate":
            return scalar(sql`SELECT AVG(i.is_error) AS value FROM application_interactions i WHERE ${w}`)
          case "average_users":
            return scalar(
              sql`SELECT AVG(d.users) AS value FROM (SELECT COUNT(DISTINCT i.user_id) AS users FROM application_interactions i WHERE ${w} GROUP BY ${day}) d`
            )
          case "aggregated_tokens":
            return scalar(
              sql`SELECT AVG(d.tokens) AS value FROM (SELECT SUM(${
                tokens("total")
              }) AS tokens FROM application_interactions i WHERE ${w} GROUP BY ${day}) d`
            )
          case "feedback":
            return scalar(
              sql`SELECT AVG(i.feedback) AS value FROM application_interactions i WHERE ${w} AND i.feedback IS NOT NULL`
            )
          case "execution_input_response_tokens":
            return scalar(
              sql`SELECT AVG(${tokens(filter.tokenType)}) AS value FROM application_interactions i WHERE ${w}`
            )
          case "execution_average_latency_per_variant":
            return scalar(
              sql`SELECT MAX(v.latency) AS value FROM (SELECT AVG(i.duration_ms) AS latency FROM application_interactions i WHERE ${w} GROUP BY i.application_variant_id) v`
            )
          case "execution_error_rate":
            return scalar(
              sql`SELECT MAX(v.rate) AS value FROM (SELECT AVG(i.is_error) AS rate FROM application_interactions i WHERE ${w} GROUP BY i.application_variant_id) v`
            )
          case "execution_latency_percentile":
            return latencyPercentile(filter, filter.percentile)
          case "execution_average_latency_per_node":
            return scalar(
              sql`SELECT MAX(x.latency) AS value FROM (SELECT AVG(n.duration_ms) AS latency FROM application_interactions i JOIN application_interaction_nodes n ON n.interaction_id = i.id WHERE ${
                filter.nodeId === undefined ? w : sql.and([w, sql`n.node_id = ${filter.nodeId}`])
              } GROUP BY n.node_id) x`
            )
          case "average_faithfulness":
          case "average_relevance":
          case "engagement_faithfulness":
          case "engagement_relevance":
          case "total_guardrail_triggers":
          case "guardrail_triggers_timeseries":
          case "guardrail_severity_timeseries":
            return Effect.succeed(0)
        }
      }

      /** The metric over the filter's set as a number; no accounts (or no interactions) is 0. */
      const value = (metric: MetricId, filter: MetricFilter) =>
        (filter.accountIds.length === 0 ? Effect.succeed(0) : compute(metric, filter)).pipe(Effect.orDie)

      /** The metric's value and unit. */
      const scalarMetric = (metric: MetricId, filter: MetricFilter) =>
        Effect.map(value(metric, filter), (value) => new ScalarMetric({ value, unit: metricUnits[metric] }))

      /**
       * The bins of width `widthMs` (bin `k` starts at `k·widthMs` epoch ms) holding at least one
       * interaction of the set, ascending: a metric over an empty bin is 0 without asking.
       */
      const occupiedBins = (filter: MetricFilter, widthMs: number) =>
        filter.accountIds.length === 0 ? Effect.succeed<ReadonlyArray<number>>([]) : sql<{ readonly bin: unknown }>`SELECT ${
          sql.literal(`i.start_ms / ${Math.trunc(widthMs)}`)
        } AS bin FROM application_interactions i WHERE ${where(filter)} GROUP BY ${
          sql.literal(`i.start_ms / ${Math.trunc(widthMs)}`)
        } ORDER BY bin`.pipe(Effect.map((rows) => rows.map((row) => Number(row.bin))), Effect.orDie)

      /** The distinct variant ids of the set, ascending by code unit (the same on every database). */
      const variantsOf = (filter: MetricFilter) =>
        filter.accountIds.length === 0 ? Effect.succeed<ReadonlyArray<string>>([]) : sql<{ readonly id: string }>`SELECT DISTINCT i.application_variant_id AS id FROM application_interactions i WHERE ${
          where(filter)
        }`.pipe(Effect.map((rows) => rows.map((row) => row.id).sort()), Effect.orDie)

      /** The distinct node ids of the set's node latencies, ascending by code unit. */
      const nodesOf = (filter: MetricFilter) =>
        filter.accountIds.length === 0 ? Effect.succeed<ReadonlyArray<string>>([]) : sql<{ readonly id: string }>`SELECT DISTINCT n.node_id AS id FROM application_interactions i JOIN application_interaction_nodes n ON n.interaction_id = i.id WHERE ${
          where(filter)
        }`.pipe(Effect.map((rows) => rows.map((row) => row.id).sort()), Effect.orDie)

      return { scalarMetric, value, occupiedBins, variantsOf, nodesOf } as const
    })
  }
) {}
