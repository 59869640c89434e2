import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { documentTable } from "../sql/documents.js"

/**
 * The table of credentials. `doc` holds the credential as answered (never the secret); the sealed
 * secret (`SecretBox`) has its own column. Names are unique per account, exactly as written (a
 * unique index, so a concurrent duplicate fails too); `name_lower` serves the case-insensitive
 * name filter; one index per sortable column for the cursor.
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("credentials", (t) => [
    `name ${t.text} NOT NULL`,
    `name_lower ${t.text} NOT NULL`,
    `type ${t.text} NOT NULL`,
    `updated_at ${t.timestamp} NOT NULL`,
    `secret_sealed ${t.text} NOT NULL`
  ])
  yield* sql`CREATE UNIQUE INDEX credentials_account_name ON credentials (account_id, name)`
  yield* sql`CREATE INDEX credentials_account_name_id ON credentials (account_id, name, id)`
  yield* sql`CREATE INDEX credentials_account_updated ON credentials (account_id, updated_at, id)`
})

/** The credentials migrations, by id (listed in ../migrations.ts). */
export const credentialsMigrations = {
  "0015_credentials": created
}
