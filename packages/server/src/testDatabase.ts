/**
 * The database a test layer runs on. By default a fresh SQLite file (`DatabaseTest`); when
 * `DATABASE_URL` names a PostgreSQL server (`npm run test:pg`), a fresh schema of that database:
 * each layer takes `t_<random>` (made, or one an earlier layer of the process left emptied), points
 * every pooled connection's `search_path` at it, runs the migrations there, and empties it for the
 * next layer when it closes. Test files running in parallel never see each other's rows.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import type { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, Redacted } from "effect"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { databaseLayer, DatabaseMemory, isPostgresUrl } from "./database.js"
import { serverDatabaseLayer } from "./fast/database.js"
import { migratedDatabase } from "./sql/database.js"

/** `url` with every connection's `search_path` set to `schema` (libpq's `options`). */
export const withSearchPath = (url: string, schema: string): string => {
  const parsed = new URL(url)
  parsed.searchParams.set("options", `-c search_path=${schema}`)
  return parsed.toString()
}

/**
 * Migrated schemas no layer holds, emptied, by server: a migrated layer takes one before it makes
 * one (creating, migrating and dropping a schema costs about 600 ms on the 2-core CI machine,
 * emptying one about 170 ms). Per process: the test files of a worker share them one after another.
 */
const idleSchemas = new Map<string, Array<string>>()

/**
 * What migrations write: the kit's and the engine's bookkeeping (the next layer's migrations find
 * nothing to do) and the tables whose rows the migrations wrote (the counted tables' registry).
 */
const migrated = ["effect_sql_migrations", "cluster_migrations", "counted_document_tables"]

/**
 * Empties `schema` for the next layer: every table's rows but what migrations wrote (`migrated`),
 * the engine's and the control plane's included, sequences restarted. The layer's connections are
 * closed by then; a server backend that still holds or waits for a lock on one of its tables (a
 * backend waiting for a row lock does not notice that its client went away) is ended first, or
 * the TRUNCATE would wait for it for good (a CI run's close once hung there). If the TRUNCATE
 * still cannot have its locks within 10 s, it fails, and the schema is not used again.
 */
const emptySchema = (admin: SqlClient.SqlClient, schema: string) =>
  Effect.gen(function*() {
    const tables = yield* admin<{ name: string }>`SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = ${schema} AND table_type = 'BASE TABLE' AND table_name NOT IN ${admin.in(migrated)}`
    if (tables.length === 0) return
    const stragglers = yield* admin<{ pid: number; state: string | null; query: string | null }>`
      SELECT DISTINCT l.pid, a.state, a.query FROM pg_locks l
      JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE n.nspname = ${schema} AND l.pid <> pg_backend_pid()`
    for (const { pid, query, state } of stragglers) {
      process.stderr.write(`[test database] ending backend ${pid} (${state}: ${query?.slice(0, 200)}), still locking in ${schema}\n`)
      yield* admin`SELECT pg_terminate_backend(${pid})`
    }
    yield* admin.withTransaction(Effect.zipRight(
      admin.unsafe(`SET LOCAL lock_timeout = '10s'`),
      admin.unsafe(`TRUNCATE ${tables.map(({ name }) => `${schema}."${name.replace(/"/g, "\"\"")}"`).join(", ")} RESTART IDENTITY CASCADE`)
    ))
  })

/**
 * A PostgreSQL schema of its own in the database at `url`, opened by `open` (default: migrated).
 * A migrated one is emptied and kept for the next layer of the process when the layer closes
 * (`idleSchemas`), any other dropped.
 */
export const pgSchemaLayer = (url: string, open: (url: string) => ReturnType<typeof databaseLayer> = databaseLayer) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const admin = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
      const idle = open === databaseLayer ? idleSchemas.get(url) ?? idleSchemas.set(url, []).get(url)! : undefined
      const schema = yield* Effect.acquireRelease(
        Effect.suspend(() => {
          const kept = idle?.pop()
          if (kept !== undefined) return Effect.succeed(kept)
          const made = `t_${Crypto.randomBytes(6).toString("hex")}`
          return Effect.as(admin.unsafe(`CREATE SCHEMA ${made}`), made)
        }),
        (schema) =>
          idle === undefined
            ? Effect.ignore(admin.unsafe(`DROP SCHEMA ${schema} CASCADE`))
            : emptySchema(admin, schema).pipe(
              Effect.zipRight(Effect.sync(() => idle.push(schema))),
              // left as it is (the throwaway server goes with its rows): a DROP would wait as well
              Effect.ignore
            )
      )
      return open(withSearchPath(url, schema))
    })
  ).pipe(Layer.provide(Reactivity.layer))

/** A fresh directory under the system's temporary one, removed with everything in it when the scope closes. */
export const temporaryDirectory = (label: string) =>
  Effect.acquireRelease(
    Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), `platform-kit-${label}-`))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )

/**
 * A migrated SQLite file of its own in a temporary directory, removed on close, opened as the
 * standalone server opens it (group commit, the read connection: fast/database.ts).
 */
export const sqliteFileLayer = Layer.unwrapScoped(
  Effect.map(temporaryDirectory("test"), (dir) => serverDatabaseLayer(`sqlite:${Path.join(dir, "test.db")}`))
)

/**
 * What tests run on: a PostgreSQL schema of its own when DATABASE_URL names a server; else a SQLite
 * file of its own when `PLATFORM_TEST_DATABASE` is `file` (the default of `npm test`), or an
 * in-memory SQLite database.
 */
export const DatabaseTest: Layer.Layer<SqlClient.SqlClient, Layer.Layer.Error<ReturnType<typeof pgSchemaLayer>>> = Layer.unwrapEffect(
  Effect.map(
    Config.all([
      Config.string("DATABASE_URL").pipe(Config.withDefault("sqlite::memory:")),
      Config.literal("file", "memory")("PLATFORM_TEST_DATABASE").pipe(Config.withDefault("memory" as const))
    ]),
    ([url, sqlite]) => (isPostgresUrl(url) ? pgSchemaLayer(url) : sqlite === "file" ? sqliteFileLayer : DatabaseMemory)
  )
)

/** No migration run: for the tests of a migration, which run the ones before it first. */
const unmigrated = (url: string) => migratedDatabase(url, Effect.succeed([]))

/**
 * A fresh database with no table of the kit's yet, on `DatabaseTest`'s kind of server: an
 * in-memory SQLite database, or a PostgreSQL schema of its own.
 */
export const UnmigratedDatabaseTest = Layer.unwrapEffect(
  Effect.map(
    Config.string("DATABASE_URL").pipe(Config.withDefault("sqlite::memory:")),
    (url) => (isPostgresUrl(url) ? pgSchemaLayer(url, unmigrated) : unmigrated("sqlite::memory:"))
  )
)
