import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const account_id = (yield* PlatformClientConfig).accountId!
  const { id } = yield* platform.applications.createDeployment({
    payload: { name: "app", endpoint: "https://example.org", application_variant_id: "v1", is_active: true, account_id }
  })
  const deployment = yield* platform.applications.getDeployment({ path: { application_deployment_id: id } }).pipe(
    Effect.delay("500 millis"),
    Effect.repeat({ until: (deployment) => deployment.status !== "PENDING" })
  )
  const spec = { application_spec_id: "app-spec" }
  const usage = { start_timestamp: new Date().toISOString(), duration_ms: 840, input_tokens: 120, output_tokens: 45 }
  yield* platform.applications.recordInteraction({ path: spec, payload: { application_variant_id: "v1", ...usage } })
  const tokens = yield* platform.applications.scalarMetric({ path: { ...spec, metric_id: "total_tokens" }, urlParams: {} })
  yield* Console.log(deployment.status, tokens.value, tokens.unit)
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
