import { SqlClient } from "@effect/sql"
import { AgentDeployment } from "@platform-kit/schema"
import { Data, Effect, Schema, Struct } from "effect"
import { makeDocuments } from "../../sql/documents.js"
import { uniqueRefusedAs } from "../../sql/errors.js"
import type { AgentConnection } from "../agents/AgentsRepo.js"

/** A deployment as stored: the wire resource and its account. */
export const StoredDeployment = Schema.Struct({ ...AgentDeployment.fields, account_id: Schema.String })
export type StoredDeployment = typeof StoredDeployment.Type

/** The deployment as answered. */
export const deploymentOf = (stored: StoredDeployment) => new AgentDeployment(Struct.omit(stored, "account_id"), true)

/** A registration naming a new deployment id of its agent that another registration stored at the same moment (PostgreSQL): tried again. */
export class DeploymentIdTaken extends Data.TaggedError("DeploymentIdTaken")<{ readonly id: string }> {}

/**
 * The `agent_deployments` table (migration.ts): the document, and beside it what reads filter on
 * (the agent, `is_production` as 0 or 1, `expires_at`) and what is never answered (the sealed key).
 * A deployment is keyed by its agent and its id: two agents may each have a deployment `blue`. A
 * delete is soft: the row stays, `expires_at` set.
 */
export class DeploymentsRepo extends Effect.Service<DeploymentsRepo>()("@platform-kit/server/DeploymentsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* makeDocuments({
      table: "agent_deployments",
      label: "Deployment",
      schema: StoredDeployment,
      columns: (deployment) => ({
        id: deployment.id,
        account_id: deployment.account_id,
        created_at: deployment.created_at,
        agent_id: deployment.agent_id,
        is_production: deployment.is_production ? 1 : 0,
        expires_at: deployment.expires_at
      })
    })

    /**
     * The deployment `id` of agent `agentId` in `accountIds` (not locked: the transactions that
     * write a deployment lock its agent's row first, a promote's and a registration's alike).
     */
    const find = (id: string, agentId: string, accountIds: ReadonlyArray<string>) =>
      documents.findFirst(accountIds, [sql`agent_id = ${agentId}`, sql`id = ${id}`])

    /** Stores a new deployment, with its ACP server when it registered; its id taken meanwhile: `DeploymentIdTaken`. */
    const insert = (deployment: StoredDeployment, connection: AgentConnection = { acpUrl: null, sealedKey: null }) =>
      sql`INSERT INTO agent_deployments ${
        sql.insert({ ...documents.record(deployment), acp_url: connection.acpUrl, api_key_sealed: connection.sealedKey })
      }`.pipe(
        Effect.as(deployment),
        uniqueRefusedAs({ sqliteColumn: "agent_deployments.agent_id, agent_deployments.id", postgresIndex: "agent_deployments_pkey" }, () =>
          new DeploymentIdTaken({ id: deployment.id }))
      )

    /** Writes the deployment, and its ACP server when given (else it stays). */
    const update = (deployment: StoredDeployment, connection?: AgentConnection) => {
      const { id, ...rest } = documents.record(deployment)
      const set = connection === undefined ? rest : { ...rest, acp_url: connection.acpUrl, api_key_sealed: connection.sealedKey }
      return Effect.orDie(sql`UPDATE agent_deployments SET ${sql.update(set)} WHERE agent_id = ${deployment.agent_id} AND id = ${id}`).pipe(
        Effect.as(deployment)
      )
    }

    /** The production deployment of agent `agentId`, if it has one. */
    const production = (agentId: string, accountId: string) =>
      documents.findFirst([accountId], [sql`agent_id = ${agentId}`, sql`is_production = 1`])

    /** A page of agent `agentId`'s deployments that are not deleted. */
    const list = (request: {
      readonly accountIds: ReadonlyArray<string>
      readonly agentId: string
      readonly page: number
      readonly limit: number
      readonly direction: "asc" | "desc"
    }) => {
      const direction = sql.literal(request.direction === "asc" ? "ASC" : "DESC")
      return Effect.map(
        documents.page({
          ...request,
          where: [sql`agent_id = ${request.agentId}`, sql`expires_at IS NULL`],
          orderBy: sql`created_at ${direction}, id ${direction}`
        }),
        (page) => page.items
      )
    }

    return { find, insert, update, production, list, transaction: documents.transaction } as const
  })
}) {}
