/**
 * How a task's status moves (docs/agent-tasks.md "Tasks"), for the status endpoints and the
 * deletes: each move is written with its `task_updated` frame, in one transaction.
 */
import { Conflict, NotFound } from "@platform-kit/schema"
import type { TaskStatus } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { nowIso } from "../../platform/Ids.js"
import { TaskStreams, taskFrame } from "../streams.js"
import { isFinal, type StoredTask, TasksRepo } from "./TasksRepo.js"

/** Moves task `id` of `accountIds` to `to` unless its status is final (409), in one transaction. */
export const moveTask = (id: string, accountIds: ReadonlyArray<string>, to: TaskStatus, reason: string | null) =>
  Effect.gen(function*() {
    const tasks = yield* TasksRepo
    return yield* tasks.transaction(
      Effect.gen(function*() {
        const task = yield* tasks.get(id, accountIds)
        if (isFinal(task.status)) {
          return yield* Effect.fail(new Conflict({ detail: `Task ${id} is ${task.status}: a final status does not change` }))
        }
        const now = yield* nowIso
        const moved = yield* tasks.update({ ...task, status: to, status_reason: reason, updated_at: now })
        yield* Effect.flatMap(TaskStreams, (streams) => streams.publish(moved, taskFrame(moved)))
        return moved
      })
    )
  })

/** Marks task `task` `DELETED`; 404 when it already is. */
export const deleteTask = (task: StoredTask) =>
  Effect.gen(function*() {
    const tasks = yield* TasksRepo
    return yield* tasks.transaction(
      Effect.gen(function*() {
        const current = yield* tasks.findById(task.id, [task.account_id])
        if (Option.isNone(current) || current.value.status === "DELETED") {
          return yield* Effect.fail(new NotFound({ detail: `Task ${task.id} not found` }))
        }
        const now = yield* nowIso
        const deleted = yield* tasks.update({ ...current.value, status: "DELETED", status_reason: "Task deleted successfully", updated_at: now })
        yield* Effect.flatMap(TaskStreams, (streams) => streams.publish(deleted, taskFrame(deleted)))
        return deleted
      })
    )
  })
