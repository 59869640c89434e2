import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const account_id = (yield* PlatformClientConfig).accountId!
  const helpful = yield* platform.questions.create({
    payload: {
      type: "categorical", title: "Helpful", prompt: "Did the answer solve the problem?", account_id,
      choices: [{ label: "Yes", value: "yes" }, { label: "No", value: "no" }]
    }
  })
  yield* platform.questions.create({
    payload: {
      type: "rating", title: "Tone", prompt: "How friendly was the answer?", account_id,
      ratingOptions: { minLabel: "curt", maxLabel: "warm", scaleSteps: 5 }
    }
  })
  const page = yield* platform.questions.list({ urlParams: { limit: 10 } })
  yield* Console.log(helpful.choices, page.items.map((item) => `${item.type} ${item.title}`))
  // the same questions through v5: `question_type`, `name`, one `configuration`
  const accurate = yield* platform.questionsV5.create({
    payload: { question_type: "categorical", name: "Accurate", prompt: "Is every fact right?", configuration: { choices: ["yes", "no"] } }
  })
  const asV4 = yield* platform.questions.get({ path: { question_id: accurate.id } })
  yield* Console.log(accurate.configuration, asV4.choices)
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
