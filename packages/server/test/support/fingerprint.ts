/**
 * A cheap fingerprint of the database, to check that a rejected request wrote nothing: on SQLite, a
 * counter that temporary triggers on every table bump for each row inserted, deleted or actually
 * changed. The triggers live in the connection's `temp` schema,
 * invisible to the application; a write rolled back takes its bumps with it, and an `UPDATE` that
 * changes nothing (a row lock) is not counted. On PostgreSQL (`npm run test:pg`) the triggers
 * append to a log table of the test's own schema (the application's connections are other
 * sessions, so nothing temporary would see their writes), read as its highest id.
 *
 * The workflow engine's own tables (`cluster_*`: its messages, locks and runner heartbeats) are left
 * out: they change by themselves while the engine runs, and say nothing of what a request wrote.
 * So is the usage log of model executions (`model_usage`): its rows are written in batches up to
 * a second after the executions that ran (docs/models.md "Usage"), and a rejected request runs none
 * (models-usage.test.ts counts what is recorded).
 */
import { SqlClient } from "@effect/sql"
import { type Duration, Effect, Option, TestServices } from "effect"
import { eventually } from "../../src/testing.js"

/** Where the triggers count changes (a temporary table on SQLite, a table of the test schema on PostgreSQL). */
const changesTable = "fingerprint_changes"

/** The workflow engine's tables (workflows.ts), the usage log written behind the requests, and the counter. */
const isEngineTable = (name: string) => name.startsWith("cluster_") || name === "model_usage" || name === changesTable

const quote = (name: string) => `"${name.replace(/"/g, "\"\"")}"`

/**
 * The statement that reads each database's fingerprint, by its client: the triggers are made at
 * the first fingerprint of a database and stay as long as it does (SQLite's temporary ones as long
 * as its connection), and the kit creates no table after its migrations but the engine's (left
 * out). Making them again for each test cost a statement per table and trigger (about 50 ms).
 */
const statements = new WeakMap<SqlClient.SqlClient, string>()

export const makeFingerprint = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statement = statements.get(sql) ?? (yield* sql.onDialectOrElse({
    sqlite: () =>
      Effect.gen(function*() {
        // plain tables: a full-text index's virtual and shadow tables follow their content table's triggers
        const tables = yield* sql<{ name: string }>`
          SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`
        yield* sql.unsafe("CREATE TEMP TABLE IF NOT EXISTS fingerprint_changes (n INTEGER NOT NULL)")
        yield* sql.unsafe("INSERT INTO fingerprint_changes SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM fingerprint_changes)")
        const bump = "BEGIN UPDATE fingerprint_changes SET n = n + 1; END"
        for (const [i, { name }] of tables.filter((t) => !isEngineTable(t.name)).entries()) {
          const columns = yield* sql<{ name: string }>`SELECT name FROM pragma_table_info(${name})`
          const same = columns.map((c) => `OLD.${quote(c.name)} IS NEW.${quote(c.name)}`).join(" AND ")
          const on = `main.${quote(name)}`
          yield* sql.unsafe(`CREATE TEMP TRIGGER IF NOT EXISTS fingerprint_i${i} AFTER INSERT ON ${on} ${bump}`)
          yield* sql.unsafe(`CREATE TEMP TRIGGER IF NOT EXISTS fingerprint_d${i} AFTER DELETE ON ${on} ${bump}`)
          yield* sql.unsafe(`CREATE TEMP TRIGGER IF NOT EXISTS fingerprint_u${i} AFTER UPDATE ON ${on} WHEN NOT (${same}) ${bump}`)
        }
        // the counter alone: every insert and delete bumps it too, so row counts would add nothing
        return "SELECT n AS changes FROM fingerprint_changes"
      }),
    pg: () =>
      Effect.gen(function*() {
        // the same counter, as a log table the triggers append to (a counter row would be a lock
        // every writing transaction waits on): a rolled-back write takes its rows with it
        const [{ schema }] = yield* sql<{ schema: string }>`SELECT current_schema() AS schema`
        const log = `${quote(schema)}.${quote(changesTable)}`
        const exists = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM information_schema.tables
          WHERE table_schema = ${schema} AND table_name = ${changesTable}`
        if (Number(exists[0]?.n ?? 0) === 0) {
          const tables = yield* sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables
            WHERE table_schema = ${schema} AND table_type = 'BASE TABLE' ORDER BY table_name`
          yield* sql.unsafe(`CREATE TABLE ${log} (id bigserial PRIMARY KEY)`)
          const bump = `${quote(schema)}.fingerprint_bump`
          yield* sql.unsafe(
            `CREATE OR REPLACE FUNCTION ${bump}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO ${log} DEFAULT VALUES; RETURN NULL; END $$`
          )
          for (const { table_name } of tables.filter((t) => !isEngineTable(t.table_name))) {
            const on = `${quote(schema)}.${quote(table_name)}`
            yield* sql.unsafe(`CREATE TRIGGER fingerprint_w AFTER INSERT OR DELETE ON ${on} FOR EACH ROW EXECUTE FUNCTION ${bump}()`)
            // documents are json, which has no equality: rows compare as text
            yield* sql.unsafe(
              `CREATE TRIGGER fingerprint_u AFTER UPDATE ON ${on} FOR EACH ROW WHEN (OLD::text IS DISTINCT FROM NEW::text) EXECUTE FUNCTION ${bump}()`
            )
          }
        }
        return `SELECT coalesce(max(id), 0) AS changes FROM ${log}`
      }),
    orElse: () => Effect.dieMessage("fingerprint: SQLite or PostgreSQL only")
  }).pipe(Effect.orDie, Effect.tap((made) => Effect.sync(() => statements.set(sql, made)))))
  /** The fingerprint now, as a string: equal strings, unchanged database. */
  const read = sql.unsafe<Record<string, unknown>>(statement).pipe(
    Effect.map((rows) => JSON.stringify(rows[0])),
    Effect.orDie
  )
  return Effect.zipRight(backgroundIdle(sql), read)
})

