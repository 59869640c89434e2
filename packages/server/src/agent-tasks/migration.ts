import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { documentTable } from "../sql/documents.js"

/**
 * The tables of the agent-task family (docs/agent-tasks.md). Each `doc` is the resource as
 * answered; what is not answered has a column of its own: an agent's ACP URL and its sealed
 * `x-agent-api-key` (`SecretBox`), a task's agent. Names are unique per account (agents always,
 * tasks when named: NULLs are distinct on both databases); one state per (task, agent).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
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
    `updated_at ${t.timestamp} NOT NULL`
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
})
