import { SqlClient } from "@effect/sql"
import { Agent, NotFound } from "@platform-kit/schema"
import { Data, Effect, Option, Schema, Struct } from "effect"
import { makeDocuments } from "../../sql/documents.js"
import { uniqueRefusedAs } from "../../sql/errors.js"

/** An agent as stored: the wire resource and its account. */
export const StoredAgent = Schema.Struct({ ...Agent.fields, account_id: Schema.String })
export type StoredAgent = typeof StoredAgent.Type

/** The agent as answered. */
export const agentOf = (stored: StoredAgent) => new Agent(Struct.omit(stored, "account_id"))

/**
 * Where and how the platform calls an agent: its ACP URL and its sealed `x-agent-api-key`, sealed
 * for `sealedFor` (the deployment's id when it is a deployment's; the agent's when not given).
 */
export interface AgentConnection {
  readonly acpUrl: string | null
  readonly sealedKey: string | null
  readonly sealedFor?: string | undefined
}

/** What the key of deployment `id` of agent `agentId` is sealed for (a deployment's id is its agent's own). */
export const deploymentSealedFor = (agentId: string, id: string) => `${agentId}/${id}`

export type AgentOrder = "created_at" | "updated_at" | "name"

/** An agent's name is taken in its account (by a registration at the same moment: the upsert is tried again). */
export class AgentNameTaken extends Data.TaggedError("AgentNameTaken")<{ readonly name: string }> {}

/**
 * The `agents` table (agent-tasks/migration.ts): the ACP URL and the sealed key live in columns
 * of their own, never in `doc`. A deleted agent keeps its row (status `Deleted`): no read finds
 * it but a registration of its name, which revives it.
 */
