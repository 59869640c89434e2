import { SqlClient } from "@effect/sql"
import { CreatorPrincipal, RunSchedule, ScheduleInitialInput } from "@platform-kit/schema"
import { Array as Arr, Data, Effect, Option, Schema } from "effect"
import { forUpdate } from "../../sql/dialect.js"
import { makeDocuments } from "../../sql/documents.js"
import { uniqueRefusedAs } from "../../sql/errors.js"

/**
 * A schedule as stored: its definition (the wire resource without what is derived at answer time:
 * the live fields, `state`, `initial_input_method`), its account, its one-off skips (ISO
 * instants) and its soft delete.
 */
export const StoredSchedule = Schema.Struct({
  id: Schema.String,
  agent_id: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  initial_input: ScheduleInitialInput,
  cron_expression: Schema.NullOr(Schema.String),
  interval_seconds: Schema.NullOr(Schema.Int),
  timezone: Schema.String,
  start_at: Schema.NullOr(Schema.String),
  end_at: Schema.NullOr(Schema.String),
  paused: Schema.Boolean,
  task_params: RunSchedule.fields.task_params,
  task_metadata: RunSchedule.fields.task_metadata,
  creator_principal: CreatorPrincipal,
  created_at: Schema.String,
  updated_at: Schema.String,
  skipped: Schema.Array(Schema.String),
  deleted_at: Schema.NullOr(Schema.String),
  account_id: Schema.String
})
export type StoredSchedule = typeof StoredSchedule.Type

/** An active schedule of the agent has the name already. */
export class ScheduleNameTaken extends Data.TaggedError("ScheduleNameTaken")<{ readonly name: string }> {}

/** A fire as stored (`agent_run_schedule_fires`). */
export interface Fire {
  readonly fire_id: string
  readonly schedule_id: string
  readonly account_id: string
  readonly trigger_type: "scheduled" | "manual"
  readonly scheduled_at: string
  readonly status: "pending" | "launched" | "skipped"
  readonly reason: string | null
  readonly error: string | null
  readonly task_id: string | null
  readonly attempts: number
  readonly lease_until: string | null
  readonly created_at: string
  readonly updated_at: string
}

/** What the reads answer as live: the fires of the cadence taken so far (launched or pending, not skipped for overlap or as missed). */
export interface Taken {
  readonly last: string | null
  readonly count: number
}

/** A stored schedule from its row's `doc` (the firing loop reads the rows itself). */
export const decodeSchedule = Schema.decodeUnknownSync(Schema.parseJson(StoredSchedule))

/**
 * The `agent_run_schedules` and `agent_run_schedule_fires` tables (migration.ts). `next_fire_at`
 * is a column only: the handlers set it when the cadence changes, the firing loop moves it on.
 */
