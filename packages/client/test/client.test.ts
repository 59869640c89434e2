import { assert, layer } from "@effect/vitest"
import { afterItems, PlatformClient, PlatformClientConfig, v4Items, v5Items } from "@platform-kit/client"
import { Accounts } from "@platform-kit/server"
import { TestServerLive } from "@platform-kit/server/testing"
import { Chunk, Effect, Layer, Redacted, Stream, TestClock } from "effect"

/** The client service configured for a fresh caller of the test server. */
const clientFor = (apiKey: string, accountId?: string) =>
  Effect.flatMap(PlatformClient, Effect.succeed).pipe(
    Effect.provide(
      PlatformClient.Default.pipe(Layer.provide(Layer.succeed(PlatformClientConfig, { apiKey, accountId })))
    )
  )

layer(TestServerLive)("PlatformClient", (it) => {
  it.effect("is a service configured by key and account; errors arrive as typed values", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* Effect.flatMap(Accounts, (a) => a.provisionUser())
      const client = yield* clientFor(Redacted.value(key), accountId)
      const group = yield* client.modelGroups.create({ payload: { name: "g", account_id: accountId } })
      assert.strictEqual(group.account_id, accountId)

      // the client checks a payload against the same Schema before sending it
      const invalid = yield* Effect.flip(client.modelGroups.create({ payload: { name: "", account_id: accountId } }))
      assert.strictEqual(invalid._tag, "ParseError")
      const missing = yield* Effect.flip(client.modelGroups.get({ path: { model_group_id: "missing" } }))
      assert.strictEqual(missing._tag, "NotFound")
      const forbidden = yield* Effect.flip(client.modelGroups.list({ urlParams: { account_id: "someone-else" } }))
      assert.strictEqual(forbidden._tag, "Forbidden")

      const stranger = yield* clientFor("pk_unknown")
      const unauthorized = yield* Effect.flip(stranger.modelGroups.list({ urlParams: {} }))
      assert.strictEqual(unauthorized._tag, "Unauthorized")
    }))

  it.effect("v4Items streams every item of a v4 list across pages", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* Effect.flatMap(Accounts, (a) => a.provisionUser())
      const client = yield* clientFor(Redacted.value(key))
      for (let i = 0; i < 7; i++) {
        yield* client.modelGroups.create({ payload: { name: `g${i}`, account_id: accountId } })
        yield* TestClock.adjust("1 millis")
      }
      const pages: Array<number> = []
      const names = yield* Stream.runCollect(
        v4Items((page) => {
          pages.push(page)
          return client.modelGroups.list({ urlParams: { page, limit: 3 } })
        })
      )
      assert.deepStrictEqual(Chunk.toArray(names).map((g) => g.name), ["g6", "g5", "g4", "g3", "g2", "g1", "g0"])
      assert.deepStrictEqual(pages, [1, 2, 3])
    }))
})


layer(TestServerLive)("v5 streams", (it) => {
  it.effect("v5Items follows the cursor over a whole v5 list, in the order asked", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* Effect.flatMap(Accounts, (a) => a.provisionUser())
      const client = yield* clientFor(Redacted.value(key))
      const created: Array<string> = []
      for (let i = 0; i < 7; i++) {
        const evaluation = yield* client.evaluations.create({ payload: { name: `e${i}`, account_id: accountId }, urlParams: {} })
        created.push(evaluation.id)
        yield* TestClock.adjust("1 millis")
      }
      const requests: Array<string | undefined> = []
      const ids = yield* Stream.runCollect(
        v5Items((starting_after) => {
          requests.push(starting_after)
          return client.evaluations.list({
            urlParams: { limit: 3, sort_order: "asc", ...(starting_after ? { starting_after } : {}) }
          })
        })
      )
      assert.deepStrictEqual(Chunk.toArray(ids).map((e) => e.id), created)
      assert.strictEqual(requests.length, 3)
      assert.isUndefined(requests[0])
    }))
})

layer(TestServerLive)("streams over bare-array lists", (it) => {
  it.effect("afterItems follows /events after the last event seen until a short page", () =>
    Effect.gen(function*() {
      const { key } = yield* Effect.flatMap(Accounts, (a) => a.provisionUser())
      const client = yield* clientFor(Redacted.value(key))
      const task_id = "a1b2c3d4-0000-4000-8000-00000000000a"
      const agent_id = "a1b2c3d4-0000-4000-8000-00000000000b"
      const appended: Array<string> = []
      for (let i = 0; i < 5; i++) {
        const event = yield* client.events.append({ payload: { task_id, agent_id, content: { type: "text", content: `m${i}`, author: "agent" } } })
        appended.push(event.id)
      }
      const asked: Array<string | undefined> = []
      const events = yield* Stream.runCollect(
        afterItems((after) => {
          asked.push(after)
          return client.events.list({ urlParams: { task_id, agent_id, limit: 2, ...(after === undefined ? {} : { last_processed_event_id: after }) } })
        }, 2)
      )
      assert.deepStrictEqual(Chunk.toArray(events).map((event) => event.id), appended)
      assert.deepStrictEqual(asked, [undefined, appended[1], appended[3]])
    }))
})

