/**
 * The live stream of a task (docs/agent-tasks.md "Streams"): every frame a task's subscribers
 * see is a row of `task_stream_frames`, numbered per task (gap-free: the task row counts them, and
 * its row lock orders writers on PostgreSQL as SQLite's single writer does). Subscribers read
 * through one tail per process and task: a fiber that reads the frames after the last it saw,
 * woken at once by a publish in this process and every 50 ms otherwise (what another process,
 * on the same SQLite file or PostgreSQL database, wrote), and writes them to every subscriber.
 *
 * A subscriber is the body of its response: a `PushedBody` the tail sends bytes into (under the
 * lean server, straight to its socket), so a frame costs one write per subscriber and no fiber
 * of its own (docs/benchmarks.md "The streams' fan-out": a `Stream` per subscriber saturated the
 * process at 1,000 subscribers). The frames
 * one read of the tail found are made into one buffer, shared by every subscriber that is up to
 * date. A reconnecting subscriber names the last frame it saw (`Last-Event-ID`) and is sent what
 * followed from the table first; the tail's frames are held for it meanwhile.
 */
import { SqlClient } from "@effect/sql"
import { TaskStreamEvent } from "@platform-kit/schema"
import type { TaskStatus } from "@platform-kit/schema"
import { Clock, Duration, Effect, Exit, Fiber, FiberId, Queue, Schema } from "effect"
import { chunkOf, PushedBody } from "../http/pushedBody.js"
import { nowIso } from "../platform/Ids.js"
import { messageOf, type StoredMessage } from "./messages/MessagesRepo.js"
import { isFinal, type StoredTask, taskOf } from "./tasks/TasksRepo.js"

/**
 * A frame as sent: its number in the task's stream (0 for `connected`, which is not stored;
 * -1 for a keep-alive), its server-sent event (`id:` and `data:` lines, as bytes, made once for
 * every subscriber), and whether it ends the stream.
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

/**
 * How far (bytes not yet taken by its socket) a subscriber may fall behind before it is
 * disconnected; it reconnects with `Last-Event-ID` and is sent the rest from the table.
 */
const maxBehind = 8 * 1024 * 1024

/** How many frames a task's stream keeps (agentex keeps 10,000), trimmed every `trimEvery` frames. */
export const keptFrames = 10_000
const trimEvery = 1_000

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
const sleep = (duration: Duration.Duration) => Effect.withClock(Effect.sleep(duration), wallClock)

/**
 * The least time between two deliveries of a tail: 20 µs per subscriber (about what writing a
 * frame to one subscriber's socket costs), at most 25 ms. Frames written meanwhile go out
 * together, one write per subscriber, so a busy stream with many subscribers keeps the process's
 * loop at most about half taken by its writes; a stream with few subscribers is sent at once.
 */
const deliveryGap = (subscribers: number) => Math.min(25, subscribers * 0.02)

/** One subscriber: its response body, the last frame it was sent, and frames held while it replays. */
interface Subscriber {
  readonly out: PushedBody
  seen: number
  held: Array<Frame> | undefined
}

/** Frames' bytes joined (up to and with the first final one), and those in the chunked encoding: each made once. */
interface Batch {
  readonly bytes: () => Uint8Array
  readonly framed: () => Uint8Array
}

/** Sends `frames` (in order) to `subscriber`, the ones it has not seen, up to a final one. */
const send = (subscriber: Subscriber, frames: ReadonlyArray<Frame>, batch: Batch): boolean => {
  if (subscriber.held !== undefined) {
    subscriber.held.push(...frames)
    return true
  }
  const { out } = subscriber
  if (out.destroyed) return false
  const first = frames[0]!.seq
  let ended = false
  if (first === -1 || first > subscriber.seen) {
    out.send(batch.bytes(), batch.framed)
    for (const frame of frames) {
      if (frame.seq > 0) subscriber.seen = frame.seq
      if (frame.final) ended = true
    }
  } else {
    for (const frame of frames) {
      if (frame.seq !== -1 && frame.seq <= subscriber.seen) continue
      out.send(frame.bytes, () => chunkOf(frame.bytes))
      if (frame.seq > 0) subscriber.seen = frame.seq
      if (frame.final) {
        ended = true
        break
      }
    }
  }
  if (ended) {
    out.finish()
    return false
  }
  if (out.behind > maxBehind) {
    out.destroy()
    return false
  }
  return true
}

