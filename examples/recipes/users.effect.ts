import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const me = yield* platform.users.info()
  const { account_id } = yield* platform.users.createAccount({ payload: { account_name: "Research" } })
  const again = yield* platform.users.get({ path: { user_id: me.id } })
  yield* Console.log(me.id, account_id, again.access_profiles.map((profile) => `${profile.account.name}: ${profile.role}`))
})

// PLATFORM_BASE_URL and PLATFORM_API_KEY from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
