/**
 * Agent tasks embedded in an Effect program (the first way to use the kit): the API in-process
 * on in-memory SQLite, through the derived typed client; a task's live stream read as the
 * client's `Stream` over the in-process handler (its body a web stream there).
 */
import { assert, describe, it } from "@effect/vitest"
import { makeClient, makeStreams } from "@platform-kit/client"
import { Chunk, Effect, Fiber, Stream } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { EmbeddedLive } from "./support/embedded.js"

describe("agent tasks embedded in a program", () => {
  it.scoped("a task's stream read in-process: connected, each message as written, the end at cancel; a reconnect replays", () =>
    Effect.gen(function*() {
      const { key } = yield* Effect.flatMap(Accounts, (accounts) => accounts.provisionUser())
      const client = yield* makeClient({ apiKey: key })
      const streams = yield* makeStreams({ apiKey: key })
      const agent = yield* client.agents.register({ payload: { name: "embedded", description: "d", acp_url: "http://127.0.0.1:9", acp_type: "sync" } })
      const created = yield* client.agents.rpc({ path: { agent_id: agent.id }, payload: { method: "task/create", params: { name: "in-process" } } })
      const taskId = (created.result as { readonly id: string }).id
      const connected = yield* Effect.makeLatch(false)
      const reading = yield* streams.taskEvents(taskId).pipe(
        Stream.tap((frame) => frame.event.type === "connected" ? connected.open : Effect.void),
        Stream.runCollect,
        Effect.fork
      )
      yield* connected.await
      yield* client.messages.create({ payload: { task_id: taskId, content: { type: "text", author: "agent", content: "one" } } })
      // a text content's `type` may be left out, as the API allows: the client's types say so too
      const untagged = yield* client.messages.create({ payload: { task_id: taskId, content: { author: "agent", content: "two" } } })
      assert.deepInclude(untagged.content, { type: "text", content: "two", format: "plain" })
      yield* client.tasks.cancel({ path: { task_id: taskId }, payload: {} })
      const frames = Chunk.toArray(yield* Fiber.join(reading))
      assert.deepStrictEqual(frames.map((frame) => [frame.id, frame.event.type]), [[undefined, "connected"], [1, "full"], [2, "full"], [3, "task_updated"]])
      const last = frames.at(-1)!.event
      assert.strictEqual(last.type === "task_updated" ? last.task?.status : undefined, "CANCELED")

      const replayed = Chunk.toArray(yield* Stream.runCollect(streams.taskEvents(taskId, 1)))
      assert.deepStrictEqual(replayed.map((frame) => frame.id), [undefined, 2, 3])
    }).pipe(Effect.provide(EmbeddedLive)))
})
