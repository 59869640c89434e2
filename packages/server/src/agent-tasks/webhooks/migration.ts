import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../../sql/dialect.js"

/**
 * Agentex's spans and webhook triggers (docs/agent-tasks.md "Spans", "Webhook triggers").
 *
 * - `spans` (the v5 store, ../../spans/migration.ts) gets what an agentex span has and a v5 span
 *   has not: `task_id` (index `(account_id, task_id)`: the list's `task_id` filter), and
 *   `agentex_arrays`, the names of the fields (`input,output,data`) an agentex client sent as an
 *   array, which the v5 document holds as `{"items": [...]}`. Both NULL for every span before.
 * - `agent_webhook_keys`: an agent's webhook keys, its secret sealed (`secret_sealed`,
 *   credentials/SecretBox.ts, bound to the key's id); one per (agent, name, source).
 * - `agent_webhook_deliveries`: each delivery forwarded to an agent, its state (`succeeded`,
 *   `retrying`, `failed`) and, while it is retried, the request sealed (`request_sealed`: its
 *   headers may carry a key); `agent_webhook_delivery_attempts`: each attempt (when, the agent's
 *   status or none, the latency, the error).
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`ALTER TABLE spans ADD COLUMN task_id ${t.text}`)
  yield* sql.unsafe(`ALTER TABLE spans ADD COLUMN agentex_arrays ${t.text}`)
  yield* sql`CREATE INDEX spans_account_task ON spans (account_id, task_id)`
  yield* sql.unsafe(`CREATE TABLE agent_webhook_keys (
    id ${t.text} PRIMARY KEY,
    account_id ${t.text} NOT NULL,
    agent_id ${t.text} NOT NULL,
    name ${t.text} NOT NULL,
    source ${t.text} NOT NULL,
    secret_sealed ${t.text} NOT NULL,
    created_at ${t.text} NOT NULL
  )`)
  yield* sql`CREATE UNIQUE INDEX agent_webhook_keys_agent_name_source ON agent_webhook_keys (agent_id, name, source)`
  yield* sql.unsafe(`CREATE TABLE agent_webhook_deliveries (
    id ${t.text} PRIMARY KEY,
    account_id ${t.text} NOT NULL,
    agent_id ${t.text} NOT NULL,
    key_id ${t.text},
    method ${t.text} NOT NULL,
    path ${t.text} NOT NULL,
    status ${t.text} NOT NULL,
    attempts ${t.bigint} NOT NULL,
    request_sealed ${t.text},
    created_at ${t.text} NOT NULL,
    updated_at ${t.text} NOT NULL
  )`)
  yield* sql`CREATE INDEX agent_webhook_deliveries_agent ON agent_webhook_deliveries (account_id, agent_id, created_at)`
  yield* sql`CREATE INDEX agent_webhook_deliveries_status ON agent_webhook_deliveries (status)`
  yield* sql.unsafe(`CREATE TABLE agent_webhook_delivery_attempts (
    delivery_id ${t.text} NOT NULL,
    attempt ${t.bigint} NOT NULL,
    account_id ${t.text} NOT NULL,
    started_at ${t.text} NOT NULL,
    status_code ${t.bigint},
    latency_ms ${t.bigint} NOT NULL,
    error ${t.text},
    PRIMARY KEY (delivery_id, attempt)
  )`)
})

/** The migration of agentex's spans and webhook triggers (listed in ../../migrations.ts). */
export const agentWebhooksMigrations = {
  "0065_agent_spans_and_webhooks": created
}
