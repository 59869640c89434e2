/**
 * The usage statistics of a deployment or a model (docs/models.md "Usage"): the recorded
 * executions over `[start_date, end_date)` in `chunks` chunks, as the SDK's `ModelUsage`.
 */
import {
  ModelUsage,
  ModelUsageDataPoint,
  type ModelUsageQuery,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Clock, Effect } from "effect"
import { ModelUsageRepo, type UsageOf } from "./ModelUsageRepo.js"

const emptyWindow = (query: typeof ModelUsageQuery.Type) =>
  new ValidationError({
    detail: [
      new ValidationIssue({
        loc: ["query", "end_date"],
        msg: "end_date must be after start_date",
        type: "value_error",
        input: query.end_date?.toISOString()
      })
    ]
  })

/**
 * The usage of `of` (a deployment, every deployment of a model, or of the models of a group) created at `createdAt`: the
 * window defaults to `[createdAt, now)`, one chunk; a window given empty is a 422.
 */
export const usageStatistics = (
  of: UsageOf,
  createdAt: string,
  query: typeof ModelUsageQuery.Type
) =>
  Effect.gen(function*() {
    const fromMs = query.start_date?.getTime() ?? Date.parse(createdAt)
    const toMs = query.end_date?.getTime() ?? Math.max(yield* Clock.currentTimeMillis, fromMs + 1)
    if (toMs <= fromMs) return yield* Effect.fail(emptyWindow(query))
    const chunks = yield* Effect.flatMap(ModelUsageRepo, (repo) => repo.chunksOf(of, fromMs, toMs, query.chunks ?? 1))
    const data = chunks.map((chunk) =>
      new ModelUsageDataPoint({
        date: new Date(chunk.from_ms).toISOString(),
        prompt_tokens: chunk.prompt_tokens,
        response_tokens: chunk.response_tokens,
        summary_tokens: chunk.prompt_tokens + chunk.response_tokens,
        request_count: chunk.requests,
        error_count: chunk.errors,
        average_latency_ms: chunk.requests === 0 ? 0 : chunk.total_latency_ms / chunk.requests
      })
    )
    return new ModelUsage({ data, start_date: data[0]!.date, end_date: data[data.length - 1]!.date }, true)
  })
