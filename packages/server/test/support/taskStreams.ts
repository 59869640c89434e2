/**
 * A task's stream across server processes (docs/agent-tasks.md "Streams"): a subscriber on one
 * instance, the writes through another. Used by the two-process suites on SQLite and PostgreSQL.
 */
import { assert } from "@effect/vitest"
import { type Client, makeStreams } from "@platform-kit/client"
import { Array as Arr, Chunk, Deferred, Effect, Fiber, Stream } from "effect"
import { serverKey } from "./processes.js"

/**
 * Registers an agent and a task through `writer`, subscribes to the task's stream on the server
 * at `watchedUrl`, writes 30 messages through `writer` (10 at a time) and completes the task:
 * the subscriber sees every message once, numbered 1..30 in the order they were written, then the
 * final `task_updated`, and its stream ends.
 */
export const assertStreamAcrossProcesses = (writer: Client, watchedUrl: string, name: string) =>
  Effect.gen(function*() {
    const agent = yield* writer.agents.register({
      payload: { name, description: "watched across processes", acp_url: "http://127.0.0.1:9", acp_type: "sync" }
    })
    const made = yield* writer.agents.rpc({ path: { agent_id: agent.id }, payload: { method: "task/create", params: { name } } })
    const taskId = (made.result as { readonly id: string }).id
    const streams = yield* makeStreams({ apiKey: serverKey, baseUrl: watchedUrl })
    const connected = yield* Deferred.make<void>()
    const watching = yield* streams.taskEvents(taskId).pipe(
      Stream.tap((frame) => (frame.event.type === "connected" ? Deferred.succeed(connected, undefined) : Effect.void)),
      Stream.runCollect,
      Effect.fork
    )
    yield* Deferred.await(connected)
    const written = yield* Effect.forEach(
      Arr.makeBy(30, (i) => i),
      (i) => writer.messages.create({ payload: { task_id: taskId, content: { type: "text", author: "agent", content: `line ${i}` } } }),
      { concurrency: 10 }
    )
    yield* writer.tasks.complete({ path: { task_id: taskId }, payload: {} })
    const frames = Chunk.toArray(yield* Fiber.join(watching).pipe(Effect.timeout("30 seconds")))
    assert.deepStrictEqual(frames.map((frame) => frame.id), [undefined, ...Arr.makeBy(31, (i) => i + 1)])
    const messages = frames.slice(1, 31).map((frame) => (frame.event as { readonly parent_task_message: { readonly id: string } }).parent_task_message.id)
    assert.deepStrictEqual([...messages].sort(), written.map((message) => message.id).sort())
    const last = frames.at(-1)!.event
    assert.strictEqual(last.type === "task_updated" ? last.task?.status : undefined, "COMPLETED")
  })
