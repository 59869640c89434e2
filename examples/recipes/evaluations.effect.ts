import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const evaluations = (yield* PlatformClient).evaluations
  const { id } = yield* evaluations.create({
    urlParams: {},
    payload: {
      name: "capitals", data: [{ answer: "Paris", expected: "Paris" }, { answer: "Milan", expected: "Rome" }],
      tasks: [{ task_type: "metric", alias: "score", configuration: { type: "f1", candidate: "item.answer", reference: "item.expected" } }]
    }
  })
  const evaluation = yield* evaluations.get({ path: { evaluation_id: id }, urlParams: {} }).pipe(
    Effect.delay("500 millis"),
    Effect.repeat({ until: (evaluation) => evaluation.status !== "running" })
  )
  const items = yield* evaluations.listItems({ urlParams: { evaluation_id: id, sort_order: "asc" } })
  yield* Console.log(evaluation.status, items.items.map((item) => item.data.score))
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
