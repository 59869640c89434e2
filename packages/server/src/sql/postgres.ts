/**
 * The PostgreSQL client, in a module of its own: the database layer imports it (and with it `pg`
 * and `@effect/sql-pg`) only for a `postgres://` URL, so a start on SQLite does not load them.
 */
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer } from "effect"
import * as Pg from "pg"
import { PgEnginePoolSize, PgPoolSize } from "../config.js"
import { BackgroundSql } from "./database.js"
import { pgOnConnect, pgTypeParsers } from "./dialect.js"

const types = pgTypeParsers(Pg.types)

/** A client over a pool of at most `max` connections to `url`, checked with a first query. */
const pooled = (url: string, max: number, applicationName: string) =>
  PgClient.layerFromPool({
    acquire: Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const pool = new Pg.Pool({
            connectionString: url,
            max,
            application_name: applicationName,
            connectionTimeoutMillis: 10_000,
            types
          })
          pool.on("error", () => {}) // an idle connection lost: the pool replaces it
          pool.on("connect", pgOnConnect)
          try {
            await pool.query("SELECT 1")
          } catch (cause) {
            await pool.end().catch(() => {})
            throw cause
          }
          return pool
        },
        catch: (cause) =>
          new SqlError({ cause, message: `Could not connect to PostgreSQL: ${(cause as Error)?.message ?? cause}` })
      }),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption("5 seconds"))
    ),
    applicationName,
    types
  })

/**
 * PostgreSQL at `url`: the application's pool of at most `PLATFORM_PG_POOL_SIZE` connections
 * (default 10), and background work's own (`BackgroundSql`) of at most
 * `PLATFORM_PG_ENGINE_POOL_SIZE` (default 5), reading values back as SQLite gives them and
 * sending parameters PostgreSQL accepts (`dialect.ts`). Query parameters of the URL reach the
 * server: `?options=-c%20search_path%3Dplatform` puts the tables in schema `platform`.
 */
export const pgLayer = (url: string) =>
  Layer.unwrapEffect(
    Effect.map(Effect.all([PgPoolSize, PgEnginePoolSize]), ([max, engineMax]) =>
      Layer.merge(
        pooled(url, max, "platform-kit"),
        Layer.effect(BackgroundSql, SqlClient.SqlClient).pipe(
          Layer.provide(pooled(url, engineMax, "platform-kit engine"))
        )
      ))
  )
