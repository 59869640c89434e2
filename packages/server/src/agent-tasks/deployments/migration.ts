import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../../sql/dialect.js"
import { documentTable } from "../../sql/documents.js"

/**
 * Agent deployments and the deployment history (docs/agent-tasks.md "Deployments"). A
 * deployment's ACP URL and sealed `x-agent-api-key` live in columns of their own, as an agent's
 * do; `is_production` (0 or 1) is unique per agent where it is 1 (a partial index, on both
 * databases), the route of the agent's RPC. A deployment's id is its agent's own (the key is
 * `(agent_id, id)`, not `id` as `documentTable` makes it): a registration may name any id, and one
 * another agent has says nothing of it. No row is made for the agents registered before: an agent
 * with no production deployment is called at its own registration's URL, as it always was.
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  // documentTable's columns and index, keyed by agent and id
  yield* sql.unsafe(`CREATE TABLE agent_deployments (id ${t.text} NOT NULL, account_id ${t.text} NOT NULL, created_at ${t.timestamp} NOT NULL,
    agent_id ${t.text} NOT NULL, is_production ${t.integer} NOT NULL DEFAULT 0, expires_at ${t.timestamp}, acp_url ${t.text},
    api_key_sealed ${t.text}, doc ${t.json} NOT NULL, form ${t.text}, PRIMARY KEY (agent_id, id))`)
  yield* sql`CREATE INDEX agent_deployments_account_created ON agent_deployments (account_id, created_at, id)`
  yield* sql`CREATE INDEX agent_deployments_agent ON agent_deployments (account_id, agent_id, created_at, id)`
  yield* sql`CREATE UNIQUE INDEX agent_deployments_production ON agent_deployments (agent_id) WHERE is_production = 1`
  yield* documentTable("agent_deployment_history", (t) => [
    `agent_id ${t.text} NOT NULL`,
    `commit_hash ${t.text} NOT NULL`,
    `deployment_timestamp ${t.timestamp} NOT NULL`,
    `build_timestamp ${t.timestamp} NOT NULL`
  ])
  yield* sql`CREATE INDEX agent_deployment_history_agent ON agent_deployment_history (account_id, agent_id, deployment_timestamp, id)`
})

/** The deployments' migration, by id (listed in ../../migrations.ts with the agent tasks'). */
export const agentDeploymentsMigrations = {
  "0062_agent_deployments": created
}
