/**
 * LangGraph's checkpoint store (docs/agent-tasks.md "Checkpoints"), agentex's: what an agent's
 * checkpointer (the ADK's `HttpCheckpointSaver`) calls instead of a database of its own. Every
 * request names its thread, which is a task of the caller's accounts (else 404, nothing read or
 * written); the rows are the thread's, whoever reaches them through the task.
 */
import { CheckpointPutResponse } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { callerAccounts } from "../../auth/access.js"
import type { ImplementGroup } from "../../http/groups.js"
import { TasksRepo } from "../tasks/TasksRepo.js"
import { CheckpointsRepo } from "./CheckpointsRepo.js"

export const CheckpointsHttp = (group: ImplementGroup) =>
  group("checkpoints", (handlers) =>
  Effect.gen(function*() {
    const checkpoints = yield* CheckpointsRepo
    const tasks = yield* TasksRepo

    /** The thread as its task: one of the caller's accounts' (another account's or none: 404). */
    const threadOf = (threadId: string) =>
      Effect.gen(function*() {
        const task = yield* tasks.get(threadId, yield* callerAccounts)
        return { threadId: task.id, accountId: task.account_id }
      })

    return handlers
      .handle("getTuple", ({ payload }) =>
        Effect.gen(function*() {
          const thread = yield* threadOf(payload.thread_id)
          const found = yield* checkpoints.getTuple(thread.threadId, payload.checkpoint_ns ?? "", payload.checkpoint_id)
          return Option.getOrNull(found)
        }))
      .handle("put", ({ payload }) =>
        Effect.gen(function*() {
          const thread = yield* threadOf(payload.thread_id)
          const ns = payload.checkpoint_ns ?? ""
          yield* checkpoints.put(thread, payload, ns)
          return new CheckpointPutResponse({ checkpoint_id: payload.checkpoint_id, checkpoint_ns: ns, thread_id: payload.thread_id }, true)
        }))
      .handle("putWrites", ({ payload }) =>
        Effect.gen(function*() {
          const thread = yield* threadOf(payload.thread_id)
          yield* checkpoints.putWrites(thread, payload, payload.checkpoint_ns ?? "")
        }))
      .handle("list", ({ payload }) =>
        Effect.gen(function*() {
          const thread = yield* threadOf(payload.thread_id)
          return yield* checkpoints.list({
            threadId: thread.threadId,
            ns: payload.checkpoint_ns,
            before: payload.before_checkpoint_id,
            filter: payload.filter_metadata,
            limit: payload.limit ?? 100
          })
        }))
      .handle("deleteThread", ({ payload }) =>
        Effect.gen(function*() {
          const thread = yield* threadOf(payload.thread_id)
          yield* checkpoints.deleteThread(thread.threadId)
        }))
  })
).pipe(Layer.provide([CheckpointsRepo.Default, TasksRepo.Default]))
