/**
 * The simulated steps parked for an advance (`manual` progression, docs/control-plane.md): a row
 * per step, written by the step before it waits, read by the control plane's advance, which
 * completes the step's durable deferred with the row's token, then removes the row (a row whose
 * advance did not happen, the engine not running, stays to be advanced again).
 */
import { SqlClient } from "@effect/sql"
import { LifecycleKind, ParkedStep } from "@platform-kit/schema"
import { Clock, Effect, Schema } from "effect"

interface Row {
  readonly token: string
  readonly lifecycle: string
  readonly entity_id: string
  readonly account_id: string
  readonly step: string
  readonly parked_at: string
}

const decodeKind = Schema.decodeUnknownSync(LifecycleKind)

/** The table of each lifecycle's entities: a step parks only while its entity is there. */
const entityTables: Record<LifecycleKind, string> = {
  application_deployment: "application_deployments",
  fine_tuning_job: "fine_tuning_jobs",
  model_deployment: "model_deployments",
  agent_runtime_deployment: "agent_runtime_deployments",
  inference_model: "inference_models",
  build: "builds"
}

const toStep = (row: Row) =>
  new ParkedStep({
    lifecycle: decodeKind(row.lifecycle),
    id: row.entity_id,
    account_id: row.account_id,
    step: row.step,
    parked_at: row.parked_at
  })

export class ParkedSteps extends Effect.Service<ParkedSteps>()("@platform-kit/server/ParkedSteps", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * Parks the step of `token` (again: nothing changes), in one statement that finds the step's
     * entity first: answers false, parking nothing, when the entity is gone (deleted, or emptied
     * by a reset, whose locks this statement waits for): the step then goes on, and its lifecycle
     * ends at its next step. Never a parked row that no reset or advance will see.
     */
    const park = (step: Omit<ParkedStep, "parked_at">, token: string) =>
      Effect.gen(function*() {
        const now = new Date(yield* Clock.currentTimeMillis).toISOString()
        yield* sql`INSERT INTO parked_steps (token, lifecycle, entity_id, account_id, step, parked_at)
          SELECT ${token}, ${step.lifecycle}, ${step.id}, ${step.account_id}, ${step.step}, ${now}
          WHERE EXISTS (SELECT 1 FROM ${sql(entityTables[step.lifecycle])} WHERE id = ${step.id})
          ON CONFLICT (token) DO NOTHING`
        const [row] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM parked_steps WHERE token = ${token}`
        return Number(row?.n ?? 0) > 0
      }).pipe(sql.withTransaction, Effect.orDie)

    const select = (filter: { readonly lifecycle?: string | undefined; readonly id?: string | undefined }) =>
      sql<Row>`SELECT token, lifecycle, entity_id, account_id, step, parked_at FROM parked_steps WHERE ${
        sql.and([
          ...(filter.lifecycle === undefined ? [] : [sql`lifecycle = ${filter.lifecycle}`]),
          ...(filter.id === undefined ? [] : [sql`entity_id = ${filter.id}`])
        ])
      } ORDER BY parked_at, token`

    /** Every parked step, oldest first. */
    const list = Effect.map(select({}), (rows) => rows.map(toStep)).pipe(Effect.orDie)

    /** How many steps are parked. */
    const count = Effect.map(sql<{ n: number }>`SELECT COUNT(*) AS n FROM parked_steps`, (rows) => Number(rows[0]?.n ?? 0)).pipe(
      Effect.orDie
    )

    /** The parked steps `filter` names, oldest first, with their tokens. */
    const find = (filter: { readonly lifecycle?: string | undefined; readonly id?: string | undefined }) =>
      Effect.map(select(filter), (rows) => rows.map((row) => ({ step: toStep(row), token: row.token }))).pipe(Effect.orDie)

    /** Forgets the parked steps of `tokens` (advanced). */
    const remove = (tokens: ReadonlyArray<string>) =>
      tokens.length === 0
        ? Effect.void
        : sql`DELETE FROM parked_steps WHERE ${sql.in("token", tokens)}`.pipe(Effect.asVoid, Effect.orDie)

    /** The tokens of every parked step (a reset reads them in its transaction, to advance them after). */
    const tokens = Effect.map(sql<{ token: string }>`SELECT token FROM parked_steps`, (rows) => rows.map((row) => row.token))

    return { park, list, count, find, remove, tokens } as const
  })
}) {}
