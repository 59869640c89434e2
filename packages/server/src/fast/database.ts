/**
 * The standalone server's database: what `../database.ts` opens, with SQLite opened by
 * `serverSqliteLayer` instead of the plain client: group commit (sqliteClient.ts: writes that
 * arrive together share one transaction and one fsync; the write-ahead log checkpointed by a
 * thread of its own, walCheckpointer.ts) and, for a file, the read connection of the hot reads
 * (readConnection.ts). PostgreSQL is opened as everywhere else.
 */
import { Effect, Layer } from "effect"
import { DatabaseUrl, HelperThreadsNice, SqliteCheckpoints, SqliteSynchronous } from "../config.js"
import { migrations } from "../migrations.js"
import { makeSqliteDirectory, migratedDatabase, type SqliteOpener } from "../sql/database.js"
import { readConnectionLayer } from "./readConnection.js"
import * as SqliteClient from "./sqliteClient.js"

/**
 * SQLite on `filename` with group commit, the configured `synchronous` level and checkpoints, and
 * a read-only connection for the hot reads when it is a file (memory has one connection only).
 */
export const serverSqliteLayer: SqliteOpener = (filename) =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const synchronous = yield* SqliteSynchronous
      const checkpoints = yield* SqliteCheckpoints
      const checkpointThreadNice = yield* HelperThreadsNice
      yield* makeSqliteDirectory(filename)
      const client = SqliteClient.layer({ filename, synchronous, checkpointThread: checkpoints === "thread", checkpointThreadNice })
      return filename === ":memory:" ? client : Layer.merge(client, readConnectionLayer(filename))
    })
  )

/** The database at `url`, migrated, as the standalone server opens it. */
export const serverDatabaseLayer = (url: string) => migratedDatabase(url, migrations, serverSqliteLayer)

/** The database named by `DATABASE_URL` (default `sqlite:./data/platform.db`), as the standalone server opens it. */
export const ServerDatabaseLive = Layer.unwrapEffect(Effect.map(DatabaseUrl, serverDatabaseLayer))
