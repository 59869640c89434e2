import { SqlClient } from "@effect/sql"
import { DeploymentHistory } from "@platform-kit/schema"
import { Effect, Option, Schema, Struct } from "effect"
import { makeDocuments } from "../../sql/documents.js"

/** An entry as stored: the wire resource and its account. */
export const StoredHistory = Schema.Struct({ ...DeploymentHistory.fields, account_id: Schema.String })
export type StoredHistory = typeof StoredHistory.Type

/** The entry as answered. */
export const historyOf = (stored: StoredHistory) => new DeploymentHistory(Struct.omit(stored, "account_id"), true)

export type HistoryOrder = "deployment_timestamp" | "build_timestamp"

/**
 * The `agent_deployment_history` table (deployments/migration.ts): a log, written by
 * registrations and promotions (docs/agent-tasks.md "Deployments"), never changed.
 */
export class HistoryRepo extends Effect.Service<HistoryRepo>()("@platform-kit/server/HistoryRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* makeDocuments({
      table: "agent_deployment_history",
      label: "Deployment",
      schema: StoredHistory,
      columns: (entry) => ({
        id: entry.id,
        account_id: entry.account_id,
        created_at: entry.deployment_timestamp,
        agent_id: entry.agent_id,
        commit_hash: entry.commit_hash,
        deployment_timestamp: entry.deployment_timestamp,
        build_timestamp: entry.build_timestamp
      })
    })

    /** The commit of agent `agentId`'s latest entry (by `deployment_timestamp`), if it has one. */
    const latestCommit = (agentId: string, accountId: string) =>
      sql<{ commit_hash: string }>`SELECT commit_hash FROM agent_deployment_history WHERE account_id = ${accountId} AND agent_id = ${agentId}
        ORDER BY deployment_timestamp DESC, id DESC LIMIT 1`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => row.commit_hash)),
        Effect.orDie
      )

    /** A page of agent `agentId`'s entries. */
    const list = (request: {
      readonly accountIds: ReadonlyArray<string>
      readonly agentId: string
      readonly page: number
      readonly limit: number
      readonly orderBy: HistoryOrder
      readonly direction: "asc" | "desc"
    }) => {
      const direction = sql.literal(request.direction === "asc" ? "ASC" : "DESC")
      return Effect.map(
        documents.page({
          ...request,
          where: [sql`agent_id = ${request.agentId}`],
          orderBy: sql`${sql(request.orderBy)} ${direction}, id ${direction}`
        }),
        (page) => page.items
      )
    }

    return { ...Struct.pick(documents, "get", "insert"), latestCommit, list } as const
  })
}) {}
