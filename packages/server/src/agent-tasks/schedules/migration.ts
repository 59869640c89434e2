import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../../sql/dialect.js"
import { documentTable } from "../../sql/documents.js"

/**
 * Agent run schedules (docs/agent-tasks.md "Run schedules"): the definitions, a document each,
 * with beside it what the reads and the firing loop filter on (the agent, the name, `paused` as 0
 * or 1, the soft `deleted_at`) and the loop's own pointer, `next_fire_at` (the next time of the
 * cadence not yet fired; written by the loop alone, never in `doc`). A name is unique among the
 * agent's schedules that are not deleted (a partial index, on both databases).
 *
 * `agent_run_schedule_fires`: one row per fire, its primary key the fire id (two processes
 * cannot both insert one fire); `pending` until its task is made and its input delivered, then
 * `launched` (or `skipped`, with its reason). `lease_until` is both the claim of the process
 * delivering it and, after a failed try, when it is tried again.
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("agent_run_schedules", (t) => [
    `agent_id ${t.text} NOT NULL`,
    `name ${t.text} NOT NULL`,
    `paused ${t.integer} NOT NULL DEFAULT 0`,
    `deleted_at ${t.timestamp}`,
    `next_fire_at ${t.timestamp}`
  ])
  yield* sql`CREATE UNIQUE INDEX agent_run_schedules_name ON agent_run_schedules (agent_id, name) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX agent_run_schedules_agent ON agent_run_schedules (agent_id, created_at, id)`
  yield* sql`CREATE INDEX agent_run_schedules_due ON agent_run_schedules (next_fire_at) WHERE deleted_at IS NULL AND paused = 0`
  const t = yield* columnTypes
  yield* sql.unsafe(`CREATE TABLE agent_run_schedule_fires (
    fire_id ${t.text} PRIMARY KEY,
    schedule_id ${t.text} NOT NULL,
    account_id ${t.text} NOT NULL,
    trigger_type ${t.text} NOT NULL,
    scheduled_at ${t.timestamp} NOT NULL,
    status ${t.text} NOT NULL,
    reason ${t.text},
    error ${t.text},
    task_id ${t.text},
    attempts ${t.integer} NOT NULL DEFAULT 0,
    lease_until ${t.timestamp},
    created_at ${t.timestamp} NOT NULL,
    updated_at ${t.timestamp} NOT NULL
  )`)
  yield* sql`CREATE INDEX agent_run_schedule_fires_schedule ON agent_run_schedule_fires (schedule_id, scheduled_at)`
  yield* sql`CREATE INDEX agent_run_schedule_fires_pending ON agent_run_schedule_fires (lease_until) WHERE status = 'pending'`
})

/** The run schedules' migration, by id (listed in ../../migrations.ts with the agent tasks'). */
export const agentRunSchedulesMigrations = {
  "0066_agent_run_schedules": created
}
