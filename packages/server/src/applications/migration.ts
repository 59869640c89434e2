/**
 * The tables of applications: deployments (a plain document table), interactions (a document
 * table with a real column for everything the metrics aggregate) and the per-node latencies of
 * each interaction (a child table, so per-node metrics are SQL too).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { documentTable } from "../sql/documents.js"

export default Effect.gen(function*() {
  yield* documentTable("application_deployments")
  yield* documentTable("application_interactions", [
    "application_spec_id TEXT NOT NULL",
    "application_variant_id TEXT NOT NULL",
    // epoch milliseconds of the interaction's start: the metrics window compares on it
    "start_ms BIGINT NOT NULL",
    "duration_ms INTEGER NOT NULL",
    "input_tokens INTEGER NOT NULL",
    "output_tokens INTEGER NOT NULL",
    "is_error INTEGER NOT NULL",
    "user_id TEXT",
    // 1 thumbs up, 0 thumbs down, NULL no feedback
    "feedback INTEGER"
  ])
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(
    "CREATE INDEX application_interactions_spec_start ON application_interactions (application_spec_id, start_ms)"
  )
  yield* sql.unsafe(
    `CREATE TABLE application_interaction_nodes (
      interaction_id TEXT NOT NULL REFERENCES application_interactions (id),
      position INTEGER NOT NULL,
      node_id TEXT NOT NULL,
      duration_ms INTEGER NOT NULL,
      PRIMARY KEY (interaction_id, position)
    )`
  )
})
