/**
 * A cheap fingerprint of the database, to check that a rejected request wrote nothing: on SQLite, a
 * counter that temporary triggers on every table bump for each row inserted, deleted or actually
 * changed. The triggers live in the connection's `temp` schema,
 * invisible to the application; a write rolled back takes its bumps with it, and an `UPDATE` that
 * changes nothing (a row lock) is not counted. On PostgreSQL (`npm run test:pg`) a hash of every
 * table's rows stands in for the counter.
 *
 * The workflow engine's own tables (`cluster_*`: its messages, locks and runner heartbeats) are left
 * out: they change by themselves while the engine runs, and say nothing of what a request wrote.
 * So is the usage log of model executions (`model_usage`): its rows are written in batches up to
 * 100 ms after the executions that ran (docs/models.md "Usage"), and a rejected request runs none
 * (models-usage.test.ts counts what is recorded).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The workflow engine's tables (workflows.ts), and the usage log written behind the requests. */
const isEngineTable = (name: string) => name.startsWith("cluster_") || name === "model_usage"

const quote = (name: string) => `"${name.replace(/"/g, "\"\"")}"`

export const makeFingerprint = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statement = yield* sql.onDialectOrElse({
    sqlite: () =>
      Effect.gen(function*() {
        const tables = yield* sql<{ name: string }>`
          SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`
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
      Effect.map(
        sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables
          WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
        (tables) =>
          `SELECT ${
            tables.filter((t) => !isEngineTable(t.table_name)).map((t, i) =>
              `(SELECT count(*) || ':' || coalesce(md5(string_agg(x::text, '|' ORDER BY x::text)), '') FROM ${
                quote(t.table_name)
              } x) AS c${i}`
            ).join(", ")
          }`
      ),
    orElse: () => Effect.dieMessage("fingerprint: SQLite or PostgreSQL only")
  }).pipe(Effect.orDie)
  /** The fingerprint now, as a string: equal strings, unchanged database. */
  const read = sql.unsafe<Record<string, unknown>>(statement).pipe(
    Effect.map((rows) => JSON.stringify(rows[0])),
    Effect.orDie
  )
  return Effect.zipRight(backgroundIdle(sql), read)
})

/**
 * Waits (real time, at most 30 s) until no install job is waiting or running: the package
 * installer, a background runner, changes those rows by itself after the request that made them
 * answered, which would read as a write of whatever request the fingerprint is taken around. A
 * job a rejected request made is still caught: it is waited for, and its row differs.
 */
const backgroundIdle = (sql: SqlClient.SqlClient) => {
  const busy = sql<{ n: number }>`SELECT COUNT(*) AS n FROM deployment_package_jobs WHERE status IN ('PENDING', 'RUNNING')`.pipe(
    Effect.map((rows) => Number(rows[0]?.n ?? 0) > 0),
    Effect.orDie
  )
  const pause = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 20)))
  const loop = (left: number): Effect.Effect<void> =>
    Effect.flatMap(busy, (isBusy) => (isBusy && left > 0 ? Effect.zipRight(pause, loop(left - 1)) : Effect.void))
  return loop(1500)
}
