/**
 * The database layer: picks the client from `DATABASE_URL`, applies the durability settings and
 * runs the migrations. Every repository needs only `SqlClient`.
 */
import { NodeContext } from "@effect/platform-node"
import { SqliteClient, SqliteMigrator } from "@effect/sql-sqlite-node"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { DatabaseUrl, SqliteSynchronous } from "../config.js"
import { migrations } from "./migrations.js"

/** Parses `sqlite:<path>` / `sqlite::memory:`; other schemes are not served yet. */
const sqliteFilename = (url: string): string => {
  if (!url.startsWith("sqlite:")) {
    throw new Error(`DATABASE_URL "${url.split(":")[0]}:…" is not supported yet; use sqlite:<path> or sqlite::memory:`)
  }
  const rest = url.slice("sqlite:".length).replace(/^\/\//, "")
  return rest === ":memory:" || rest === "" ? ":memory:" : rest
}

/** SQLite on `filename` with WAL, the configured `synchronous` level and foreign keys. */
export const sqliteLayer = (filename: string) =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const synchronous = yield* SqliteSynchronous
      if (filename !== ":memory:") Fs.mkdirSync(Path.dirname(Path.resolve(filename)), { recursive: true })
      const pragmas = Layer.effectDiscard(
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql.unsafe(`PRAGMA synchronous = ${synchronous}`)
          yield* sql.unsafe("PRAGMA foreign_keys = ON")
        })
      )
      return pragmas.pipe(Layer.provideMerge(SqliteClient.layer({ filename })))
    })
  )

const migrator = SqliteMigrator.layer({ loader: migrations }).pipe(Layer.provide(NodeContext.layer))

/** The database for a `DATABASE_URL`, migrated. */
export const databaseLayer = (url: string) => migrator.pipe(Layer.provideMerge(sqliteLayer(sqliteFilename(url))))

/** The database named by the `DATABASE_URL` environment variable (default `sqlite:./data/platform.db`). */
export const DatabaseLive = Layer.unwrapEffect(Effect.map(DatabaseUrl, databaseLayer))

/** A fresh in-memory database, migrated: what tests and the embedded example use. */
export const DatabaseMemory = databaseLayer("sqlite::memory:")
