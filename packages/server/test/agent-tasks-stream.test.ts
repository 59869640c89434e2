/**
 * A task's live stream (`GET /tasks/{id}/stream`, docs/agent-tasks.md "Streams"): the frames a
 * subscriber sees as messages are written and the task moves, its end at a final status, the
 * replay a reconnect gets with `Last-Event-ID`, and other accounts.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { provision, request, TestServerLive } from "../src/testing.js"

interface SseFrame {
  readonly id: number | undefined
  readonly data: any
}

/** The frames of an event stream's text (comments, `:ping`, left out). */
const parse = (text: string): Array<SseFrame> =>
  text.split("\n\n").filter((block) => block.includes("data:")).map((block) => {
    const lines = block.split("\n")
    const id = lines.find((line) => line.startsWith("id: "))?.slice(4)
    const data = lines.find((line) => line.startsWith("data: "))!.slice(6)
    return { id: id === undefined ? undefined : Number(id), data: JSON.parse(data) }
  })

/**
 * Opens the stream of `path` and reads it in a fiber until it ends; `ready` once the first frame
 * (`connected`, sent once the subscription is made) has come.
 */
const open = (key: string, path: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.get(path).pipe(HttpClientRequest.setHeaders({ "x-api-key": key, ...headers })))
    assert.strictEqual(response.status, 200)
    assert.match(response.headers["content-type"]!, /text\/event-stream/)
    let text = ""
    const connected = yield* Effect.makeLatch(false)
    const reading = yield* response.stream.pipe(
      Stream.decodeText(),
      Stream.runForEach((chunk) =>
        Effect.suspend(() => {
          text += chunk
          return text.includes("\n\n") ? connected.open : Effect.void
        })
      ),
      Effect.orDie,
      Effect.as(undefined as void),
      Effect.fork
    )
    yield* connected.await
    return { done: Effect.map(Fiber.join(reading), () => parse(text)) }
  })

const setup = Effect.gen(function*() {
  const { key } = yield* provision()
  const agent = (yield* request("POST", "/agents/register", {
    key,
    body: { name: "streamer", description: "d", acp_url: "http://127.0.0.1:9", acp_type: "sync" }
  })).body
  const task = (yield* request("POST", `/agents/${agent.id}/rpc`, { key, body: { method: "task/create", params: { name: "live" } } })).body.result
  return { key, agent, task }
})

const say = (key: string, taskId: string, content: string, streaming_status?: string) =>
  request("POST", "/messages", { key, body: { task_id: taskId, content: { type: "text", author: "agent", content }, streaming_status } })

layer(TestServerLive, { timeout: 60_000 })("agent task streams", (it) => {
  it.scoped("a subscriber sees connected, each message as written, the task's changes, and the end at a final status", () =>
    Effect.gen(function*() {
      const { key, task } = yield* setup
      const first = yield* open(key, `/tasks/${task.id}/stream`)
      const second = yield* open(key, "/tasks/name/live/stream")
      const begun = (yield* say(key, task.id, "thinking", "IN_PROGRESS")).body
      yield* request("PUT", `/messages/${begun.id}`, { key, body: { task_id: task.id, content: { author: "agent", content: "done thinking" }, streaming_status: "DONE" } })
      yield* request("PUT", `/tasks/${task.id}`, { key, body: { task_metadata: { stage: 2 } } })
      yield* request("POST", `/tasks/${task.id}/complete`, { key, body: { reason: "finished" } })
      const frames = yield* first.done
      assert.deepStrictEqual(frames.map((frame) => frame.data.type), ["connected", "start", "full", "task_updated", "task_updated"])
      assert.deepStrictEqual(frames[0], { id: undefined, data: { type: "connected", taskId: task.id } })
      assert.deepStrictEqual(frames.slice(1).map((frame) => frame.id), [1, 2, 3, 4])
      assert.strictEqual(frames[1]!.data.parent_task_message.id, begun.id)
      assert.strictEqual(frames[1]!.data.parent_task_message.streaming_status, "IN_PROGRESS")
      assert.strictEqual(frames[2]!.data.content.content, "done thinking")
      assert.strictEqual(frames[2]!.data.parent_task_message.streaming_status, "DONE")
      assert.deepStrictEqual(frames[3]!.data.task.task_metadata, { stage: 2 })
      assert.strictEqual(frames[4]!.data.task.status, "COMPLETED")
      // a second subscriber saw the same frames, each once
      assert.deepStrictEqual(yield* second.done, frames)
    }))

  it.scoped("a reconnect with Last-Event-ID is sent what it missed first, then what follows; a final task is replayed, then ends", () =>
    Effect.gen(function*() {
      const { key, task } = yield* setup
      const watching = yield* open(key, `/tasks/${task.id}/stream`)
      for (const word of ["one", "two", "three"]) yield* say(key, task.id, word)
      // the client goes away after frame 1; it reconnects naming it
      const again = yield* open(key, `/tasks/${task.id}/stream`, { "last-event-id": "1" })
      yield* say(key, task.id, "four")
      yield* request("POST", `/tasks/${task.id}/cancel`, { key, body: {} })
      const resumed = yield* again.done
      assert.deepStrictEqual(resumed.map((frame) => frame.id), [undefined, 2, 3, 4, 5])
      assert.deepStrictEqual(resumed.slice(1, 4).map((frame) => frame.data.content.content), ["two", "three", "four"])
      assert.deepStrictEqual((yield* watching.done).map((frame) => frame.id), [undefined, 1, 2, 3, 4, 5])

      // the task is final: the whole stream, or what follows a frame, then the end
      const replay = yield* open(key, `/tasks/${task.id}/stream`)
      assert.deepStrictEqual((yield* replay.done).map((frame) => frame.id), [undefined, 1, 2, 3, 4, 5])
      const tail = yield* open(key, `/tasks/${task.id}/stream?last_event_id=3`)
      assert.deepStrictEqual((yield* tail.done).map((frame) => frame.id), [undefined, 4, 5])
    }))

  it.effect("another account's task streams are 404, by id and by name; a bad Last-Event-ID is a 422", () =>
    Effect.gen(function*() {
      const { key, task } = yield* setup
      const other = yield* provision()
      assert.strictEqual((yield* request("GET", `/tasks/${task.id}/stream`, { key: other.key })).status, 404)
      assert.strictEqual((yield* request("GET", "/tasks/name/live/stream", { key: other.key })).status, 404)
      assert.strictEqual((yield* request("GET", `/tasks/${task.id}/stream`)).status, 401)
      assert.strictEqual((yield* request("GET", `/tasks/${task.id}/stream?last_event_id=x`, { key })).status, 422)
    }))
})
