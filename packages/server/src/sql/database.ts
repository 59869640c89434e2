/**
 * The database layer: picks the client from `DATABASE_URL` (`sqlite:…`, the default, or
 * `postgres://…`), applies the per-dialect settings and runs the migrations. Every repository
 * needs only `SqlClient`; what differs between the dialects lives in `dialect.ts`.
 */
import { Migrator, SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { DatabaseUrl, SqliteSynchronous } from "../config.js"
import { migrations } from "./migrations.js"
import type { pgLayer } from "./postgres.js"
import { ReadConnection } from "./reads.js"
import * as SqliteClient from "./sqliteClient.js"

/** Whether a `DATABASE_URL` names a PostgreSQL server. */
export const isPostgresUrl = (url: string): boolean => /^postgres(ql)?:\/\//.test(url)

/** Parses `sqlite:<path>` / `sqlite::memory:`. */
const sqliteFilename = (url: string): string => {
  if (!url.startsWith("sqlite:")) {
    throw new Error(
      `DATABASE_URL "${url.split(":")[0]}:…" is not supported; use sqlite:<path>, sqlite::memory: or postgres://user:pass@host:5432/db`
    )
  }
  const rest = url.slice("sqlite:".length).replace(/^\/\//, "")
  return rest === ":memory:" || rest === "" ? ":memory:" : rest
}

/**
 * SQLite on `filename` (sql/sqliteClient.ts: WAL, the configured `synchronous` level, foreign keys,
 * group commit), with a read-only connection for the hot reads when it is a file (sql/reads.ts).
 */
export const sqliteLayer = (filename: string) =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const synchronous = yield* SqliteSynchronous
      if (filename !== ":memory:") Fs.mkdirSync(Path.dirname(Path.resolve(filename)), { recursive: true })
      const client = SqliteClient.layer({ filename, synchronous })
      // memory has one connection only
      return filename === ":memory:" ? client : Layer.merge(client, ReadConnection.sqlite(filename))
    })
  )

const runMigrations = Migrator.make({})({ loader: migrations })

/** The migrations on SQLite: one transaction (one writer, so no lock of our own is needed). */
const sqliteMigrator = Layer.effectDiscard(runMigrations)

/**
 * The migrations on PostgreSQL, safe when several instances start at once: one transaction holds
 * an advisory lock (per schema) while it makes sure of the migrations table and applies what is
 * missing, so the others wait and then find nothing left to do. DDL is transactional there: a
 * migration that fails leaves nothing behind.
 */
const pgMigrator = Layer.effectDiscard(
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(hashtext('platform-kit migrations ' || current_schema()))`
      yield* sql`CREATE TABLE IF NOT EXISTS effect_sql_migrations (
        migration_id integer PRIMARY KEY,
        created_at timestamp with time zone NOT NULL DEFAULT now(),
        name text NOT NULL
      )`
      yield* runMigrations
    }))
  })
)

/** The database for a `DATABASE_URL`, migrated. */
export const databaseLayer = (url: string): Layer.Layer<
  SqlClient.SqlClient,
  Layer.Layer.Error<typeof sqliteMigrator> | Layer.Layer.Error<ReturnType<typeof pgLayer>>
> =>
  isPostgresUrl(url)
    ? pgMigrator.pipe(
      // `pg` and its client are loaded only here: a start on SQLite does not pay for them
      Layer.provideMerge(Layer.unwrapEffect(Effect.promise(() => import("./postgres.js")).pipe(Effect.map((postgres) => postgres.pgLayer(url)))))
    )
    : sqliteMigrator.pipe(Layer.provideMerge(sqliteLayer(sqliteFilename(url))))

/** The database named by the `DATABASE_URL` environment variable (default `sqlite:./data/platform.db`). */
export const DatabaseLive = Layer.unwrapEffect(Effect.map(DatabaseUrl, databaseLayer))

/** A fresh in-memory SQLite database, migrated: what the embedded example uses. */
export const DatabaseMemory = databaseLayer("sqlite::memory:")
