/**
 * The live stream of a task (docs/agent-tasks.md "Streams"): every frame a task's subscribers
 * see is a row of `task_stream_frames`, numbered per task (gap-free: the task row counts them, and
 * its row lock orders writers on PostgreSQL as SQLite's single writer does). Subscribers read
 * through one tail per process and task: a fiber that reads the frames after the last it saw,
 * woken at once by a publish in this process and every 50 ms otherwise (what another process,
 * on the same SQLite file or PostgreSQL database, wrote), and hands them to every subscriber.
 * A reconnecting subscriber names the last frame it saw (`Last-Event-ID`) and is sent what
 * followed from the table first. Each frame's event is made once for all subscribers; the tail
 * also sends them a `:ping` after 15 s without a frame.
 */
import { SqlClient } from "@effect/sql"
import { TaskStreamEvent } from "@platform-kit/schema"
import type { TaskStatus } from "@platform-kit/schema"
import { Clock, Duration, Effect, Fiber, PubSub, Queue, Schema, Stream } from "effect"
import { nowIso } from "../platform/Ids.js"
import { messageOf, type StoredMessage } from "./MessagesRepo.js"
import { isFinal, type StoredTask, taskOf } from "./TasksRepo.js"

/**
 * A frame as sent: its number in the task's stream (0 for `connected`, which is not stored;
 * `ping` for a keep-alive), its server-sent event (`id:` and `data:` lines, as bytes, made once
 * for every subscriber), and whether it ends the stream.
 */
export interface Frame {
  readonly seq: number
  readonly bytes: Uint8Array
  readonly final: boolean
}

const utf8 = new TextEncoder()

/** The event of a frame: its `id:` (a stored frame's number) and its `data:`. */
export const sseFrame = (seq: number, json: string): Frame => ({
  seq,
  bytes: utf8.encode(`${seq > 0 ? `id: ${seq}\n` : ""}data: ${json}\n\n`),
  final: false
})

/** A keep-alive comment, sent to a task's subscribers after `pingInterval` without a frame. */
const ping: Frame = { seq: -1, bytes: utf8.encode(":ping\n\n"), final: false }
const pingInterval = 15_000

const encode = Schema.encodeSync(TaskStreamEvent)

/** The frame of a message written whole (`full`), or begun (`start`: still `IN_PROGRESS`). */
export const messageFrame = (message: StoredMessage): TaskStreamEvent => ({
  type: message.streaming_status === "IN_PROGRESS" ? "start" : "full",
  content: message.content,
  parent_task_message: messageOf(message)
})

/** The frame of a task as it is after a change. */
export const taskFrame = (task: StoredTask): TaskStreamEvent => ({ type: "task_updated", task: taskOf(task) })

/**
 * How often a tail reads frames another process wrote (or a transaction of this one committed
 * after its publish woke the tail). Measured on the wall clock whatever clock the program runs on
 * (a test's too): the database changes in real time.
 */
const pollInterval = Duration.millis(50)
const wallClock = Clock.make()

