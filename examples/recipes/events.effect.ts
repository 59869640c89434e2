import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const task_id = "trip-1"
  const first = yield* platform.events.append({
    payload: { task_id, agent_id: "planner", content: { type: "text", author: "user", content: "Plan a trip" } }
  })
  yield* platform.events.append({ payload: { task_id, agent_id: "booker", content: { type: "data", data: { seats: 2 } } } })
  yield* platform.events.append({ payload: { task_id, agent_id: "planner", content: { type: "text", content: "Day 1: Lisbon" } } })
  const all = yield* platform.events.list({ urlParams: { task_id, agent_id: "planner" } })
  const after = yield* platform.events.list({ urlParams: { task_id, agent_id: "planner", last_processed_event_id: first.id } })
  const event = yield* platform.events.get({ path: { event_id: first.id } })
  yield* Console.log(all.map((each) => each.sequence_id), after.map((each) => each.sequence_id), event.content)
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
