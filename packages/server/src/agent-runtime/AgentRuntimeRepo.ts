import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { AgentRuntimeDeployment } from "@platform-kit/schema"
import { Effect } from "effect"
import { makeDocuments } from "../sql/documents.js"

export class AgentRuntimeRepo extends Effect.Service<AgentRuntimeRepo>()("@platform-kit/server/AgentRuntimeRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "agent_runtime_deployments",
      label: "Agent runtime deployment",
      schema: AgentRuntimeDeployment,
      columns: (deployment) => ({
        id: deployment.id,
        account_id: deployment.account_id,
        created_at: deployment.created_at,
        build_id: deployment.build_id,
        // the column is NOT NULL (and sorts the same on both dialects): no agent name is stored as ''
        agent_name: deployment.agent_name ?? "",
        preview_label: deployment.preview_label
      })
    })
    const sql = yield* SqlClient.SqlClient

    /** The list filters, each an exact match. */
    const filters = (query: {
      readonly build_id?: string | undefined
      readonly agent_name?: string | undefined
      readonly preview_label?: string | undefined
    }) => {
      const where: Array<Statement.Fragment> = []
      if (query.build_id !== undefined) where.push(sql`build_id = ${query.build_id}`)
      // an empty filter value matches nothing (it would otherwise match the deployments without a name)
      if (query.agent_name !== undefined) where.push(sql`agent_name = ${query.agent_name} AND agent_name <> ''`)
      if (query.preview_label !== undefined) where.push(sql`preview_label = ${query.preview_label}`)
      return where
    }

    return { ...documents, filters } as const
  })
}) {}
