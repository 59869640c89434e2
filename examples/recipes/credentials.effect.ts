import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer, Redacted } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const credential = yield* platform.credentials.create({
    payload: { name: "github-token", type: "key", payload: Redacted.make("ghp_example"), description: "CI token" }
  })
  const byName = yield* platform.credentials.getByName({ path: { credential_name: "github-token" }, urlParams: {} })
  const secret = yield* platform.credentials.secret({ path: { credential_id: credential.id } })
  yield* platform.credentials.update({ path: { credential_id: credential.id }, payload: { payload: Redacted.make("ghp_rotated") } })
  const rotated = yield* platform.credentials.secretByName({ path: { credential_name: "github-token" }, urlParams: {} })
  yield* platform.credentials.delete({ path: { credential_id: credential.id } })
  yield* Console.log(byName.description, Redacted.value(secret.result), Redacted.value(rotated.result))
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