export class AgentsRepo extends Effect.Service<AgentsRepo>()("@platform-kit/server/AgentsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* makeDocuments({
      table: "agents",
      label: "Agent",
      schema: StoredAgent,
      columns: (agent) => ({
        id: agent.id,
        account_id: agent.account_id,
        created_at: agent.created_at,
        name: agent.name,
        status: agent.status,
        updated_at: agent.updated_at
      })
    })
    const decode = Schema.decodeUnknownSync(Schema.parseJson(StoredAgent))
    const live = sql`status <> 'Deleted'`
    const first = (rows: ReadonlyArray<{ readonly doc: string }>) => Option.map(Option.fromNullable(rows[0]), (row) => decode(row.doc))

    /** The live agent `id` in `accountIds` (row-locked inside a transaction on PostgreSQL: see `documents.findById`). */
    const find = (id: string, accountIds: ReadonlyArray<string>) =>
      Effect.map(documents.findById(id, accountIds), Option.filter((agent) => agent.status !== "Deleted"))

    /** The live agent `id` in `accountIds` as `find` reads it, else a 404 (what every read of an agent by id answers; `detail` for the families that word it as agentex does). */
    const getLive = (id: string, accountIds: ReadonlyArray<string>, detail = `Agent ${id} not found`) =>
      Effect.flatMap(find(id, accountIds), Option.match({
        onNone: () => Effect.fail(new NotFound({ detail })),
        onSome: Effect.succeed
      }))

    /** The agent named `name` in `accountId`; a deleted one too when `includeDeleted` (a registration). */
    const findByName = (name: string, accountId: string, includeDeleted = false) =>
      sql<{ doc: string }>`SELECT doc FROM agents WHERE account_id = ${accountId} AND name = ${name} ${
        includeDeleted ? sql.literal("") : sql`AND ${live}`
      }`.pipe(Effect.map(first), Effect.orDie)

    /**
     * The agent `id` of `accountId` as it is now, deleted or not, its row locked until the
     * transaction ends on PostgreSQL (SQLite's one writer runs alone): what a registration writes
     * back is not another's change undone (a promote's, deployments/http.ts).
     */
    const locked = (id: string, accountId: string) => Effect.map(documents.findById(id, [accountId]), Option.getOrUndefined)

    /** Stores a new agent; its name already taken in the account fails with `AgentNameTaken`. */
    const insert = (agent: StoredAgent, connection: AgentConnection) =>
      sql`INSERT INTO agents ${
        sql.insert({ ...documents.record(agent), acp_url: connection.acpUrl, api_key_sealed: connection.sealedKey })
      }`.pipe(
        Effect.as(agent),
        uniqueRefusedAs({ sqliteColumn: "agents.name", postgresIndex: "agents_account_name" }, () => new AgentNameTaken({ name: agent.name }))
      )

    /** Writes the agent, and its connection when given (else the connection stays). */
    const update = (agent: StoredAgent, connection?: AgentConnection) => {
      const { id, ...rest } = documents.record(agent)
      const set = connection === undefined ? rest : { ...rest, acp_url: connection.acpUrl, api_key_sealed: connection.sealedKey }
      return Effect.orDie(sql`UPDATE agents SET ${sql.update(set)} WHERE id = ${id}`).pipe(Effect.as(agent))
    }

    /**
     * Where the platform calls agent `id` (docs/agent-tasks.md "Deployments"): its production
     * deployment's ACP server when it has one with an ACP URL, else its own registration's (an
     * agent registered before deployments existed has none: it is called as it always was);
     * `deploymentId` names one of its deployments to call instead (a preview).
     */
    const connection = (id: string, deploymentId?: string) =>
      (deploymentId !== undefined
        ? sql<{ acp_url: string | null; api_key_sealed: string | null }>`
            SELECT acp_url, api_key_sealed FROM agent_deployments WHERE id = ${deploymentId} AND agent_id = ${id}`.pipe(
            Effect.map((rows): AgentConnection => ({
              acpUrl: rows[0]?.acp_url ?? null,
              sealedKey: rows[0]?.api_key_sealed ?? null,
              sealedFor: deploymentSealedFor(id, deploymentId)
            }))
          )
        : sql<{ acp_url: string | null; api_key_sealed: string | null; deployment_id: string | null; deployment_url: string | null; deployment_key: string | null }>`
            SELECT a.acp_url, a.api_key_sealed, d.id AS deployment_id, d.acp_url AS deployment_url, d.api_key_sealed AS deployment_key
            FROM agents a LEFT JOIN agent_deployments d ON d.agent_id = a.id AND d.is_production = 1 WHERE a.id = ${id}`.pipe(
            Effect.map((rows): AgentConnection => {
              const row = rows[0]
              return row?.deployment_id != null && row.deployment_url !== null
                ? { acpUrl: row.deployment_url, sealedKey: row.deployment_key, sealedFor: deploymentSealedFor(id, row.deployment_id) }
                : { acpUrl: row?.acp_url ?? null, sealedKey: row?.api_key_sealed ?? null }
            })
          )).pipe(Effect.orDie)

    /** The live agents with ids `ids` in `accountIds`. */
    const byIds = (ids: ReadonlyArray<string>, accountIds: ReadonlyArray<string>) =>
      ids.length === 0 ? Effect.succeed([]) : documents.findAll(accountIds, [sql.in("id", [...new Set(ids)]), live])

    /** A page of the live agents of `accountIds` (the agent of task `taskId` when given). */
    const list = (request: {
      readonly accountIds: ReadonlyArray<string>
      readonly page: number
      readonly limit: number
      readonly orderBy: AgentOrder
      readonly direction: "asc" | "desc"
      readonly taskId?: string | undefined
    }) => {
      const where = [live]
      if (request.taskId !== undefined) {
        where.push(sql`id IN (SELECT agent_id FROM agent_tasks WHERE id = ${request.taskId})`)
      }
      const direction = sql.literal(request.direction === "asc" ? "ASC" : "DESC")
      return Effect.map(
        documents.page({ ...request, where, orderBy: sql`${sql(request.orderBy)} ${direction}, id ${direction}` }),
        (page) => page.items
      )
    }

    return { find, getLive, findByName, locked, insert, update, connection, byIds, list, transaction: documents.transaction } as const
  })
}) {}
