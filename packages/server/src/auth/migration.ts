import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"

/** Accounts, identities, memberships and hashed API keys. */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`CREATE TABLE accounts (id ${t.text} PRIMARY KEY, name ${t.text} NOT NULL, created_at ${t.timestamp} NOT NULL)`)
  yield* sql.unsafe(`CREATE TABLE identities (
    id ${t.text} PRIMARY KEY,
    type ${t.text} NOT NULL CHECK (type IN ('user', 'service_account')),
    created_at ${t.timestamp} NOT NULL
  )`)
  yield* sql.unsafe(`CREATE TABLE memberships (
    identity_id ${t.text} NOT NULL REFERENCES identities (id),
    account_id ${t.text} NOT NULL REFERENCES accounts (id),
    created_at ${t.timestamp} NOT NULL,
    PRIMARY KEY (identity_id, account_id)
  )`)
  yield* sql.unsafe(`CREATE TABLE api_keys (
    id ${t.text} PRIMARY KEY,
    key_hash ${t.text} NOT NULL UNIQUE,
    identity_id ${t.text} NOT NULL REFERENCES identities (id),
    created_at ${t.timestamp} NOT NULL,
    revoked_at ${t.timestamp}
  )`)
})

/**
 * A key's first characters, kept in clear for the admin CLI's `keys list` to name it by (the key
 * itself is only hashed); `null` for keys made before.
 */
const keyPrefixes = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`ALTER TABLE api_keys ADD COLUMN key_prefix ${t.text}`)
})

/**
 * A member's role in each account (what `GET /user-info` reports; every member made before is an
 * admin, as every member could do everything) and an identity's e-mail address (none before).
 */
const rolesAndEmails = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* sql.unsafe(`ALTER TABLE memberships ADD COLUMN role ${t.text} NOT NULL DEFAULT 'admin'`)
  yield* sql.unsafe(`ALTER TABLE identities ADD COLUMN email ${t.text}`)
})

/** The auth migrations, by id (listed in ../migrations.ts). */
export const authMigrations = {
  "0001_auth": created,
  "0038_api_key_prefixes": keyPrefixes,
  "0039_member_roles_and_emails": rolesAndEmails
}
