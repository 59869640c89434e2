/**
 * Migration 0028: what a model server served before (`backend_history`: the JSON array of the
 * deployments a `PUT …/backend` replaced, oldest first), for `POST …/rollback` (docs/models.md).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`ALTER TABLE model_servers ADD COLUMN backend_history ${t.text} NOT NULL DEFAULT '[]'`)
})
