import { SqlClient } from "@effect/sql"
import { TaskEvent } from "@platform-kit/schema"
import type { AppendEvent, EventContent } from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import { makeDocuments } from "../sql/documents.js"

/** Content as stored: text content with every field present (`null`, or `[]` for attachments). */
export const storedContent = (content: AppendEvent["content"]): EventContent =>
  content.type === "text"
    ? {
      type: "text",
      content: content.content,
      author: content.author ?? null,
      style: content.style ?? null,
      format: content.format ?? null,
      attachments: content.attachments ?? []
    }
    : content

/** An event as stored: the wire resource plus the account whose task stream holds it. */
export const StoredEvent = Schema.Struct({ ...TaskEvent.fields, account_id: Schema.String })
export type StoredEvent = typeof StoredEvent.Type

const columns = (event: StoredEvent) => ({
  id: event.id,
  account_id: event.account_id,
  created_at: event.created_at,
  task_id: event.task_id,
  agent_id: event.agent_id,
  sequence_id: event.sequence_id
})

export class EventsRepo extends Effect.Service<EventsRepo>()("@platform-kit/server/EventsRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({ table: "events", label: "Event", schema: StoredEvent, columns })
    const sql = yield* SqlClient.SqlClient
    const { record } = documents
    const decode = Schema.decodeUnknownSync(Schema.parseJson(StoredEvent))

    /**
     * Appends an event to its task's stream: bumps the task's counter and inserts the event with
     * the new value, in one transaction. The upsert is one statement on SQLite and PostgreSQL
     * alike; on PostgreSQL its row lock makes concurrent appends to one task wait their turn.
     */
    const append = (event: Omit<StoredEvent, "sequence_id">): Effect.Effect<StoredEvent> =>
      sql.withTransaction(
        Effect.gen(function*() {
          const counted = yield* sql<{ last_sequence_id: number }>`INSERT INTO event_task_sequences ${
            sql.insert({ account_id: event.account_id, task_id: event.task_id, last_sequence_id: 1 })
          } ON CONFLICT (account_id, task_id) DO UPDATE SET last_sequence_id = event_task_sequences.last_sequence_id + 1 RETURNING last_sequence_id`
          const stored: StoredEvent = { ...event, sequence_id: Number(counted[0]!.last_sequence_id) }
          yield* sql`INSERT INTO events ${sql.insert(record(stored))}`
          return stored
        })
      ).pipe(Effect.orDie)

    /**
     * Where event `id` is among the task streams `taskId` of `accountIds`: its account and
     * `sequence_id`, if it is an event of the task in one of them.
     */
    const positionOf = (
      id: string,
      accountIds: ReadonlyArray<string>,
      taskId: string
    ): Effect.Effect<Option.Option<{ readonly accountId: string; readonly sequence: number }>> =>
      sql<{ account_id: string; sequence_id: number }>`SELECT account_id, sequence_id FROM events WHERE id = ${id} AND ${
        sql.in("account_id", accountIds)
      } AND task_id = ${taskId}`
        .pipe(
          Effect.map((rows) =>
            Option.map(Option.fromNullable(rows[0]), (row) => ({ accountId: row.account_id, sequence: Number(row.sequence_id) }))
          ),
          Effect.orDie
        )

    /**
     * Up to `limit` events of one agent in the task streams `taskId` of `accountIds` after
     * sequence `after`, in sequence order (then account, for a task id two accounts share).
     */
    const stream = (request: {
      readonly accountIds: ReadonlyArray<string>
      readonly taskId: string
      readonly agentId: string
      readonly after: number
      readonly limit: number
    }): Effect.Effect<ReadonlyArray<StoredEvent>> =>
      // one account (the usual case): both dialects read `IN (?)` as an equality, so the
      // (account_id, task_id, agent_id, sequence_id) index serves the order with no sort
      sql<{ doc: string }>`SELECT doc FROM events WHERE ${
        sql.in("account_id", request.accountIds)
      } AND task_id = ${request.taskId} AND agent_id = ${request.agentId} AND sequence_id > ${request.after} ORDER BY sequence_id, account_id LIMIT ${request.limit}`
        .pipe(
          Effect.map((rows) => rows.map((row) => decode(row.doc))),
          Effect.orDie
        )

    return { get: documents.get, append, positionOf, stream } as const
  })
}) {}
