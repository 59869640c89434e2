/**
 * The fan-out of task streams (agent-tasks/streams.ts) below HTTP: one tail per process and task
 * writing to each subscriber's body, subscribers leaving when their client goes, the frames a
 * late or reconnecting subscriber is sent (each once, in order), the end at a final status, and
 * the trim of a task's oldest frames.
 */
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { completeContent } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import type { Readable } from "node:stream"
import { keptFrames, sseFrame, TaskStreams, taskFrame } from "../src/agent-tasks/streams.js"
import { TasksRepo } from "../src/agent-tasks/tasks/TasksRepo.js"
import { Ids } from "../src/platform/Ids.js"
import { DatabaseTest, eventually } from "../src/testing.js"

const account = "acct-fanout"

const newTask = (id: string) =>
  Effect.flatMap(TasksRepo, (tasks) =>
    tasks.create({
      id,
      name: id,
      status: "RUNNING",
      status_reason: "Task created",
      params: null,
      task_metadata: null,
      created_at: "2026-11-26T00:00:00.000Z",
      updated_at: "2026-11-26T00:00:00.000Z",
      cleaned_at: null,
      account_id: account,
      agent_id: "agent-1"
    }))

const opening = sseFrame(0, "{\"type\":\"connected\"}")

/** What a body has been sent so far, as text, read as it comes. */
const reader = (body: Readable) => {
  const state = { text: "", ended: false }
  body.setEncoding("utf8")
  body.on("data", (chunk: string) => (state.text += chunk))
  body.on("end", () => (state.ended = true))
  return state
}

/** The `id:` of each frame of a body's text, in order. */
const ids = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]))

const message = (n: number) => ({ type: "full" as const, content: completeContent({ type: "text", author: "agent", content: `m${n}` }), parent_task_message: null })

/** Passes once `check` does (tried by `eventually`, for up to 10 s); after that, fails as `check` does. */
const soon = (check: () => void) =>
  Effect.flatMap(
    eventually(Effect.sync(Option.liftThrowable(check)), 10_000),
    Option.match({ onNone: () => Effect.sync(check), onSome: () => Effect.void })
  )

layer(Layer.mergeAll(TaskStreams.Default, TasksRepo.Default).pipe(Layer.provide(Ids.Live), Layer.provideMerge(DatabaseTest)), { timeout: 60_000, excludeTestServices: true })("task stream fan-out", (it) => {
  it.effect("one tail serves every subscriber of a task; each leaves when its body is destroyed, and the tail with the last", () =>
    Effect.gen(function*() {
      const streams = yield* TaskStreams
      const task = yield* newTask("task-fanout-1")
      const ref = { id: task.id, account_id: account }
      const bodies = yield* Effect.forEach([1, 2, 3], () => streams.follow(account, task.id, undefined, opening))
      const read = bodies.map(reader)
      assert.strictEqual(streams.followers(account, task.id), 3)
      for (let n = 1; n <= 5; n++) yield* streams.publish(ref, message(n))
      yield* soon(() => assert.deepStrictEqual(read.map((r) => ids(r.text)), [[1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5]]))
      for (const r of read) assert.isTrue(r.text.startsWith("data: {\"type\":\"connected\"}\n\n"))

      bodies[0]!.destroy()
      yield* soon(() => assert.strictEqual(streams.followers(account, task.id), 2))
      yield* streams.publish(ref, message(6))
      yield* soon(() => assert.deepStrictEqual(read.slice(1).map((r) => ids(r.text).at(-1)), [6, 6]))
      assert.deepStrictEqual(ids(read[0]!.text), [1, 2, 3, 4, 5])

      bodies[1]!.destroy()
      bodies[2]!.destroy()
      yield* soon(() => assert.strictEqual(streams.followers(account, task.id), 0))
      // with no tail, writes go on; a new subscriber replays them from the table
      yield* streams.publish(ref, message(7))
      const again = reader(yield* streams.follow(account, task.id, 5, opening))
      yield* soon(() => assert.deepStrictEqual(ids(again.text), [6, 7]))
      yield* streams.publish(ref, message(8))
      yield* soon(() => assert.deepStrictEqual(ids(again.text), [6, 7, 8]))
    }))

  it.effect("a subscriber joining a busy stream with Last-Event-ID gets every frame after it once, in order; a final frame ends every body", () =>
    Effect.gen(function*() {
      const streams = yield* TaskStreams
      const sql = yield* SqlClient.SqlClient
      const task = yield* newTask("task-fanout-2")
      const ref = { id: task.id, account_id: account }
      const first = reader(yield* streams.follow(account, task.id, undefined, opening))
      const writing = yield* Effect.fork(Effect.forEach(Array.from({ length: 60 }, (_, i) => i + 1), (n) => streams.publish(ref, message(n)), { discard: true }))
      yield* soon(() => assert.isAtLeast(ids(first.text).length, 10))
      const late = reader(yield* streams.follow(account, task.id, 3, opening))
      yield* Effect.fromFiber(writing)
      yield* sql`UPDATE agent_tasks SET status = 'COMPLETED' WHERE id = ${task.id}`
      yield* streams.publish(ref, taskFrame({ ...task, status: "COMPLETED" }))
      const all = Array.from({ length: 61 }, (_, i) => i + 1)
      yield* soon(() => {
        assert.isTrue(first.ended && late.ended)
        assert.deepStrictEqual(ids(first.text), all)
        assert.deepStrictEqual(ids(late.text), all.slice(3))
      })
      yield* soon(() => assert.strictEqual(streams.followers(account, task.id), 0))
    }))

  it.effect(`a task's stream keeps its last ${keptFrames.toLocaleString("en")} frames`, () =>
    Effect.gen(function*() {
      const streams = yield* TaskStreams
      const sql = yield* SqlClient.SqlClient
      const task = yield* newTask("task-fanout-3")
      const ref = { id: task.id, account_id: account }
      const total = keptFrames + 1_000
      // the frames before the last as written by earlier publishes (in bulk: quicker), then the last published
      const rows = Array.from({ length: total - 1 }, (_, i) => ({ account_id: account, task_id: task.id, seq: i + 1, created_at: task.created_at, frame: "{}" }))
      for (let i = 0; i < rows.length; i += 2_000) yield* sql`INSERT INTO task_stream_frames ${sql.insert(rows.slice(i, i + 2_000))}`
      yield* sql`UPDATE agent_tasks SET stream_seq = ${total - 1} WHERE id = ${task.id}`
      yield* streams.publish(ref, message(total))
      const [kept] = yield* sql<{ n: number; low: number; high: number }>`SELECT COUNT(*) AS n, MIN(seq) AS low, MAX(seq) AS high FROM task_stream_frames WHERE task_id = ${task.id}`
      assert.deepStrictEqual([Number(kept!.n), Number(kept!.low), Number(kept!.high)], [keptFrames, total - keptFrames + 1, total])
    }))
})
