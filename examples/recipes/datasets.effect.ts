import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const dataset = yield* platform.datasets.create({
    payload: { name: "Support questions", tags: ["support"], data: [{ question: "How do I reset my password?" }] }
  })
  yield* platform.datasets.batchCreateItems({
    payload: { dataset_id: dataset.id, data: [{ question: "Where is my invoice?" }, { question: "Can I change my plan?" }] }
  })
  const now = yield* platform.datasets.listItems({ urlParams: { dataset_id: dataset.id, sort_order: "asc" } })
  const first = yield* platform.datasets.listItems({ urlParams: { dataset_id: dataset.id, version: 1 } })
  const read = yield* platform.datasets.get({ path: { dataset_id: dataset.id }, urlParams: {} })
  yield* Console.log(read.current_version_num, now.items.map((item) => item.data.question), first.total)
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
