import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const span = { trace_id: "trace-1", span_id: "span-1" }
  // the span assessed, stored first (as the SDK's tracer would have sent it)
  yield* platform.spans.upsertBatch({
    payload: { items: [{ id: "span-1", trace_id: "trace-1", name: "answer", start_timestamp: "2026-12-07T12:00:00.000Z" }] }
  })
  const rating = yield* platform.spanAssessments.create({ payload: { ...span, assessment_type: "rating", rating: 3 } })
  yield* platform.spanAssessments.create({ payload: { ...span, assessment_type: "comment", comment: "Cites the wrong page" } })
  const trace = yield* platform.spanAssessments.list({ urlParams: { trace_id: "trace-1" } })
  yield* platform.spanAssessments.update({
    path: { assessment_id: rating.assessment_id },
    payload: { rating: 4, comment: "Right once the page is fixed" }
  })
  const ratings = yield* platform.spanAssessments.list({ urlParams: { span_id: "span-1", assessment_type: "rating" } })
  yield* platform.spanAssessments.delete({ path: { assessment_id: rating.assessment_id } })
  yield* Console.log(trace.items.map((each) => each.assessment_type), ratings.items.map((each) => [each.rating, each.comment]))
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
