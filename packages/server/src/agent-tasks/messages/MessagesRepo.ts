import { SqlClient } from "@effect/sql"
import { TaskMessage } from "@platform-kit/schema"
import type { MessageFilter } from "@platform-kit/schema"
import { Effect, Schema, Struct } from "effect"
import { makeDocuments } from "../../sql/documents.js"
import { contains } from "../matching.js"

/** A message as stored: the wire resource and its account. */
export const StoredMessage = Schema.Struct({ ...TaskMessage.fields, account_id: Schema.String })
export type StoredMessage = typeof StoredMessage.Type

/** The message as answered. */
export const messageOf = (stored: StoredMessage) => new TaskMessage(Struct.omit(stored, "account_id"), true)

/**
 * Whether a message passes `filters`: any inclusive filter matches it (or there is none), and no
 * exclusive one does (`MessageFilter`).
 */
export const passes = (message: StoredMessage, filters: ReadonlyArray<MessageFilter>) => {
  const matches = (filter: MessageFilter) =>
    (filter.content === undefined || contains(message.content, filter.content)) &&
    (filter.streaming_status === undefined || filter.streaming_status === message.streaming_status)
  const including = filters.filter((filter) => filter.exclude !== true)
  const excluding = filters.filter((filter) => filter.exclude === true)
  return (including.length === 0 || including.some(matches)) && !excluding.some(matches)
}

/** The `agent_messages` table (agent-tasks/migration.ts). */
export class MessagesRepo extends Effect.Service<MessagesRepo>()("@platform-kit/server/MessagesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* makeDocuments({
      table: "agent_messages",
      label: "Message",
      schema: StoredMessage,
      columns: (message) => ({
        id: message.id,
        account_id: message.account_id,
        created_at: message.created_at,
        task_id: message.task_id,
        updated_at: message.updated_at
      })
    })
    const decode = Schema.decodeUnknownSync(Schema.parseJson(StoredMessage))

    /**
     * Every message of task `taskId` in `accountId` in `direction` order of (`orderBy`, id),
     * passing `filters`: what the lists page (a task's messages are read whole when filtered).
     */
    const ofTask = (request: {
      readonly accountId: string
      readonly taskId: string
      readonly orderBy: "created_at" | "updated_at"
      readonly direction: "asc" | "desc"
      readonly filters: ReadonlyArray<MessageFilter>
      readonly offset: number
      readonly limit: number
    }) => {
      const direction = sql.literal(request.direction === "asc" ? "ASC" : "DESC")
      const filtered = request.filters.length > 0
      const window = filtered ? sql.literal("") : sql`LIMIT ${request.limit} OFFSET ${request.offset}`
      return sql<{ doc: string }>`SELECT doc FROM agent_messages WHERE account_id = ${request.accountId} AND task_id = ${request.taskId} ORDER BY ${
        sql(request.orderBy)
      } ${direction}, id ${direction} ${window}`.pipe(
        Effect.map((rows) => {
          const messages = rows.map((row) => decode(row.doc))
          return filtered
            ? messages.filter((message) => passes(message, request.filters)).slice(request.offset, request.offset + request.limit)
            : messages
        }),
        Effect.orDie
      )
    }

    /** The messages `ids` of task `taskId` in `accountId` (row-locked inside a transaction on PostgreSQL). */
    const someOfTask = (ids: ReadonlyArray<string>, taskId: string, accountId: string) =>
      ids.length === 0 ? Effect.succeed([]) : documents.findAll([accountId], [sql.in("id", [...ids]), sql`task_id = ${taskId}`])

    return { ...Struct.pick(documents, "get", "findById", "insert", "insertAll", "update", "transaction"), ofTask, someOfTask } as const
  })
}) {}
