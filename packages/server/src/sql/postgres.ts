/**
 * The PostgreSQL client, in a module of its own: the database layer imports it (and with it `pg`
 * and `@effect/sql-pg`) only for a `postgres://` URL, so a start on SQLite does not load them.
 */
import { PgClient } from "@effect/sql-pg"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer } from "effect"
import * as Pg from "pg"
import { PgPoolSize } from "../config.js"
import { pgOnConnect, pgTypeParsers } from "./dialect.js"

const types = pgTypeParsers(Pg.types)

/**
 * PostgreSQL at `url` through a pool of at most `PLATFORM_PG_POOL_SIZE` connections (default
 * 10), reading values back as SQLite gives them and sending parameters PostgreSQL accepts
 * (`dialect.ts`). Query parameters of the URL reach the server:
 * `?options=-c%20search_path%3Dplatform` puts the tables in schema `platform`.
 */
export const pgLayer = (url: string) =>
  Layer.unwrapEffect(
    Effect.map(PgPoolSize, (max) =>
      PgClient.layerFromPool({
        acquire: Effect.acquireRelease(
          Effect.tryPromise({
            try: async () => {
              const pool = new Pg.Pool({
                connectionString: url,
                max,
                application_name: "platform-kit",
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
        applicationName: "platform-kit",
        types
      }))
  )

