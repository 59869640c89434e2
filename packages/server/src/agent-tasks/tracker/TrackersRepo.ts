import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { AgentTaskTracker } from "@platform-kit/schema"
import { Effect, Schema, Struct } from "effect"
import { makeDocuments } from "../../sql/documents.js"

/** A tracker as stored: the wire resource and its account. */
export const StoredTracker = Schema.Struct({ ...AgentTaskTracker.fields, account_id: Schema.String })
export type StoredTracker = typeof StoredTracker.Type

/** The tracker as answered. */
export const trackerOf = (stored: StoredTracker) => new AgentTaskTracker(Struct.omit(stored, "account_id"), true)

/** The `agent_task_trackers` table (trackerMigration.ts): one row per task, made with it. */
export class TrackersRepo extends Effect.Service<TrackersRepo>()("@platform-kit/server/TrackersRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* makeDocuments({
      table: "agent_task_trackers",
      label: "Tracker",
      schema: StoredTracker,
      columns: (tracker) => ({
        id: tracker.id,
        account_id: tracker.account_id,
        created_at: tracker.created_at,
        task_id: tracker.task_id,
        agent_id: tracker.agent_id,
        updated_at: tracker.updated_at
      })
    })

    const list = (request: {
      readonly accountIds: ReadonlyArray<string>
      readonly page: number
      readonly limit: number
      readonly orderBy: "created_at" | "updated_at"
      readonly direction: "asc" | "desc"
      readonly taskId?: string | undefined
      readonly agentId?: string | undefined
    }) => {
      const where: Array<Statement.Fragment> = []
      if (request.taskId !== undefined) where.push(sql`task_id = ${request.taskId}`)
      if (request.agentId !== undefined) where.push(sql`agent_id = ${request.agentId}`)
      const direction = sql.literal(request.direction === "asc" ? "ASC" : "DESC")
      // then the other time, as agentex appends `updated_at`, `created_at` to every order
      const then = sql.literal(request.orderBy === "updated_at" ? "created_at" : "updated_at")
      return Effect.map(
        documents.page({ ...request, where, orderBy: sql`${sql(request.orderBy)} ${direction}, ${then} ${direction}, id ${direction}` }),
        (page) => page.items
      )
    }

    return { ...Struct.pick(documents, "get", "insert", "update", "transaction"), list } as const
  })
}) {}
