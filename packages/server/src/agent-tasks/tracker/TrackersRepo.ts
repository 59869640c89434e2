import { SqlClient } from "@effect/sql"
import { AgentTaskTracker } from "@platform-kit/schema"
import { Effect, Schema, Struct } from "effect"
import { makeDocuments } from "../../sql/documents.js"
import { taskAgentList, type TaskAgentListRequest } from "../taskAgentList.js"

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

    // then the other time, as agentex appends `updated_at`, `created_at` to every order
    const list = (request: TaskAgentListRequest) =>
      taskAgentList(sql, documents.page, request, request.orderBy === "updated_at" ? "created_at" : "updated_at")

    return { ...Struct.pick(documents, "get", "insert", "update", "transaction"), list } as const
  })
}) {}
