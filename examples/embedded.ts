/**
 * Example 1: the whole API embedded in an Effect program, on in-memory SQLite, called through the
 * derived typed client — no port is opened.
 *
 *   npx tsx examples/embedded.ts
 */
import { NodeRuntime } from "@effect/platform-node"
import { makeClient } from "@platform-kit/client"
import { Accounts, DatabaseMemory, Ids, InProcessHttpClient } from "@platform-kit/server"
import { Console, Effect, Layer, Redacted } from "effect"

export const program = Effect.gen(function*() {
  // a caller: one account, one user, one key
  const { accountId, key } = yield* Effect.flatMap(Accounts, (accounts) => accounts.provisionUser())
  const client = yield* makeClient({ apiKey: key })

  const group = yield* client.modelGroups.create({ payload: { name: "llama family", account_id: accountId } })
  const again = yield* client.modelGroups.get({ path: { model_group_id: group.id } })
  const page = yield* client.modelGroups.list({ urlParams: {} })
  const missing = yield* Effect.flip(client.modelGroups.get({ path: { model_group_id: "nope" } }))

  yield* Console.log(`created model group ${group.id} in account ${accountId}; ${page.total_item_count} in the list`)
  return { accountId, key: Redacted.value(key), group, again, page, missing }
})

/** What the program needs: the in-process HTTP client over a fresh in-memory database. */
export const EmbeddedLive = Layer.mergeAll(InProcessHttpClient, Accounts.Default).pipe(
  Layer.provideMerge(Ids.Live),
  Layer.provideMerge(DatabaseMemory)
)

if (import.meta.url === `file://${process.argv[1]}`) {
  NodeRuntime.runMain(program.pipe(Effect.provide(EmbeddedLive)))
}
