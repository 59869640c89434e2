import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Accounts, identities, memberships and hashed API keys. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL)`
  yield* sql`CREATE TABLE identities (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL CHECK (type IN ('user', 'service_account')),
    created_at TEXT NOT NULL
  )`
  yield* sql`CREATE TABLE memberships (
    identity_id TEXT NOT NULL REFERENCES identities (id),
    account_id TEXT NOT NULL REFERENCES accounts (id),
    created_at TEXT NOT NULL,
    PRIMARY KEY (identity_id, account_id)
  )`
  yield* sql`CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    key_hash TEXT NOT NULL UNIQUE,
    identity_id TEXT NOT NULL REFERENCES identities (id),
    created_at TEXT NOT NULL,
    revoked_at TEXT
  )`
})
