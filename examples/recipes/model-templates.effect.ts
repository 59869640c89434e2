import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const account_id = (yield* PlatformClientConfig).accountId!
  const template = yield* platform.modelTemplates.create({
    payload: {
      account_id, name: "vllm-chat", endpoint_type: "STREAMING", model_type: "CHAT_COMPLETION",
      vendor_configuration: { bundle_config: { image: "vllm", registry: "docker.io", tag: "0.5" } },
      model_creation_parameters_schema: {
        parameters: [{ name: "max_model_len", type: "int", required: true, description: "context length" }]
      }
    }
  })
  const model = yield* platform.models.create({
    payload: { account_id, name: "my-chat", model_template_id: template.id, model_creation_parameters: { max_model_len: 8192 } }
  })
  const page = yield* platform.modelTemplates.list({ urlParams: { account_id } })
  yield* Console.log(model.model_type, model.model_vendor, page.items.some((item) => item.id === template.id))
  yield* platform.models.delete({ path: { model_id: model.id } })
  yield* platform.modelTemplates.delete({ path: { model_template_id: template.id } })
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
