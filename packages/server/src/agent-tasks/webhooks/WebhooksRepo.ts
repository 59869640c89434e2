import { SqlClient } from "@effect/sql"
import { Conflict } from "@platform-kit/schema"
import { Effect } from "effect"
import { uniqueRefusedAs } from "../../sql/errors.js"

/** An agent's webhook key as stored: its secret sealed for the key's id. */
export interface WebhookKeyRow {
  readonly id: string
  readonly account_id: string
  readonly agent_id: string
  readonly name: string
  readonly source: string
  readonly secret_sealed: string
}

/** A delivery kept for its retries: its state and, while it is retried, its request sealed for its id. */
export interface DeliveryRow {
  readonly id: string
  readonly account_id: string
  readonly agent_id: string
  readonly status: "succeeded" | "retrying" | "failed"
  readonly attempts: number
  readonly request_sealed: string | null
}

/** One attempt at delivering: when, the agent's status (none when it could not be reached), how long, what failed. */
export interface DeliveryAttempt {
  readonly attempt: number
  readonly started_at: string
  readonly status_code: number | null
  readonly latency_ms: number
  readonly error: string | null
}

/**
 * The tables of webhook triggers (migration.ts): the agents' webhook keys, and the deliveries
 * forwarded to agents with each attempt.
 */
export class WebhooksRepo extends Effect.Service<WebhooksRepo>()("@platform-kit/server/WebhooksRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Stores a key; a second of the same agent, name and source is a 409 with agentex's message. */
    const insertKey = (key: WebhookKeyRow & { readonly created_at: string }) =>
      sql`INSERT INTO agent_webhook_keys ${sql.insert({ ...key })}`.pipe(
        Effect.asVoid,
        uniqueRefusedAs(
          { sqliteColumn: "agent_webhook_keys.name", postgresIndex: "agent_webhook_keys_agent_name_source" },
          () => new Conflict({ detail: `A ${key.source} webhook key named '${key.name}' already exists for this agent.` })
        )
      )

    /** The keys of `source` of the agents `agentIds`, named `name` when given. */
    const keysOf = (agentIds: ReadonlyArray<string>, source: string, name?: string) =>
      agentIds.length === 0
        ? Effect.succeed([] as ReadonlyArray<WebhookKeyRow>)
        : Effect.orDie(sql<WebhookKeyRow>`SELECT id, account_id, agent_id, name, source, secret_sealed FROM agent_webhook_keys WHERE ${
          sql.and([sql.in("agent_id", agentIds), sql`source = ${source}`, ...(name === undefined ? [] : [sql`name = ${name}`])])
        } ORDER BY account_id, id`)

    /** The ids and accounts of the live agents named `name`, in every account. */
    const agentsNamed = (name: string) =>
      Effect.orDie(sql<{ id: string; account_id: string }>`SELECT id, account_id FROM agents WHERE name = ${name} AND status <> 'Deleted' ORDER BY account_id`)

    /** A delivery's first attempt, with the delivery it begins (one transaction). */
    const insertDelivery = (delivery: DeliveryRow & {
      readonly key_id: string | null
      readonly method: string
      readonly path: string
      readonly created_at: string
    }, attempt: DeliveryAttempt) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO agent_webhook_deliveries ${sql.insert({ ...delivery, updated_at: delivery.created_at })}`
        yield* sql`INSERT INTO agent_webhook_delivery_attempts ${
          sql.insert({ ...attempt, delivery_id: delivery.id, account_id: delivery.account_id })
        }`
      })).pipe(Effect.orDie)

    const delivery = (id: string) =>
      Effect.map(
        Effect.orDie(sql<DeliveryRow>`SELECT id, account_id, agent_id, status, attempts, request_sealed FROM agent_webhook_deliveries WHERE id = ${id}`),
        (rows) => rows[0] === undefined ? undefined : { ...rows[0], attempts: Number(rows[0].attempts) }
      )

    /**
     * A later attempt and where it leaves the delivery (one transaction): `request_sealed` dropped
     * once the delivery has ended. An attempt already recorded (its step run again) is kept.
     */
    const recordAttempt = (
      delivery: DeliveryRow,
      attempt: DeliveryAttempt,
      status: DeliveryRow["status"],
      updatedAt: string
    ) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO agent_webhook_delivery_attempts ${
          sql.insert({ ...attempt, delivery_id: delivery.id, account_id: delivery.account_id })
        } ON CONFLICT (delivery_id, attempt) DO NOTHING`
        const sealed = status === "retrying" ? sql`request_sealed` : sql`NULL`
        yield* sql`UPDATE agent_webhook_deliveries SET status = ${status}, attempts = ${attempt.attempt}, request_sealed = ${sealed}, updated_at = ${updatedAt} WHERE id = ${delivery.id}`
      })).pipe(Effect.orDie)

    /** The deliveries still being retried (their lifecycles started again when the engine starts). */
    const retrying = Effect.orDie(sql<{ id: string; account_id: string }>`SELECT id, account_id FROM agent_webhook_deliveries WHERE status = 'retrying'`)

    return { insertKey, keysOf, agentsNamed, insertDelivery, delivery, recordAttempt, retrying } as const
  })
}) {}
