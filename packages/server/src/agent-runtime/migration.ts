import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { documentTable } from "../sql/documents.js"
import statusMigration from "./statusMigration.js"

/**
 * The table of agent runtime deployments. `build_id`, `agent_name` and `preview_label` are the
 * list filters (exact match; the label is not unique), each indexed with the default order;
 * `(account_id, agent_name, id)` serves `sort_by=agent_name`.
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("agent_runtime_deployments", (t) => [
    `build_id ${t.text} NOT NULL`,
    `agent_name ${t.text} NOT NULL`,
    `preview_label ${t.text}`
  ])
  yield* sql`CREATE INDEX agent_runtime_deployments_account_agent_name ON agent_runtime_deployments (account_id, agent_name, id)`
  yield* sql`CREATE INDEX agent_runtime_deployments_account_agent_created ON agent_runtime_deployments (account_id, agent_name, created_at, id)`
  yield* sql`CREATE INDEX agent_runtime_deployments_account_build ON agent_runtime_deployments (account_id, build_id, created_at, id)`
  yield* sql`CREATE INDEX agent_runtime_deployments_account_preview ON agent_runtime_deployments (account_id, preview_label, created_at, id)`
})

/** The agent runtime migrations, by id (listed in ../migrations.ts). */
export const agentRuntimeMigrations = {
  "0014_agent_runtime": created,
  "0023_agent_runtime_statuses": statusMigration
}
