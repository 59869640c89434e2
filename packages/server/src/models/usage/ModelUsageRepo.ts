/**
 * The executions of models (`model_usage`, migration 0029; docs/models.md "Usage"): one row per
 * call, recorded after it ends; read as a deployment's usage over a time window in equal chunks.
 *
 * Recording is off the request path: rows wait in memory and are written together, every second or
 * at 4,096 rows, 256 rows a statement, in one commit (a commit per execution cost the execution
 * path a fifth of its throughput; a commit every 100 ms still held the event loop a tenth of the
 * time on a disk whose fsync takes 10 ms: docs/benchmarks.md "A model call"); a read of the
 * statistics writes what waits first, and the service's end (the server's shutdown) writes the
 * rest.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Schedule } from "effect"
import type { Execution } from "../inference/metered.js"

export interface UsageRow extends Execution {
  readonly id: string
  readonly account_id: string
  readonly model_deployment_id: string | null
  readonly model_instance_id: string | null
  readonly caller_id: string
  readonly caller_type: string
}

/** Whose usage: a deployment's, a model's (every deployment of it), or a group's (every model in it now). */
export type UsageOf =
  | { readonly model_deployment_id: string }
  | { readonly model_instance_id: string }
  | { readonly model_group_id: string }

/** One chunk of a window: its start and end (epoch ms) and what ran in it. */
export interface UsageChunk {
  readonly from_ms: number
  readonly to_ms: number
  readonly requests: number
  readonly errors: number
  readonly prompt_tokens: number
  readonly response_tokens: number
  readonly total_latency_ms: number
}

/** Rows written in one statement at most (16 columns each: within either database's bound on parameters). */
const BATCH = 256

/** Rows that, waiting, are written at once rather than at the next second. */
const WAITING_AT_MOST = 4_096

export class ModelUsageRepo extends Effect.Service<ModelUsageRepo>()("@platform-kit/server/ModelUsageRepo", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const waiting: Array<UsageRow> = []
    const writing = yield* Effect.makeSemaphore(1)

    /** Writes what waits, in order, `BATCH` rows a statement, in one transaction. A failure is logged, never a caller's. */
    const flush: Effect.Effect<void> = writing.withPermits(1)(Effect.suspend(() => {
      const rows = waiting.splice(0).map((row) => ({ ...row, streamed: row.streamed ? 1 : 0 }))
      if (rows.length === 0) return Effect.void
      return sql.withTransaction(Effect.forEach(
        Array.from({ length: Math.ceil(rows.length / BATCH) }, (_, i) => rows.slice(i * BATCH, (i + 1) * BATCH)),
        (batch) => sql`INSERT INTO model_usage ${sql.insert(batch)}`,
        { discard: true }
      ))
    })).pipe(Effect.catchAllCause((cause) => Effect.logWarning("Recording model executions' usage failed", cause)))

    // on wall time, whatever clock the server's callers run on (a test's TestClock)
    yield* Effect.forkScoped(Effect.repeat(flush, Schedule.spaced("1 second")).pipe(Effect.withClock(Clock.make())))
    yield* Effect.addFinalizer(() => flush)

    /** Records `row` (written within a second, or at once when `WAITING_AT_MOST` rows wait). */
    const record = (row: UsageRow): Effect.Effect<void> =>
      Effect.suspend(() => {
        waiting.push(row)
        return waiting.length === WAITING_AT_MOST ? Effect.asVoid(Effect.forkDaemon(flush)) : Effect.void
      })

    /**
     * The executions of a deployment (or of every deployment of a model) started in `[fromMs, toMs)`, in `chunks` chunks
     * of (as nearly as whole milliseconds allow) equal length, oldest first; empty chunks too.
     */
    const chunksOf = (
      of: UsageOf,
      fromMs: number,
      toMs: number,
      chunks: number
    ) =>
      Effect.gen(function*() {
        yield* flush
        const span = toMs - fromMs
        // integer division on both databases: the driver may bind a JavaScript number as a float
        const rows = yield* sql<{
          chunk: number
          requests: number
          errors: number
          prompt_tokens: number
          response_tokens: number
          total_latency_ms: number
        }>`SELECT u.chunk AS chunk, COUNT(*) AS requests,
            SUM(CASE WHEN u.status_code = 200 THEN 0 ELSE 1 END) AS errors,
            SUM(u.prompt_tokens) AS prompt_tokens, SUM(u.response_tokens) AS response_tokens,
            SUM(u.latency_ms) AS total_latency_ms
          FROM (
            SELECT (started_ms - CAST(${fromMs} AS BIGINT)) * CAST(${chunks} AS BIGINT) / CAST(${span} AS BIGINT) AS chunk, status_code, prompt_tokens, response_tokens, latency_ms
            FROM model_usage
            WHERE ${
          "model_deployment_id" in of
            ? sql`model_deployment_id = ${of.model_deployment_id}`
            : "model_instance_id" in of
            ? sql`model_instance_id = ${of.model_instance_id}`
            : sql`model_instance_id IN (SELECT id FROM model_instances WHERE model_group_id = ${of.model_group_id})`
        } AND started_ms >= ${fromMs} AND started_ms < ${toMs}
          ) u
          GROUP BY u.chunk`
        const byChunk = new Map(rows.map((row) => [Number(row.chunk), row]))
        return Array.from({ length: chunks }, (_, i): UsageChunk => {
          const row = byChunk.get(i)
          return {
            from_ms: fromMs + Math.ceil((span * i) / chunks),
            to_ms: fromMs + Math.ceil((span * (i + 1)) / chunks),
            requests: Number(row?.requests ?? 0),
            errors: Number(row?.errors ?? 0),
            prompt_tokens: Number(row?.prompt_tokens ?? 0),
            response_tokens: Number(row?.response_tokens ?? 0),
            total_latency_ms: Number(row?.total_latency_ms ?? 0)
          }
        })
      }).pipe(Effect.orDie)

    return { record, flush, chunksOf } as const
  })
}) {}
