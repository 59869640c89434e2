/**
 * Migration 0029: one row per model execution (`model_usage`, docs/models.md "Usage"): what ran
 * (the deployment and its model, or neither for the built-in model named by a model string), for whom, when, how
 * long, the tokens, and how it ended. Read by the usage statistics of a deployment.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`CREATE TABLE model_usage (
    id ${t.text} PRIMARY KEY,
    account_id ${t.text} NOT NULL,
    model_deployment_id ${t.text},
    model_instance_id ${t.text},
    operation ${t.text} NOT NULL,
    streamed ${t.integer} NOT NULL,
    started_ms ${t.bigint} NOT NULL,
    latency_ms ${t.integer} NOT NULL,
    prompt_tokens ${t.integer} NOT NULL,
    response_tokens ${t.integer} NOT NULL,
    status_code ${t.integer} NOT NULL,
    error ${t.text},
    caller_id ${t.text} NOT NULL,
    caller_type ${t.text} NOT NULL
  )`)
  yield* sql`CREATE INDEX model_usage_deployment ON model_usage (model_deployment_id, started_ms)`
  yield* sql`CREATE INDEX model_usage_model ON model_usage (model_instance_id, started_ms)`
})
