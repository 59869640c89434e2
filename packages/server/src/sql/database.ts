/**
 * The database layer: picks the client from a database URL (`sqlite:…` or `postgres://…`),
 * applies the per-dialect settings and runs the migrations it is given (the kit's are listed in
 * `../migrations.ts` and bound in `../database.ts`). Every repository needs only `SqlClient`; what
 * differs between the dialects lives in `dialect.ts`. SQLite is opened by `sqliteLayer` here
 * (`@effect/sql-sqlite-node`'s client), unless the composition passes another opener (the
 * standalone server's, with group commit and a read connection: fast/database.ts).
 */
import { Migrator, SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import type { SqlError } from "@effect/sql/SqlError"
import { SqliteClient } from "@effect/sql-sqlite-node"
import type { ConfigError } from "effect/ConfigError"
import { SqliteSynchronous } from "../config.js"
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

/** Opens SQLite on a file path or `:memory:`: the client every repository runs on. */
export type SqliteOpener = (filename: string) => Layer.Layer<SqlClient.SqlClient, SqlError | ConfigError>

/** Makes sure the directory of a SQLite file exists (an in-memory database has none). */
export const makeSqliteDirectory = (filename: string) =>
  Effect.sync(() => {
    if (filename !== ":memory:") Fs.mkdirSync(Path.dirname(Path.resolve(filename)), { recursive: true })
  })

/**
 * SQLite on `filename` through `@effect/sql-sqlite-node`'s client (WAL for a file), with the
 * configured `synchronous` level and foreign keys on: every write its own transaction.
 */
export const sqliteLayer: SqliteOpener = (filename) =>
  Layer.scoped(
    SqlClient.SqlClient,
    Effect.gen(function*() {
      const synchronous = yield* SqliteSynchronous
      yield* makeSqliteDirectory(filename)
      const sql = yield* SqliteClient.make({ filename })
      yield* sql.unsafe(`PRAGMA synchronous = ${synchronous}`)
      yield* sql.unsafe("PRAGMA foreign_keys = ON")
      return sql as SqlClient.SqlClient
    })
  ).pipe(Layer.provide(Reactivity.layer))

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

/**
 * The database at `url`, with `migrations` applied (those not applied yet); SQLite opened by
 * `openSqlite`.
 */
export const migratedDatabase = (url: string, migrations: Migrator.Loader, openSqlite: SqliteOpener = sqliteLayer): Layer.Layer<
  SqlClient.SqlClient,
  Layer.Layer.Error<ReturnType<typeof sqliteMigrator>> | Layer.Layer.Error<ReturnType<typeof pgLayer>>
> =>
  isPostgresUrl(url)
    ? pgMigrator(migrations).pipe(
      // `pg` and its client are loaded only here: a start on SQLite does not pay for them
      Layer.provideMerge(Layer.unwrapEffect(Effect.promise(() => import("./postgres.js")).pipe(Effect.map((postgres) => postgres.pgLayer(url)))))
    )
    : sqliteMigrator(migrations).pipe(Layer.provideMerge(openSqlite(sqliteFilename(url))))
