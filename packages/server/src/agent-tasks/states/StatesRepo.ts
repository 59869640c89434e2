import { SqlClient } from "@effect/sql"
import { TaskState } from "@platform-kit/schema"
import { Effect, Option, Schema, Struct } from "effect"
import { makeDocuments } from "../../sql/documents.js"
import { taskAgentList, type TaskAgentListRequest } from "../taskAgentList.js"

/** A state as stored: the wire resource and its account. */
export const StoredState = Schema.Struct({ ...TaskState.fields, account_id: Schema.String })
export type StoredState = typeof StoredState.Type

/** The state as answered. */
export const stateOf = (stored: StoredState) => new TaskState(Struct.omit(stored, "account_id"))

/** The `agent_states` table (agent-tasks/migration.ts): one row per (account, task, agent). */
export class StatesRepo extends Effect.Service<StatesRepo>()("@platform-kit/server/StatesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* makeDocuments({
      table: "agent_states",
      label: "State",
      schema: StoredState,
      columns: (state) => ({
        id: state.id,
        account_id: state.account_id,
        created_at: state.created_at,
        task_id: state.task_id,
        agent_id: state.agent_id,
        updated_at: state.updated_at
      })
    })
    const decode = Schema.decodeUnknownSync(Schema.parseJson(StoredState))

    /** The state of (task, agent) in `accountId`, if there is one. */
    const findOf = (taskId: string, agentId: string, accountId: string) =>
      sql<{ doc: string }>`SELECT doc FROM agent_states WHERE account_id = ${accountId} AND task_id = ${taskId} AND agent_id = ${agentId}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => decode(row.doc))),
        Effect.orDie
      )

    const list = (request: TaskAgentListRequest) => taskAgentList(sql, documents.page, request)

    const remove = (id: string) => Effect.orDie(sql`DELETE FROM agent_states WHERE id = ${id}`)

    return { ...Struct.pick(documents, "get", "findById", "insert", "update", "transaction"), findOf, list, remove } as const
  })
}) {}
