/**
 * The database layer: picks the client from a database URL (`sqlite:…` or `postgres://…`),
 * applies the per-dialect settings and runs the migrations it is given (the kit's are listed in
 * `../migrations.ts` and bound in `../database.ts`). Every repository needs only `SqlClient`; what
 * differs between the dialects lives in `dialect.ts`.
 */
import { Migrator, SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { HelperThreadsNice, SqliteCheckpoints, SqliteSynchronous } from "../config.js"
import { ReadConnection } from "../fast/reads.js"
import * as SqliteClient from "../fast/sqliteClient.js"
import type { pgLayer } from "./postgres.js"

/**
 * The client background work (the workflow engine and its steps) runs on when it is not the
 * application's: on PostgreSQL, a pool of its own (`PLATFORM_PG_ENGINE_POOL_SIZE` connections).
 * The engine interrupts its own statements when they are slow (a shard lock refresh given its
 * interval) and `pg` cancels an interrupted statement by its connection's process id: on a shared
 * pool the connection may already run a request's transaction, which the cancel then fails
 * (docs/engine.md, "Several processes"). Absent on SQLite: one connection writes, whoever asks.
 */
export class BackgroundSql extends Context.Tag("@platform-kit/server/BackgroundSql")<BackgroundSql, SqlClient.SqlClient>() {}

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
 * SQLite on `filename` (fast/sqliteClient.ts: WAL, the configured `synchronous` level and
 * checkpoints, foreign keys, group commit), with a read-only connection for the hot reads when it
 * is a file (fast/reads.ts).
 */
export const sqliteLayer = (filename: string) =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const synchronous = yield* SqliteSynchronous
      const checkpoints = yield* SqliteCheckpoints
      const checkpointThreadNice = yield* HelperThreadsNice
      if (filename !== ":memory:") Fs.mkdirSync(Path.dirname(Path.resolve(filename)), { recursive: true })
      const client = SqliteClient.layer({ filename, synchronous, checkpointThread: checkpoints === "thread", checkpointThreadNice })
      // memory has one connection only
      return filename === ":memory:" ? client : Layer.merge(client, ReadConnection.sqlite(filename))
    })
  )

const migrator = (loader: Migrator.Loader) => Migrator.make({})({ loader })

/** The migrations on SQLite: one transaction (one writer, so no lock of our own is needed). */
const sqliteMigrator = (loader: Migrator.Loader) => Layer.effectDiscard(migrator(loader))

/**
 * The migrations on PostgreSQL, safe when several instances start at once: one transaction holds
 * an advisory lock (per schema) while it makes sure of the migrations table and applies what is
 * missing, so the others wait and then find nothing left to do. DDL is transactional there: a
 * migration that fails leaves nothing behind.
 */
const pgMigrator = (loader: Migrator.Loader) =>
  Layer.effectDiscard(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`SELECT pg_advisory_xact_lock(hashtext('platform-kit migrations ' || current_schema()))`
        yield* sql`CREATE TABLE IF NOT EXISTS effect_sql_migrations (
          migration_id integer PRIMARY KEY,
          created_at timestamp with time zone NOT NULL DEFAULT now(),
          name text NOT NULL
        )`
        yield* migrator(loader)
      }))
    })
  )

/** The database at `url`, with `migrations` applied (those not applied yet). */
export const migratedDatabase = (url: string, migrations: Migrator.Loader): Layer.Layer<
  SqlClient.SqlClient,
  Layer.Layer.Error<ReturnType<typeof sqliteMigrator>> | Layer.Layer.Error<ReturnType<typeof pgLayer>>
> =>
  isPostgresUrl(url)
    ? pgMigrator(migrations).pipe(
      // `pg` and its client are loaded only here: a start on SQLite does not pay for them
      Layer.provideMerge(Layer.unwrapEffect(Effect.promise(() => import("./postgres.js")).pipe(Effect.map((postgres) => postgres.pgLayer(url)))))
    )
    : sqliteMigrator(migrations).pipe(Layer.provideMerge(sqliteLayer(sqliteFilename(url))))
