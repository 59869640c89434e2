import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"

/**
 * A task's `message/send` lease (rpc/sendLease.ts): who holds it (a token) and until when (epoch
 * milliseconds): one `message/send` at a time per task across server processes.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`ALTER TABLE agent_tasks ADD COLUMN send_lease ${t.text}`)
  yield* sql.unsafe(`ALTER TABLE agent_tasks ADD COLUMN send_lease_until ${t.bigint}`)
})
