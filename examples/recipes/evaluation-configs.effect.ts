import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const account_id = (yield* PlatformClientConfig).accountId!
  const question = yield* platform.questions.create({
    payload: { type: "free_text", title: "Accurate", prompt: "Is it accurate?", account_id }
  })
  const set = yield* platform.questionSets.create({
    payload: { account_id, name: "Quality", question_ids: [question.id] }
  })
  const config = yield* platform.evaluationConfigs.create({
    payload: {
      evaluation_type: "studio", question_set_id: set.id, account_id,
      auto_evaluation_model: "gpt-4o-mini", auto_evaluation_parameters: { temperature: 0.2 }
    }
  })
  const again = yield* platform.evaluationConfigs.get({ path: { evaluation_config_id: config.id } })
  const page = yield* platform.evaluationConfigs.list({ urlParams: { account_id } })
  yield* Console.log(again.auto_evaluation_parameters, page.items.some((item) => item.id === config.id))
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
