/**
 * The database a test layer runs on. By default a fresh SQLite file (`DatabaseTest`); when
 * `DATABASE_URL` names a PostgreSQL server (`npm run test:pg`), a fresh schema of that database:
 * each layer creates `t_<random>`, points every pooled connection's `search_path` at it, runs the
 * migrations there, and drops it (CASCADE) when the layer closes. Test files running in parallel
 * never see each other's rows.
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
 * A PostgreSQL schema of its own in the database at `url`, dropped on close, opened by `open`
 * (default: migrated).
 */
export const pgSchemaLayer = (url: string, open: (url: string) => ReturnType<typeof databaseLayer> = databaseLayer) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const schema = `t_${Crypto.randomBytes(6).toString("hex")}`
      const admin = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
      yield* Effect.acquireRelease(
        admin.unsafe(`CREATE SCHEMA ${schema}`),
        () => Effect.ignore(admin.unsafe(`DROP SCHEMA ${schema} CASCADE`))
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
