import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import { documentTable } from "../sql/documents.js"

/**
 * The task trackers (docs/agent-tasks.md "Trackers"): one per task, found by task and by agent;
 * the tasks made before get theirs here, each with a new id and every field but its times empty.
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("agent_task_trackers", (t) => [
    `task_id ${t.text} NOT NULL`,
    `agent_id ${t.text} NOT NULL`,
    `updated_at ${t.timestamp} NOT NULL`
  ])
  yield* sql`CREATE UNIQUE INDEX agent_task_trackers_task ON agent_task_trackers (task_id)`
  yield* sql`CREATE INDEX agent_task_trackers_agent ON agent_task_trackers (account_id, agent_id, updated_at, id)`
  const tasks = yield* sql<{ id: string; account_id: string; agent_id: string; created_at: string }>`
    SELECT id, account_id, agent_id, created_at FROM agent_tasks`
  for (let start = 0; start < tasks.length; start += 500) {
    const rows = tasks.slice(start, start + 500).map((task) => {
      const id = Crypto.randomUUID()
      const created_at = new Date(task.created_at).toISOString()
      const doc = {
        id,
        agent_id: task.agent_id,
        task_id: task.id,
        created_at,
        updated_at: created_at,
        last_processed_event_id: null,
        status: null,
        status_reason: null,
        account_id: task.account_id
      }
      return { id, account_id: task.account_id, created_at, task_id: task.id, agent_id: task.agent_id, updated_at: created_at, doc: JSON.stringify(doc), form: null }
    })
    yield* sql`INSERT INTO agent_task_trackers ${sql.insert(rows)}`
  }
})

/** The trackers' migration, by id (listed in ../migrations.ts with the agent tasks'). */
export const trackerMigrations = {
  "0060_agent_task_trackers": created
}
