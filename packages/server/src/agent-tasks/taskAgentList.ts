/** The lists of what belongs to a task and an agent (states, trackers): agentex's page, narrowed by either. */
import type { SqlClient, Statement } from "@effect/sql"
import { Effect } from "effect"
import type { Page, PageRequest } from "../sql/documents.js"

export interface TaskAgentListRequest {
  readonly accountIds: ReadonlyArray<string>
  readonly page: number
  readonly limit: number
  readonly orderBy: "created_at" | "updated_at"
  readonly direction: "asc" | "desc"
  readonly taskId?: string | undefined
  readonly agentId?: string | undefined
}

/** One page's items of `page` (a document table's), `request`'s filters and order, then `then` and `id`. */
export const taskAgentList = <A>(
  sql: SqlClient.SqlClient,
  page: (request: PageRequest) => Effect.Effect<Page<A>>,
  request: TaskAgentListRequest,
  then?: "created_at" | "updated_at"
) => {
  const where: Array<Statement.Fragment> = []
  if (request.taskId !== undefined) where.push(sql`task_id = ${request.taskId}`)
  if (request.agentId !== undefined) where.push(sql`agent_id = ${request.agentId}`)
  const direction = sql.literal(request.direction === "asc" ? "ASC" : "DESC")
  const tie = then === undefined ? sql.literal("") : sql`${sql(then)} ${direction}, `
  return Effect.map(
    page({ ...request, where, orderBy: sql`${sql(request.orderBy)} ${direction}, ${tie}id ${direction}` }),
    (found) => found.items
  )
}
