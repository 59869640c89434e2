/**
 * Migration 0030: the control plane's last change (`platform_controls`: one row, its version and
 * the controls as JSON), so that every process on the database follows it (engine/Simulation.ts,
 * docs/control-plane.md). Not account data: a reset leaves it.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`CREATE TABLE platform_controls (
    id ${t.integer} PRIMARY KEY,
    version ${t.integer} NOT NULL,
    controls ${t.text} NOT NULL
  )`)
})