export class TaskStreams extends Effect.Service<TaskStreams>()("@platform-kit/server/TaskStreams", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const scope = yield* Effect.scope

    interface Tail {
      readonly frames: PubSub.PubSub<Frame>
      readonly wake: Queue.Queue<void>
      subscribers: number
      fiber: Fiber.RuntimeFiber<never> | undefined
    }
    const tails = new Map<string, Tail>()
    const keyOf = (accountId: string, taskId: string) => `${accountId}\u0000${taskId}`

    const rowsAfter = (accountId: string, taskId: string, after: number, limit: number) =>
      sql<{ seq: number; frame: string }>`SELECT seq, frame FROM task_stream_frames WHERE account_id = ${accountId} AND task_id = ${taskId} AND seq > ${after} ORDER BY seq LIMIT ${limit}`.pipe(
        Effect.map((rows) =>
          rows.map((row): Frame => {
            const parsed = JSON.parse(row.frame) as { readonly type?: string; readonly task?: { readonly status?: TaskStatus } | null }
            const status = parsed.type === "task_updated" ? parsed.task?.status : undefined
            return { ...sseFrame(Number(row.seq), row.frame), final: status !== undefined && isFinal(status) }
          })
        ),
        Effect.orDie
      )

    /** The frames of a task after `after`, in order (every one of them: a replay). */
    const after = (accountId: string, taskId: string, from: number) => rowsAfter(accountId, taskId, from, 100_000)

    /** The number of the task's last frame. */
    const lastSeq = (taskId: string) =>
      sql<{ stream_seq: number }>`SELECT stream_seq FROM agent_tasks WHERE id = ${taskId}`.pipe(
        Effect.map((rows) => Number(rows[0]?.stream_seq ?? 0)),
        Effect.orDie
      )

    /**
     * Appends `frame` to the task's stream (inside the caller's transaction, if any) and wakes
     * this process's subscribers of the task.
     */
    const publish = (task: { readonly id: string; readonly account_id: string }, frame: TaskStreamEvent) =>
      Effect.gen(function*() {
        const text = JSON.stringify(encode(frame))
        const created_at = yield* nowIso
        yield* sql.withTransaction(Effect.gen(function*() {
          const counted = yield* sql<{ stream_seq: number }>`UPDATE agent_tasks SET stream_seq = stream_seq + 1 WHERE id = ${task.id} RETURNING stream_seq`
          if (counted.length === 0) return
          yield* sql`INSERT INTO task_stream_frames ${sql.insert({ account_id: task.account_id, task_id: task.id, seq: Number(counted[0]!.stream_seq), created_at, frame: text })}`
        }))
        const tail = tails.get(keyOf(task.account_id, task.id))
        if (tail !== undefined) yield* Queue.offer(tail.wake, undefined)
      }).pipe(Effect.orDie)

    /** The process's tail of a task, made for its first subscriber and stopped after its last. */
    const tailOf = (accountId: string, taskId: string) =>
      Effect.acquireRelease(
        Effect.gen(function*() {
          const key = keyOf(accountId, taskId)
          const existing = tails.get(key)
          if (existing !== undefined) {
            existing.subscribers++
            return existing
          }
          const tail: Tail = {
            frames: yield* PubSub.unbounded<Frame>(),
            wake: yield* Queue.sliding<void>(1),
            subscribers: 1,
            fiber: undefined
          }
          tails.set(key, tail)
          let last = yield* lastSeq(taskId)
          let sent = Date.now()
          const read = Effect.gen(function*() {
            const rows = yield* rowsAfter(accountId, taskId, last, 1000)
            for (const row of rows) last = row.seq
            if (rows.length > 0) sent = Date.now()
            else if (Date.now() - sent >= pingInterval) {
              sent = Date.now()
              yield* PubSub.publish(tail.frames, ping)
            }
            yield* PubSub.publishAll(tail.frames, rows)
            if (rows.length < 1000) yield* Effect.raceFirst(Queue.take(tail.wake), Effect.withClock(Effect.sleep(pollInterval), wallClock))
          })
          // forked from the (uninterruptible) acquisition: made interruptible, so the last release stops it
          tail.fiber = yield* Effect.forkIn(Effect.interruptible(Effect.forever(read)), scope)
          return tail
        }),
        (tail) =>
          Effect.suspend(() => {
            tail.subscribers--
            if (tail.subscribers > 0) return Effect.void
            tails.delete(keyOf(accountId, taskId))
            return tail.fiber === undefined ? Effect.void : Fiber.interrupt(tail.fiber)
          })
      )

    const statusOf = (taskId: string) =>
      sql<{ status: string }>`SELECT status FROM agent_tasks WHERE id = ${taskId}`.pipe(
        Effect.map((rows) => rows[0]?.status as TaskStatus | undefined),
        Effect.orDie
      )

    /**
     * The frames of a task a subscriber is sent: `opening` (once subscribed: a client that has it
     * misses nothing written after), those after `from` (replayed from the table), then each as it
     * is written, up to a `task_updated` with a final status; for a task that is final already,
     * its frames after `from` (all without it), then the end. The task's status is read after
     * subscribing, so a task that ends meanwhile is replayed, not waited for.
     */
    const follow = (accountId: string, taskId: string, from: number | undefined, opening: Frame): Stream.Stream<Frame> =>
      Stream.unwrapScoped(
        Effect.gen(function*() {
          const tail = yield* tailOf(accountId, taskId)
          const live = yield* PubSub.subscribe(tail.frames)
          const status = yield* statusOf(taskId)
          if (status === undefined || isFinal(status)) {
            return Stream.fromIterable([opening, ...yield* after(accountId, taskId, from ?? 0)])
          }
          const replayed = from === undefined ? [] : yield* after(accountId, taskId, from)
          const seen = replayed.at(-1)?.seq ?? from ?? 0
          return Stream.concat(
            Stream.fromIterable([opening, ...replayed]),
            Stream.fromQueue(live).pipe(Stream.filter((frame) => frame.seq > seen || frame === ping))
          ).pipe(Stream.takeUntil((frame) => frame.final))
        })
      )

    return { publish, follow } as const
  })
}) {}
