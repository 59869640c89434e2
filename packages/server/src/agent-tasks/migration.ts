import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"
import { documentTable } from "../sql/documents.js"
import leaseMigration from "./leaseMigration.js"

/**
 * The tables of the agent-task family (docs/agent-tasks.md). Each `doc` is the resource as
 * answered; what is not answered has a column of its own: an agent's ACP URL and its sealed
 * `x-agent-api-key` (`SecretBox`), a task's agent. Names are unique per account (agents always,
 * tasks when named: NULLs are distinct on both databases); one state per (task, agent). A task's
 * stream frames (streams.ts) are rows of `task_stream_frames`.
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* documentTable("agents", (t) => [
    `name ${t.text} NOT NULL`,
    `status ${t.text} NOT NULL`,
    `updated_at ${t.timestamp} NOT NULL`,
    `acp_url ${t.text}`,
    `api_key_sealed ${t.text}`
  ])
  yield* sql`CREATE UNIQUE INDEX agents_account_name ON agents (account_id, name)`
  yield* documentTable("agent_tasks", (t) => [
    `name ${t.text}`,
    `agent_id ${t.text} NOT NULL`,
    `status ${t.text} NOT NULL`,
    `updated_at ${t.timestamp} NOT NULL`,
    // the number of the task's last stream frame (streams.ts): its row lock orders the writers
    `stream_seq ${t.integer} NOT NULL DEFAULT 0`
  ])
  yield* sql`CREATE UNIQUE INDEX agent_tasks_account_name ON agent_tasks (account_id, name)`
  yield* sql`CREATE INDEX agent_tasks_account_agent ON agent_tasks (account_id, agent_id, created_at, id)`
  yield* documentTable("agent_messages", (t) => [`task_id ${t.text} NOT NULL`, `updated_at ${t.timestamp} NOT NULL`])
  yield* sql`CREATE INDEX agent_messages_task ON agent_messages (account_id, task_id, created_at, id)`
  yield* documentTable("agent_states", (t) => [
    `task_id ${t.text} NOT NULL`,
    `agent_id ${t.text} NOT NULL`,
    `updated_at ${t.timestamp} NOT NULL`
  ])
  yield* sql`CREATE UNIQUE INDEX agent_states_task_agent ON agent_states (account_id, task_id, agent_id)`
  // each task's stream: its frames as sent (JSON text), numbered from 1 without gaps
  yield* sql.unsafe(`CREATE TABLE task_stream_frames (
    account_id ${t.text} NOT NULL,
    task_id ${t.text} NOT NULL,
    seq ${t.integer} NOT NULL,
    created_at ${t.timestamp} NOT NULL,
    frame ${t.json} NOT NULL,
    PRIMARY KEY (account_id, task_id, seq)
  )`)
})

/** The agent tasks migrations, by id (listed in ../migrations.ts). */
export const agentTasksMigrations = {
  "0034_agent_tasks": created,
  "0035_agent_task_send_lease": leaseMigration
}