export class SchedulesRepo extends Effect.Service<SchedulesRepo>()("@platform-kit/server/SchedulesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* makeDocuments({
      table: "agent_run_schedules",
      label: "Run schedule",
      schema: StoredSchedule,
      columns: (schedule) => ({
        id: schedule.id,
        account_id: schedule.account_id,
        created_at: schedule.created_at,
        agent_id: schedule.agent_id,
        name: schedule.name,
        paused: schedule.paused ? 1 : 0,
        deleted_at: schedule.deleted_at
      })
    })
    const nameTaken = (schedule: StoredSchedule) =>
      uniqueRefusedAs(
        { sqliteColumn: "agent_run_schedules.name", postgresIndex: "agent_run_schedules_name" },
        () => new ScheduleNameTaken({ name: schedule.name })
      )
    const first = (rows: ReadonlyArray<{ readonly doc: string }>) => Option.map(Option.fromNullable(rows[0]), (row) => decodeSchedule(row.doc))

    /** Stores a new schedule, due first at `nextFireAt`; its name taken: `ScheduleNameTaken`. */
    const insert = (schedule: StoredSchedule, nextFireAt: string | null) =>
      sql`INSERT INTO agent_run_schedules ${sql.insert({ ...documents.record(schedule), next_fire_at: nextFireAt })}`.pipe(
        nameTaken(schedule),
        Effect.as(schedule)
      )

    /** Writes the schedule, and its next fire when given (a changed cadence, a resume, a delete). */
    const write = (schedule: StoredSchedule, nextFireAt?: string | null) => {
      const { id, ...rest } = documents.record(schedule)
      const set = nextFireAt === undefined ? rest : { ...rest, next_fire_at: nextFireAt }
      return sql`UPDATE agent_run_schedules SET ${sql.update(set)} WHERE id = ${id}`.pipe(nameTaken(schedule), Effect.as(schedule))
    }

    /** The schedule `id` of agent `agentId` in `accountId`, not deleted (row-locked inside a transaction on PostgreSQL). */
    const find = (id: string, agentId: string, accountId: string) =>
      sql<{ doc: string }>`SELECT doc FROM agent_run_schedules WHERE id = ${id} AND agent_id = ${agentId} AND account_id = ${accountId} AND deleted_at IS NULL ${
        forUpdate(sql)
      }`.pipe(Effect.map(first), Effect.orDie)

    /** The schedule named `name` of agent `agentId`, not deleted (row-locked as `find`). */
    const findByName = (name: string, agentId: string, accountId: string) =>
      sql<{ doc: string }>`SELECT doc FROM agent_run_schedules WHERE agent_id = ${agentId} AND name = ${name} AND account_id = ${accountId} AND deleted_at IS NULL ${
        forUpdate(sql)
      }`.pipe(Effect.map(first), Effect.orDie)

    /** The schedule `id` as it is, deleted or not (the firing loop's read before a delivery). */
    const byId = (id: string) =>
      sql<{ doc: string }>`SELECT doc FROM agent_run_schedules WHERE id = ${id}`.pipe(Effect.map(first), Effect.orDie)

    /** The agent's schedules not deleted, newest first, `limit` of them. */
    const list = (agentId: string, accountId: string, limit: number) =>
      sql<{ doc: string }>`SELECT doc FROM agent_run_schedules WHERE agent_id = ${agentId} AND account_id = ${accountId} AND deleted_at IS NULL
        ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map((row) => decodeSchedule(row.doc))), Effect.orDie)

    /** The cadence fires taken so far of each schedule of `ids`. */
    const taken = (ids: ReadonlyArray<string>) =>
      ids.length === 0 ? Effect.succeed(new Map<string, Taken>()) : sql<{ schedule_id: string; last: string | null; count: number | string }>`
        SELECT schedule_id, MAX(scheduled_at) AS last, COUNT(*) AS count FROM agent_run_schedule_fires
        WHERE ${sql.in("schedule_id", [...ids])} AND trigger_type = 'scheduled' AND (status <> 'skipped' OR reason NOT IN ('overlap', 'missed'))
        GROUP BY schedule_id`.pipe(
        Effect.map((rows) => new Map(rows.map((row) => [row.schedule_id, { last: row.last, count: Number(row.count) }]))),
        Effect.orDie
      )

    /** Stores a fire; one of its id stored already (another process's): false. */
    const insertFire = (fire: Fire) =>
      sql<{ fire_id: string }>`INSERT INTO agent_run_schedule_fires ${sql.insert({ ...fire })} ON CONFLICT (fire_id) DO NOTHING RETURNING fire_id`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    /** Stores fires, one statement per 200; those of an id stored already (another process's) are not: the ids stored. */
    const insertFires = (fires: ReadonlyArray<Fire>) =>
      Effect.map(
        Effect.forEach(
          Arr.chunksOf(fires, 200),
          (chunk) =>
            sql<{ fire_id: string }>`INSERT INTO agent_run_schedule_fires ${
              sql.insert(chunk.map((fire) => ({ ...fire })))
            } ON CONFLICT (fire_id) DO NOTHING RETURNING fire_id`
        ),
        (chunks) => new Set(chunks.flat().map((row) => row.fire_id))
      )

    return { insert, write, find, findByName, byId, list, taken, insertFire, insertFires, transaction: documents.transaction } as const
  })
}) {}