/**
 * Waits (real time, at most 30 s) until no install job is waiting or running and no upload is
 * running: the package installer and an upload's ingestion, background work, change those rows
 * (and artifacts, chunks) by themselves after the request that made them answered, which would
 * read as a write of whatever request the fingerprint is taken around. A job a rejected request
 * made is still caught: it is waited for, and its row differs.
 */
const backgroundIdle = (sql: SqlClient.SqlClient) => {
  const busy = sql<{ n: number }>`SELECT (SELECT COUNT(*) FROM deployment_package_jobs WHERE status IN ('PENDING', 'RUNNING'))
    + (SELECT COUNT(*) FROM kb_uploads WHERE status = 'Running') AS n`.pipe(
    Effect.map((rows) => Number(rows[0]?.n ?? 0) > 0),
    Effect.orDie
  )
  const pause = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 20)))
  const loop = (left: number): Effect.Effect<void> =>
    Effect.flatMap(busy, (isBusy) => (isBusy && left > 0 ? Effect.zipRight(pause, loop(left - 1)) : Effect.void))
  return loop(1500)
}

/**
 * `fingerprint` once two reads `pause` apart agree (`within` ms at most): what background work a
 * request started has ended before a test compares the tables.
 */
export const stillFingerprint = (fingerprint: Effect.Effect<string>, pause: Duration.DurationInput = "50 millis", within = 5_000) =>
  Effect.gen(function*() {
    let last = yield* fingerprint
    const still = yield* eventually(
      Effect.gen(function*() {
        yield* TestServices.provideLive(Effect.sleep(pause))
        const now = yield* fingerprint
        const same = now === last
        last = now
        return same ? Option.some(now) : Option.none()
      }),
      within
    )
    return Option.getOrElse(still, () => last)
  })

/**
 * Whether `request`, sent again once the database is still (`stillFingerprint`), is rejected (a
 * 4xx) and changes the fingerprint all the same, twice in a row: a rejected request's change seen
 * the first time may be background work an earlier write started, and so, rarely, may one resend's
 * (work whose writes are further apart than `pause`: an engine step, a retry's backoff); a write of
 * the request's own is made each time it is sent.
 */
export const writesWhenRejected = <A extends { readonly status: number }>(
  fingerprint: Effect.Effect<string>,
  request: Effect.Effect<A>,
  pause?: Duration.DurationInput
) => {
  const once = Effect.gen(function*() {
    const still = yield* stillFingerprint(fingerprint, pause)
    const again = yield* request
    return again.status >= 400 && again.status < 500 && (yield* fingerprint) !== still
  })
  return Effect.flatMap(once, (wrote) => (wrote ? once : Effect.succeed(false)))
}
