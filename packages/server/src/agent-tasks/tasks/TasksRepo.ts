import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { Task } from "@platform-kit/schema"
import type { TaskStatus } from "@platform-kit/schema"
import { Data, Effect, Schema, Struct } from "effect"
import { makeDocuments } from "../../sql/documents.js"
import { uniqueRefusedAs } from "../../sql/errors.js"
import { writesTogetherOn } from "../../sql/writesTogether.js"
import { Ids } from "../../platform/Ids.js"
import { TrackersRepo } from "../tracker/TrackersRepo.js"
import { contains } from "../matching.js"

/** A task as stored: the wire resource, its account and its agent. */
export const StoredTask = Schema.Struct({ ...Task.fields, account_id: Schema.String, agent_id: Schema.String })
export type StoredTask = typeof StoredTask.Type

/** The task as answered. */
export const taskOf = (stored: StoredTask) => new Task(Struct.omit(stored, "account_id", "agent_id"))

/** A status a task never leaves (all but `RUNNING` and `INTERRUPTED`). */
export const isFinal = (status: TaskStatus) => status !== "RUNNING" && status !== "INTERRUPTED"

/** A task's name is taken in its account (by a task made at the same moment: get-or-create then reads it). */
export class TaskNameTaken extends Data.TaggedError("TaskNameTaken")<{ readonly name: string }> {}

export interface TaskListRequest {
  readonly accountIds: ReadonlyArray<string>
  readonly page: number
  readonly limit: number
  readonly orderBy: "created_at" | "updated_at" | "name" | "status"
  readonly direction: "asc" | "desc"
  readonly agentIds?: ReadonlyArray<string> | undefined
  readonly status?: TaskStatus | undefined
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
}

/** The `agent_tasks` table (agent-tasks/migration.ts). */
export class TasksRepo extends Effect.Service<TasksRepo>()("@platform-kit/server/TasksRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const trackers = yield* TrackersRepo
    const ids = yield* Ids
    const documents = yield* makeDocuments({
      table: "agent_tasks",
      label: "Task",
      schema: StoredTask,
      columns: (task) => ({
        id: task.id,
        account_id: task.account_id,
        created_at: task.created_at,
        name: task.name,
        agent_id: task.agent_id,
        status: task.status,
        updated_at: task.updated_at
      })
    })
    const decode = Schema.decodeUnknownSync(Schema.parseJson(StoredTask))

    /** The task named `name` in `accountId` (row-locked inside a transaction, as `findById`). */
    const findByName = (name: string, accountId: string) =>
      Effect.flatMap(
        sql<{ id: string }>`SELECT id FROM agent_tasks WHERE account_id = ${accountId} AND name = ${name}`,
        (rows) => rows.length === 0 ? Effect.succeedNone : documents.findById(rows[0]!.id, [accountId])
      ).pipe(Effect.orDie)

    /**
     * A page of tasks. A `metadata` filter (containment) is applied to the rows the SQL filters
     * select, then paged here: its cost grows with the tasks those filters leave.
     */
    const list = (request: TaskListRequest) =>
      Effect.gen(function*() {
        const where: Array<Statement.Fragment> = []
        if (request.agentIds !== undefined) {
          if (request.agentIds.length === 0) return []
          where.push(sql.in("agent_id", request.agentIds))
        }
        if (request.status !== undefined) where.push(sql`status = ${request.status}`)
        const direction = sql.literal(request.direction === "asc" ? "ASC" : "DESC")
        const orderBy = sql`${sql(request.orderBy)} ${direction}, id ${direction}`
        if (request.metadata === undefined) {
          return (yield* documents.page({ ...request, where, orderBy })).items
        }
        const metadata = request.metadata
        const rows = request.accountIds.length === 0 ? [] : yield* Effect.orDie(
          sql<{ doc: string }>`SELECT doc FROM agent_tasks WHERE ${sql.and([sql.in("account_id", request.accountIds), ...where])} ORDER BY ${orderBy}`
        )
        const start = (request.page - 1) * request.limit
        return rows.map((row) => decode(row.doc))
          .filter((task) => task.task_metadata !== null && contains(task.task_metadata, metadata))
          .slice(start, start + request.limit)
      })

    /**
     * Stores a new task, and its tracker (docs/agent-tasks.md "Trackers") with it; its name already
     * taken in the account fails with `TaskNameTaken`.
     */
    const create = (task: StoredTask) =>
      Effect.gen(function*() {
        yield* sql`INSERT INTO agent_tasks ${sql.insert(documents.record(task))}`.pipe(
          // (a task without a name never meets the index: NULLs are distinct)
          uniqueRefusedAs(
            { sqliteColumn: "agent_tasks.name", postgresIndex: "agent_tasks_account_name" },
            () => new TaskNameTaken({ name: task.name ?? "" })
          )
        )
        yield* trackers.insert({
          id: yield* ids.make,
          agent_id: task.agent_id,
          task_id: task.id,
          created_at: task.created_at,
          updated_at: task.created_at,
          last_processed_event_id: null,
          status: null,
          status_reason: null,
          account_id: task.account_id
        })
        return task
      }).pipe(writesTogetherOn(sql), Effect.catchTag("SqlError", Effect.die))

    return { ...Struct.pick(documents, "get", "findById", "update", "transaction"), create, findByName, list } as const
  }),
  dependencies: [TrackersRepo.Default]
}) {}
