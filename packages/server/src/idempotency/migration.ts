import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"

/**
 * The table behind `Idempotency-Key` (docs/idempotency.md): one row per (caller identity, key).
 *
 * A row is written `pending` when a request claims its key (with `claim_id`, the claimant's
 * token) and becomes `done` with the response to replay (`status`, `headers` as a JSON object,
 * `body` as text). `method`, `path` and `request_hash` are what a retry must repeat.
 *
 * Column types come from `columnTypes` like every other migration. On SQLite they are the types
 * this migration always had (TEXT, INTEGER), so the table is the same whether it was created
 * before or after that change; on PostgreSQL `created_at` is a `timestamptz` and `headers` `json`.
 * The store compares `created_at` with ISO 8601 UTC strings, which works on both (PostgreSQL
 * reads the parameter as a timestamp; a database made before the change has TEXT there, where
 * the comparison is the string one).
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`CREATE TABLE idempotency_keys (
    identity_id ${t.text} NOT NULL,
    idempotency_key ${t.text} NOT NULL,
    claim_id ${t.text} NOT NULL,
    state ${t.text} NOT NULL CHECK (state IN ('pending', 'done')),
    method ${t.text} NOT NULL,
    path ${t.text} NOT NULL,
    request_hash ${t.text} NOT NULL,
    status ${t.integer},
    headers ${t.json},
    body ${t.text},
    created_at ${t.timestamp} NOT NULL,
    PRIMARY KEY (identity_id, idempotency_key)
  )`)
  yield* sql`CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at)`
})

/** The idempotency migrations, by id (listed in ../migrations.ts). */
export const idempotencyMigrations = {
  "0017_idempotency_keys": created
}
