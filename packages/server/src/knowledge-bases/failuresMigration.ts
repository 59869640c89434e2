/**
 * Migration 0026: an upload schedule counts its failed runs in a row (`failures`: the next failure
 * makes it UNHEALTHY, the third ERROR), so that a schedule resumed by a PATCH starts counting
 * afresh (docs/knowledge-bases.md).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`ALTER TABLE kb_upload_schedules ADD COLUMN failures ${t.integer} NOT NULL DEFAULT 0`)
})
