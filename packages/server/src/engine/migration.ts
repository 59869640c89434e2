/**
 * Migration 0025: the simulated steps parked for an advance in `manual` progression
 * (docs/control-plane.md): one row per parked step, with the token that completes it.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"
import controlsMigration from "./controlsMigration.js"

const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`CREATE TABLE parked_steps (
    token ${t.text} PRIMARY KEY,
    lifecycle ${t.text} NOT NULL,
    entity_id ${t.text} NOT NULL,
    account_id ${t.text} NOT NULL,
    step ${t.text} NOT NULL,
    parked_at ${t.timestamp} NOT NULL
  )`)
  yield* sql.unsafe("CREATE INDEX parked_steps_order ON parked_steps (parked_at, token)")
})

/** The engine migrations, by id (listed in ../migrations.ts). */
export const engineMigrations = {
  "0025_parked_steps": created,
  "0030_shared_controls": controlsMigration
}
