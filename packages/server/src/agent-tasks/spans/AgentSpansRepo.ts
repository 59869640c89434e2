import { SqlClient } from "@effect/sql"
import { type AgentSpanValue, NotFound, Span } from "@platform-kit/schema"
import { AgentSpan } from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import { forUpdate } from "../../sql/dialect.js"
import { makeRead } from "../../sql/reads.js"

/**
 * What an agentex span is in the v5 store: the v5 span (`spans.doc`), its task (`spans.task_id`)
 * and the names of the fields it holds wrapped because agentex sent an array (`agentex_arrays`).
 */
export interface StoredAgentSpan {
  readonly span: Span
  readonly taskId: string | null
  readonly arrays: ReadonlySet<ArrayField>
}

export type ArrayField = "input" | "output" | "data"

/** A JSON object, as a v5 span's `input`, `output` and `metadata` are. */
type JsonObject = { readonly [key: string]: unknown }

/**
 * An agentex value as the v5 span holds it: an object as it is, an array of objects wrapped as
 * `{"items": [...]}` (a v5 span's fields are objects).
 */
export const v5Value = (value: AgentSpanValue): JsonObject => (Array.isArray(value) ? { items: value } : value as JsonObject)

/** A v5 value as agentex answers it: unwrapped when the field was written as an array and still is one wrapped. */
const agentexValue = (value: JsonObject | null, wrapped: boolean): AgentSpanValue | null =>
  value !== null && wrapped && Object.keys(value).length === 1 && Array.isArray(value.items)
    ? value.items as AgentSpanValue
    : value

/** The span as agentex answers it (docs/agent-tasks.md "Spans": `data` is the v5 `metadata`). */
export const agentSpanOf = (stored: StoredAgentSpan) =>
  new AgentSpan({
    id: stored.span.id,
    name: stored.span.name,
    start_time: stored.span.start_timestamp,
    trace_id: stored.span.trace_id,
    data: agentexValue(stored.span.metadata, stored.arrays.has("data")),
    end_time: stored.span.end_timestamp,
    input: agentexValue(stored.span.input, stored.arrays.has("input")),
    output: agentexValue(stored.span.output, stored.arrays.has("output")),
    parent_id: stored.span.parent_id,
    task_id: stored.taskId
  }, true)

/** The `agentex_arrays` column of a set of fields (NULL for none). */
export const arraysColumn = (arrays: ReadonlySet<ArrayField>) => (arrays.size === 0 ? null : [...arrays].sort().join(","))

interface Row {
  readonly doc: string
  readonly task_id: string | null
  readonly agentex_arrays: string | null
}

/** How a list orders (`order_by`): the column, then the id. */
const orderColumns = { start_time: "start_ms", name: "name", id: "id" } as const

/**
 * Agentex's reads and its own columns of the v5 span store (`spans`, ../../spans/SpansRepo.ts,
 * which writes the v5 span itself): a span with its task and array fields, a page of a list,
 * and those two columns written.
 */
export class AgentSpansRepo extends Effect.Service<AgentSpansRepo>()("@platform-kit/server/AgentSpansRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = yield* makeRead
    const decode = Schema.decodeUnknownSync(Span)

    const storedOf = (row: Row): StoredAgentSpan => ({
      span: decode(JSON.parse(row.doc)),
      taskId: row.task_id,
      arrays: new Set((row.agentex_arrays ?? "").split(",").filter((name): name is ArrayField => name !== ""))
    })

    /** Span `id` in one of `accountIds` (the first account by id), row-locked in a transaction on PostgreSQL; else 404. */
    const get = (id: string, accountIds: ReadonlyArray<string>): Effect.Effect<StoredAgentSpan, NotFound> =>
      Effect.gen(function*() {
        const inTransaction = Option.isSome(yield* Effect.serviceOption(SqlClient.TransactionConnection))
        if (accountIds.length === 0) return yield* Effect.fail(new NotFound({ detail: `Span ${id} not found` }))
        const where = sql`id = ${id} AND ${sql.in("account_id", accountIds)}`
        const rows = yield* Effect.orDie(
          inTransaction
            ? sql<Row>`SELECT doc, task_id, agentex_arrays FROM spans WHERE ${where} ORDER BY account_id LIMIT 1 ${forUpdate(sql)}`
            : read(sql<Row>`SELECT doc, task_id, agentex_arrays FROM spans WHERE ${where} ORDER BY account_id LIMIT 1`)
        )
        if (rows.length === 0) return yield* Effect.fail(new NotFound({ detail: `Span ${id} not found` }))
        return storedOf(rows[0]!)
      })

    /** Writes a span's task and array fields (its v5 row already written). */
    const setAgentexColumns = (accountId: string, id: string, taskId: string | null, arrays: ReadonlySet<ArrayField>) =>
      Effect.orDie(sql`UPDATE spans SET task_id = ${taskId}, agentex_arrays = ${arraysColumn(arrays)} WHERE account_id = ${accountId} AND id = ${id}`)

    /**
     * A page of the spans of `accountIds` (offset paging, as agentex): `traceId` equal, `taskId`
     * the span's task or its trace; by `orderBy` then id.
     */
    const list = (request: {
      readonly accountIds: ReadonlyArray<string>
      readonly traceId?: string | undefined
      readonly taskId?: string | undefined
      readonly orderBy: keyof typeof orderColumns
      readonly direction: "asc" | "desc"
      readonly limit: number
      readonly page: number
    }) =>
      Effect.gen(function*() {
        if (request.accountIds.length === 0) return []
        const where = [sql.in("account_id", request.accountIds)]
        if (request.traceId !== undefined) where.push(sql`trace_id = ${request.traceId}`)
        if (request.taskId !== undefined) where.push(sql`(task_id = ${request.taskId} OR trace_id = ${request.taskId})`)
        const direction = request.direction === "asc" ? "ASC" : "DESC"
        const order = sql.literal(`${orderColumns[request.orderBy]} ${direction}, id ${direction}`)
        const rows = yield* read(sql<Row>`SELECT doc, task_id, agentex_arrays FROM spans WHERE ${sql.and(where)} ORDER BY ${order} LIMIT ${request.limit} OFFSET ${
          (request.page - 1) * request.limit
        }`)
        return rows.map(storedOf)
      }).pipe(Effect.orDie)

    return { get, setAgentexColumns, list } as const
  })
}) {}
