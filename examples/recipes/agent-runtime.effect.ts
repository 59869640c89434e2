import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const created = yield* platform.agentRuntime.create({
    payload: { build_id: "build-1", agent_name: "echo", preview_label: "pr-7" }
  })
  const deployment = yield* platform.agentRuntime.get({ path: { deployment_id: created.id } }).pipe(
    Effect.delay("500 millis"),
    Effect.repeat({ until: (deployment) => deployment.status === "READY" })
  )
  const listed = yield* platform.agentRuntime.list({ urlParams: { agent_name: "echo" } })
  const deleted = yield* platform.agentRuntime.delete({ path: { deployment_id: deployment.id } })
  yield* Console.log(listed.items.map((each) => `${each.build_id} ${each.status}`), deleted.deploy_events.map((event) => event.reason))
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
