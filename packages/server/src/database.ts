/**
 * The kit's database: the client a database URL names (sql/database.ts), migrated with every
 * family's migrations (migrations.ts). The standalone server opens SQLite its own way
 * (fast/database.ts); what it stores and answers is the same.
 */
import { Effect, Layer } from "effect"
import { DatabaseUrl } from "./config.js"
import { migrations } from "./migrations.js"
import { migratedDatabase } from "./sql/database.js"

export { isPostgresUrl, sqliteLayer } from "./sql/database.js"

/** The database for a `DATABASE_URL`, migrated. */
export const databaseLayer = (url: string) => migratedDatabase(url, migrations)

/** The database named by the `DATABASE_URL` environment variable (default `sqlite:./data/platform.db`). */
export const DatabaseLive = Layer.unwrapEffect(Effect.map(DatabaseUrl, databaseLayer))

/** A fresh in-memory SQLite database, migrated: what the embedded example uses. */
export const DatabaseMemory = databaseLayer("sqlite::memory:")
