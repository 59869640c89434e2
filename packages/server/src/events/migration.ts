import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"
import { documentTable } from "../sql/documents.js"

/**
 * The tables of agent task events.
 *
 * A task's stream is scoped to the account that appends to it. `event_task_sequences` holds one
 * counter row per (account, task): an append bumps it and inserts the event in one transaction,
 * which PostgreSQL serializes on the counter row as SQLite does on its single writer. The unique
 * index on `(account_id, task_id, sequence_id)` makes a repeated sequence id impossible whatever
 * happens.
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* documentTable("events", [`task_id ${t.text} NOT NULL`, `agent_id ${t.text} NOT NULL`, `sequence_id ${t.integer} NOT NULL`])
  yield* sql`CREATE UNIQUE INDEX events_task_sequence ON events (account_id, task_id, sequence_id)`
  yield* sql`CREATE INDEX events_task_agent_sequence ON events (account_id, task_id, agent_id, sequence_id)`
  yield* sql.unsafe(`CREATE TABLE event_task_sequences (
    account_id ${t.text} NOT NULL,
    task_id ${t.text} NOT NULL,
    last_sequence_id ${t.integer} NOT NULL,
    PRIMARY KEY (account_id, task_id)
  )`)
})

/** The events migrations, by id (listed in ../migrations.ts). */
export const eventsMigrations = {
  "0016_events": created
}
