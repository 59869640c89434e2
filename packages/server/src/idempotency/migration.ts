import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The table behind `Idempotency-Key` (docs/idempotency.md): one row per (caller identity, key).
 *
 * A row is written `pending` when a request claims its key (with `claim_id`, the claimant's
 * token) and becomes `done` with the response to replay (`status`, `headers` as a JSON object,
 * `body` as text). `method`, `path` and `request_hash` are what a retry must repeat. Times are
 * ISO 8601 UTC text, so expiry is a string comparison in either dialect. Portable SQL only.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE idempotency_keys (
    identity_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    claim_id TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status INTEGER,
    headers TEXT,
    body TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (identity_id, idempotency_key)
  )`
  yield* sql`CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at)`
})