/** The batch of `frames`, made when first asked for. */
const joined = (frames: ReadonlyArray<Frame>): Batch => {
  let bytes: Uint8Array | undefined
  let framed: Uint8Array | undefined
  const joinedBytes = () => {
    if (bytes !== undefined) return bytes
    const end = frames.findIndex((frame) => frame.final)
    const taken = end === -1 ? frames : frames.slice(0, end + 1)
    return bytes = taken.length === 1 ? taken[0]!.bytes : Buffer.concat(taken.map((frame) => frame.bytes))
  }
  return { bytes: joinedBytes, framed: () => framed ??= chunkOf(joinedBytes()) }
}

export class TaskStreams extends Effect.Service<TaskStreams>()("@platform-kit/server/TaskStreams", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const scope = yield* Effect.scope

    interface Tail {
      readonly subscribers: Set<Subscriber>
      readonly wake: Queue.Queue<void>
      fiber: Fiber.RuntimeFiber<never> | undefined
    }
    const tails = new Map<string, Tail>()
    const keyOf = (accountId: string, taskId: string) => `${accountId}\u0000${taskId}`
    // closed (a shutdown): every subscriber's body ends, so that no server waits on a stream that
    // ends only with its task (its client reconnects where the API is served next)
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const tail of tails.values()) for (const subscriber of tail.subscribers) subscriber.out.finish()
      })
    )

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

    /** The frames of a task after `after`, in order (every one kept: a replay). */
    const after = (accountId: string, taskId: string, from: number) => rowsAfter(accountId, taskId, from, keptFrames)

    /** The number of the task's last frame. */
    const lastSeq = (taskId: string) =>
      sql<{ stream_seq: number }>`SELECT stream_seq FROM agent_tasks WHERE id = ${taskId}`.pipe(
        Effect.map((rows) => Number(rows[0]?.stream_seq ?? 0)),
        Effect.orDie
      )

    /**
     * Appends `frame` to the task's stream (inside the caller's transaction, if any) and wakes
     * this process's subscribers of the task. Every `trimEvery` frames, those older than the
     * last `keptFrames` go.
     */
    const publish = (task: { readonly id: string; readonly account_id: string }, frame: TaskStreamEvent) =>
      Effect.gen(function*() {
        const text = JSON.stringify(encode(frame))
        const created_at = yield* nowIso
        yield* sql.withTransaction(Effect.gen(function*() {
          const counted = yield* sql<{ stream_seq: number }>`UPDATE agent_tasks SET stream_seq = stream_seq + 1 WHERE id = ${task.id} RETURNING stream_seq`
          if (counted.length === 0) return
          const seq = Number(counted[0]!.stream_seq)
          yield* sql`INSERT INTO task_stream_frames ${sql.insert({ account_id: task.account_id, task_id: task.id, seq, created_at, frame: text })}`
          if (seq % trimEvery === 0 && seq > keptFrames) {
            yield* sql`DELETE FROM task_stream_frames WHERE account_id = ${task.account_id} AND task_id = ${task.id} AND seq <= ${seq - keptFrames}`
          }
        }))
        const tail = tails.get(keyOf(task.account_id, task.id))
        if (tail !== undefined) yield* Queue.offer(tail.wake, undefined)
      }).pipe(Effect.orDie)

    /** Sends `frames` to every subscriber of `tail`; those that ended or fell behind leave. */
    const deliver = (tail: Tail, frames: ReadonlyArray<Frame>) => {
      const batch = joined(frames)
      for (const subscriber of tail.subscribers) {
        if (!send(subscriber, frames, batch)) tail.subscribers.delete(subscriber)
      }
    }

    /** Adds `subscriber` to the process's tail of the task, made for its first subscriber. */
    const join = (accountId: string, taskId: string, subscriber: Subscriber) =>
      Effect.gen(function*() {
        const key = keyOf(accountId, taskId)
        const existing = tails.get(key)
        if (existing !== undefined) {
          existing.subscribers.add(subscriber)
          return
        }
        const tail: Tail = { subscribers: new Set([subscriber]), wake: Effect.runSync(Queue.sliding<void>(1)), fiber: undefined }
        tails.set(key, tail)
        let last = yield* lastSeq(taskId)
        let sent = Date.now()
        const read = Effect.gen(function*() {
          const rows = yield* rowsAfter(accountId, taskId, last, 1000)
          if (rows.length > 0) {
            last = rows[rows.length - 1]!.seq
            sent = Date.now()
            deliver(tail, rows)
          } else if (Date.now() - sent >= pingInterval) {
            sent = Date.now()
            deliver(tail, [ping])
          }
          if (rows.length < 1000) yield* Effect.raceFirst(Queue.take(tail.wake), sleep(pollInterval))
          const early = sent + deliveryGap(tail.subscribers.size) - Date.now()
          if (early > 0) yield* sleep(Duration.millis(early))
        })
        // forked from an uninterruptible region: made interruptible, so that `leave` stops it
        tail.fiber = yield* Effect.forkIn(Effect.interruptible(Effect.forever(read)), scope)
        // its last subscriber left while it was being made
        if (tails.get(key) !== tail) tail.fiber.unsafeInterruptAsFork(FiberId.none)
      })

    /** Takes `subscriber` off its tail; the tail stops with its last subscriber. */
    const leave = (accountId: string, taskId: string, subscriber: Subscriber) => {
      const key = keyOf(accountId, taskId)
      const tail = tails.get(key)
      if (tail === undefined) return
      tail.subscribers.delete(subscriber)
      if (tail.subscribers.size > 0) return
      tails.delete(key)
      tail.fiber?.unsafeInterruptAsFork(FiberId.none)
    }

    const statusOf = (taskId: string) =>
      sql<{ status: string }>`SELECT status FROM agent_tasks WHERE id = ${taskId}`.pipe(
        Effect.map((rows) => rows[0]?.status as TaskStatus | undefined),
        Effect.orDie
      )

    /**
     * The body a subscriber is sent: `opening` (once subscribed: a client that has it misses
     * nothing written after), the frames after `from` (replayed from the table), then each as it
     * is written, up to a `task_updated` with a final status; for a task that is final already,
     * its frames after `from` (all without it), then the end. The task's status is read after
     * subscribing, so a task that ends meanwhile is replayed, not waited for. The subscription
     * lasts as long as the body: it ends with the stream, or when the client goes away.
     */
    const follow = (accountId: string, taskId: string, from: number | undefined, opening: Frame) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const out = new PushedBody()
          const subscriber: Subscriber = { out, seen: from ?? 0, held: [] }
          out.once("close", () => leave(accountId, taskId, subscriber))
          yield* join(accountId, taskId, subscriber)
          const exit = yield* Effect.exit(restore(Effect.gen(function*() {
            const status = yield* statusOf(taskId)
            const final = status === undefined || isFinal(status)
            const replayed = from === undefined && !final ? [] : yield* after(accountId, taskId, from ?? 0)
            return { final, replayed }
          })))
          if (Exit.isFailure(exit)) {
            out.destroy()
            return yield* Effect.failCause(exit.cause)
          }
          const { final, replayed } = exit.value
          const held = subscriber.held!
          subscriber.held = undefined
          out.push(opening.bytes)
          if (final) {
            for (const frame of replayed) out.push(frame.bytes)
            out.finish()
            leave(accountId, taskId, subscriber)
            return out
          }
          const replayedTo = replayed.at(-1)?.seq ?? subscriber.seen
          const frames = [...replayed, ...held.filter((frame) => frame.seq === -1 || frame.seq > replayedTo)]
          if (frames.length > 0 && !send(subscriber, frames, joined(frames))) leave(accountId, taskId, subscriber)
          return out
        })
      )

    /** How many subscribers this process's tail of the task has (none: no tail). */
    const followers = (accountId: string, taskId: string) => tails.get(keyOf(accountId, taskId))?.subscribers.size ?? 0

    return { publish, follow, followers } as const
  })
}) {}
