/**
 * Example 3: another service that uses the typed client against a running server.
 *
 *   PLATFORM_BASE_URL=http://127.0.0.1:8080 PLATFORM_API_KEY=pk_... PLATFORM_ACCOUNT_ID=... \
 *     npx tsx examples/service.ts
 */
import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig, v4Items } from "@platform-kit/client"
import { Console, Effect, Layer, Stream } from "effect"

export const program = Effect.gen(function*() {
  const client = yield* PlatformClient
  const { accountId } = yield* PlatformClientConfig
  if (accountId === undefined) return yield* Effect.dieMessage("set PLATFORM_ACCOUNT_ID")
  const created = yield* client.modelGroups.create({
    payload: { name: `from-service-${Date.now()}`, account_id: accountId }
  })
  // every model group, following the v4 pages
  const names = yield* Stream.runCollect(
    v4Items((page) => client.modelGroups.list({ urlParams: { page, limit: 2 } }))
  ).pipe(Effect.map((chunk) => Array.from(chunk, (group) => group.name)))
  yield* Console.log(JSON.stringify({ created: created.id, names }))
  return { created, names }
})

export const ServiceLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

if (import.meta.url === `file://${process.argv[1]}`) {
  NodeRuntime.runMain(program.pipe(Effect.provide(ServiceLive)))
}
