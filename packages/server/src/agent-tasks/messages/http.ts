import { completeContent, MessagesCursorPage, NotFound } from "@platform-kit/schema"
import type { MessageFilter, StreamingStatus, TaskMessageContentInput } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { accountsForRead, callerAccounts } from "../../auth/access.js"
import type { ImplementGroup } from "../../http/groups.js"
import { Ids, nowIso } from "../../platform/Ids.js"
import { workAccount } from "../access.js"
import { messageOf, MessagesRepo, type StoredMessage } from "./MessagesRepo.js"
import { messageFrame, TaskStreams } from "../streams.js"
import { TasksRepo } from "../tasks/TasksRepo.js"

export const MessagesHttp = (group: ImplementGroup) =>
  group("messages", (handlers) =>
  Effect.gen(function*() {
    const messages = yield* MessagesRepo
    const tasks = yield* TasksRepo
    const ids = yield* Ids
    const streams = yield* TaskStreams

    /** The caller's task `taskId` (in the request's account), else 404. */
    const taskOfRequest = (taskId: string) => Effect.flatMap(workAccount, (account) => tasks.get(taskId, [account]))

    /** The task a list reads: found in the accounts a list reads, else none (an empty list). */
    const listedTask = (taskId: string) =>
      Effect.flatMap(accountsForRead(), (accounts) => tasks.findById(taskId, accounts))

    /** New messages of a task, the i-th a millisecond after `at` (default now). */
    const make = (taskId: string, contents: ReadonlyArray<TaskMessageContentInput>, at: string | undefined, streaming: StreamingStatus | null) =>
      Effect.gen(function*() {
        const task = yield* taskOfRequest(taskId)
        const base = Date.parse(at ?? (yield* nowIso))
        const made: Array<StoredMessage> = []
        for (const [i, content] of contents.entries()) {
          const created_at = new Date(base + i).toISOString()
          made.push({ id: yield* ids.make, task_id: task.id, content: completeContent(content), streaming_status: streaming, created_at, updated_at: created_at, account_id: task.account_id })
        }
        yield* messages.insertAll(made)
        yield* Effect.forEach(made, (message) => streams.publish(task, messageFrame(message)), { discard: true })
        return made.map(messageOf)
      })

    /** Replaces the content of messages of a task, all or none (404 naming the first that is not the task's). */
    const rewrite = (taskId: string, updates: ReadonlyArray<readonly [string, TaskMessageContentInput, StreamingStatus | undefined]>) =>
      Effect.gen(function*() {
        const task = yield* Effect.flatMap(callerAccounts, (accounts) => tasks.get(taskId, accounts))
        return yield* messages.transaction(
          Effect.gen(function*() {
            const found = yield* messages.someOfTask(updates.map(([id]) => id), task.id, task.account_id)
            const byId = new Map(found.map((message) => [message.id, message]))
            const missing = updates.find(([id]) => !byId.has(id))
            if (missing !== undefined) return yield* Effect.fail(new NotFound({ detail: `Message ${missing[0]} not found in task ${taskId}` }))
            const now = yield* nowIso
            return yield* Effect.forEach(updates, ([id, content, streaming]) => {
              const before = byId.get(id)!
              return messages.update({ ...before, content: completeContent(content), streaming_status: streaming ?? before.streaming_status, updated_at: now }).pipe(
                Effect.tap((message) => streams.publish(task, { type: "full", content: message.content, parent_task_message: messageOf(message) })),
                Effect.map(messageOf)
              )
            })
          })
        )
      })

    /** The task's messages, ordered and filtered, from `offset` (at most `limit`). */
    const window = (
      taskId: string,
      options: { readonly orderBy: "created_at" | "updated_at"; readonly direction: "asc" | "desc"; readonly filters: ReadonlyArray<MessageFilter>; readonly offset: number; readonly limit: number }
    ) =>
      Effect.flatMap(listedTask(taskId), (task) =>
        Option.match(task, {
          onNone: () => Effect.succeed([]),
          onSome: (found) => messages.ofTask({ accountId: found.account_id, taskId: found.id, ...options })
        }))

    return handlers
      .handle("create", ({ payload }) =>
        Effect.map(make(payload.task_id, [payload.content], payload.created_at, payload.streaming_status ?? null), (made) => made[0]!))
      .handle("createBatch", ({ payload }) => make(payload.task_id, payload.contents, payload.created_at, null))
      .handle("get", ({ path }) => Effect.map(Effect.flatMap(callerAccounts, (accounts) => messages.get(path.message_id, accounts)), messageOf))
      .handle("update", ({ path, payload }) =>
        Effect.map(rewrite(payload.task_id, [[path.message_id, payload.content, payload.streaming_status]]), (made) => made[0]!))
      .handle("updateBatch", ({ payload }) =>
        rewrite(payload.task_id, Object.entries(payload.updates).map(([id, content]) => [id, content, undefined] as const)))
      .handle("list", ({ urlParams }) =>
        Effect.map(
          window(urlParams.task_id, {
            orderBy: urlParams.order_by ?? "created_at",
            direction: urlParams.order_direction ?? "desc",
            filters: urlParams.filters ?? [],
            offset: ((urlParams.page_number ?? 1) - 1) * (urlParams.limit ?? 50),
            limit: urlParams.limit ?? 50
          }),
          (listed) => listed.map(messageOf)
        ))
      .handle("listPaginated", ({ urlParams }) =>
        Effect.gen(function*() {
          // a task's messages read whole, in the direction of travel, and cut after the cursor
          const limit = urlParams.limit ?? 50
          const all = yield* window(urlParams.task_id, {
            orderBy: "created_at",
            direction: urlParams.direction === "newer" ? "asc" : "desc",
            filters: urlParams.filters ?? [],
            offset: 0,
            limit: Number.MAX_SAFE_INTEGER
          })
          const start = urlParams.cursor === undefined ? 0 : all.findIndex((message) => message.id === urlParams.cursor) + 1
          if (start === 0 && urlParams.cursor !== undefined) {
            return new MessagesCursorPage({ data: [], has_more: false, next_cursor: null }, true)
          }
          const data = all.slice(start, start + limit)
          const has_more = start + limit < all.length
          return new MessagesCursorPage({ data: data.map(messageOf), has_more, next_cursor: has_more ? data[data.length - 1]!.id : null }, true)
        }))
  })
).pipe(Layer.provide([MessagesRepo.Default, TasksRepo.Default, TaskStreams.Default]))
