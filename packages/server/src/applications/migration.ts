/**
 * The tables of applications: deployments (a plain document table), interactions (a document
 * table with a real column for everything the metrics aggregate) and the per-node latencies of
 * each interaction (a child table, so per-node metrics are SQL too).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"
import { countRows } from "../sql/documentCounts.js"
import { documentTable } from "../sql/documents.js"
import statusMigration from "./statusMigration.js"

const created = Effect.gen(function*() {
  yield* documentTable("application_deployments")
  yield* documentTable("application_interactions", (t) => [
    `application_spec_id ${t.text} NOT NULL`,
    `application_variant_id ${t.text} NOT NULL`,
    // epoch milliseconds of the interaction's start: the metrics window compares on it
    `start_ms ${t.bigint} NOT NULL`,
    `duration_ms ${t.integer} NOT NULL`,
    `input_tokens ${t.integer} NOT NULL`,
    `output_tokens ${t.integer} NOT NULL`,
    // 1 an error, 0 not (an integer on both dialects: AVG of it is the error rate)
    `is_error ${t.integer} NOT NULL`,
    `user_id ${t.text}`,
    // 1 thumbs up, 0 thumbs down, NULL no feedback
    `feedback ${t.integer}`
  ])
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(
    "CREATE INDEX application_interactions_spec_start ON application_interactions (application_spec_id, start_ms)"
  )
  yield* sql.unsafe(
    `CREATE TABLE application_interaction_nodes (
      interaction_id ${t.text} NOT NULL REFERENCES application_interactions (id),
      position ${t.integer} NOT NULL,
      node_id ${t.text} NOT NULL,
      duration_ms ${t.integer} NOT NULL,
      PRIMARY KEY (interaction_id, position)
    )`
  )
})

/** Specs (archived in place), their variants, and chat themes: document tables, counted. */
const specs = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("application_specs", (t) => [`archived_at ${t.timestamp}`])
  yield* documentTable("application_variants", (t) => [`application_spec_id ${t.text} NOT NULL`])
  yield* sql`CREATE INDEX application_variants_spec ON application_variants (application_spec_id)`
  yield* documentTable("application_themes", (t) => [`archived_at ${t.timestamp}`])
  yield* countRows("application_specs", { archived: true })
  yield* countRows("application_variants", { archived: false })
  yield* countRows("application_themes", { archived: true })
})

/**
 * What an interaction is made of (one row per node that ran, or per span recorded from outside),
 * the chat threads of variants with the interaction column that puts a message in one, and the
 * feedback on messages.
 */
const threads = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`CREATE TABLE application_interaction_spans (
    id ${t.text} PRIMARY KEY,
    interaction_id ${t.text} NOT NULL,
    position ${t.integer} NOT NULL,
    doc ${t.json} NOT NULL
  )`)
  yield* sql`CREATE INDEX application_interaction_spans_interaction ON application_interaction_spans (interaction_id, position)`
  yield* sql.unsafe(`ALTER TABLE application_interactions ADD COLUMN chat_thread_id ${t.text}`)
  yield* sql`CREATE INDEX application_interactions_thread ON application_interactions (chat_thread_id, start_ms)`
  yield* documentTable("application_threads", (t) => [`application_variant_id ${t.text} NOT NULL`, `created_by_user_id ${t.text} NOT NULL`])
  yield* sql`CREATE INDEX application_threads_variant ON application_threads (application_variant_id)`
  yield* documentTable("application_message_feedback", (t) => [`application_interaction_id ${t.text} NOT NULL UNIQUE`])
})

/** The applications migrations, by id (listed in ../migrations.ts). */
export const applicationsMigrations = {
  "0003_applications": created,
  "0021_application_deployment_statuses": statusMigration,
  "0040_application_specs": specs,
  "0049_application_threads": threads
}
