/**
 * The scalar metrics of an application, each one SQL query (two for percentiles: the count, then the
 * value at the nearest rank) over the recorded interactions of one application spec. Portable SQL
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
  execution_average_latency_per_node: "ms"
}

const DAY_MS = 86_400_000

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
        }
      }

      /** The metric's value and unit; no accounts (or no interactions) is 0. */
      const scalarMetric = (metric: MetricId, filter: MetricFilter) =>
        (filter.accountIds.length === 0 ? Effect.succeed(0) : compute(metric, filter)).pipe(
          Effect.map((value) => new ScalarMetric({ value, unit: metricUnits[metric] })),
          Effect.orDie
        )

      return { scalarMetric } as const
    })
  }
) {}
