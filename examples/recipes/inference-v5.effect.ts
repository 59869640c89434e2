import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const chat = yield* platform.openAiInference.chatCompletions({
    payload: { model: "builtin", messages: [{ role: "user", content: "Hello, kit!" }] }
  })
  const completion = yield* platform.openAiInference.completions({ payload: { model: "builtin", prompt: ["a b", "c d"] } })
  const generic = yield* platform.openAiInference.inference({ payload: { model: "builtin", args: { prompt: "as is" } } })
  const models = yield* platform.openAiInference.models({ urlParams: { model_vendor: "launch" } })
  yield* Console.log(chat.choices[0]?.message.content, completion.choices.map((c) => c.text), generic.response, models.items.length)
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
