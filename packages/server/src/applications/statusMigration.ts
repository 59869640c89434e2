/**
 * Migration 0021: application deployments get the columns their lifecycle works with (docs/applications.md):
 * `status` (the document's, indexed: the engine finds the deployments still `PENDING` on start
 * without reading every document) and `activation` (how many times the deployment was deployed
 * again after its create: the lifecycle of each activation is a workflow of its own, and a step of
 * an older one moves nothing). Rows written before get the status their document holds.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"
import { statusColumnFromDocuments } from "../sql/statusColumn.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`ALTER TABLE application_deployments ADD COLUMN activation ${t.integer} NOT NULL DEFAULT 0`)
  yield* statusColumnFromDocuments("application_deployments")
})
