import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const span = {
    id: "span-2",
    trace_id: "trace-2",
    name: "answer",
    type: "COMPLETION" as const,
    start_timestamp: "2026-12-07T12:00:00.000Z",
    input: { question: "What is a trace?" }
  }
  // at its start, then at its end: the same id, replaced whole
  yield* platform.spans.upsertBatch({ payload: { items: [span] } })
  yield* platform.spans.upsertBatch({
    payload: {
      items: [{ ...span, end_timestamp: "2026-12-07T12:00:00.800Z", status: "SUCCESS", output: { answer: "The spans of one request" } }]
    }
  })
  const found = yield* platform.spans.search({ urlParams: { limit: 10 }, payload: { trace_ids: ["trace-2"], search_texts: ["one request"] } })
  const stored = yield* platform.spans.get({ path: { span_id: "span-2" } })
  yield* Console.log(found.items.map((each) => [each.id, each.end_timestamp]), stored.output)
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
