/**
 * Migration 0022: the log of each fine-tuning job (`GET /v4/fine-tuning-jobs/{id}/events`), one
 * row per event in the order written; the epochs a job has finished (`epochs_done`: the step of an
 * epoch claims the job at the epoch before it, so an epoch is never logged twice); an index on
 * the jobs' status (the engine finds the jobs left unfinished when it starts).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(
    `CREATE TABLE fine_tuning_job_events (
      job_id ${t.text} NOT NULL,
      position ${t.integer} NOT NULL,
      level ${t.text} NOT NULL,
      message ${t.text} NOT NULL,
      at_ms ${t.bigint} NOT NULL,
      PRIMARY KEY (job_id, position)
    )`
  )
  yield* sql.unsafe(`ALTER TABLE fine_tuning_jobs ADD COLUMN epochs_done ${t.integer} NOT NULL DEFAULT 0`)
  yield* sql.unsafe("CREATE INDEX fine_tuning_jobs_status ON fine_tuning_jobs (status)")
})
