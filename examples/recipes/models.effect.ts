import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const { accountId } = yield* PlatformClientConfig
  const model = yield* platform.models.create({
    payload: { name: "echo", model_type: "CHAT_COMPLETION", account_id: accountId! }
  })
  const deployment = yield* platform.models.createDeployment({
    path: { model_instance_id: model.id },
    payload: { name: "local", model_creation_parameters: { provider: "builtin" } }
  })
  const reply = yield* platform.inference.chatCompletions({
    path: { model_deployment_id: deployment.id },
    payload: { chat_history: [], prompt: "Hello!" }
  })
  // a v5 managed model: `deploying` now, `ready` once its (simulated) deployment ends
  const managed = yield* platform.modelsV5.create({
    payload: { name: "llama-chat", vendor_configuration: { model: "llama-3-8b" } }
  })
  yield* Console.log(deployment.status, reply.completions[0]?.[0], managed.status)
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
