/**
 * Migration 0024: upload schedules fire (docs/knowledge-bases.md): each schedule counts its
 * firings (`firing`: the number of the next one; a PATCH moves it on too, so a firing planned
 * before the change does nothing), has its `status` as a column (the engine finds the active
 * schedules when it starts), and keeps its runs in `kb_upload_schedule_runs`.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"
import { documentTable } from "../sql/documents.js"
import { statusColumnFromDocuments } from "../sql/statusColumn.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`ALTER TABLE kb_upload_schedules ADD COLUMN firing ${t.integer} NOT NULL DEFAULT 0`)
  yield* statusColumnFromDocuments("kb_upload_schedules")
  yield* documentTable("kb_upload_schedule_runs", (types) => [`upload_schedule_id ${types.text} NOT NULL`])
  yield* sql.unsafe("CREATE INDEX kb_upload_schedule_runs_schedule ON kb_upload_schedule_runs (upload_schedule_id, created_at, id)")
})
