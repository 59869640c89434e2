import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Conflict, NotFound, Span, type SpanSearchBody, ValidationError } from "@platform-kit/schema"
import { Array as Arr, Effect, Option, Schema } from "effect"
import { forUpdate } from "../sql/dialect.js"
import { formOf } from "../sql/documentForms.js"
import { cursorError } from "../sql/documents.js"
import { containsPattern, likeEscape } from "../sql/like.js"
import { makeRead } from "../sql/reads.js"
import { durationUs, instantOf } from "./instants.js"

/** What a search asks for: the body's filters, the query's window and cursor, in the caller's accounts. */
export interface SpanSearch {
  readonly accountIds: ReadonlyArray<string>
  readonly filters: SpanSearchBody
  readonly limit: number
  readonly sortOrder: "asc" | "desc"
  readonly startingAfter?: string | undefined
  readonly endingBefore?: string | undefined
  /** The window on `start_timestamp`, inclusive, in epoch milliseconds. */
  readonly fromMs?: number | undefined
  readonly toMs?: number | undefined
}

/** A page of a search: the spans' JSON texts, `total` always 0 (docs/spans.md). */
export interface SpanPage {
  readonly items: ReadonlyArray<string>
  readonly total: 0
  readonly has_more: boolean
  readonly limit: number
  readonly object: "list"
}

/** The text values of a JSON value (strings, numbers, booleans), depth first. */
const textsOf = (value: unknown, into: Array<string>): Array<string> => {
  if (value === null || value === undefined) return into
  if (typeof value === "object") {
    for (const each of Array.isArray(value) ? value : Object.values(value)) textsOf(each, into)
  } else into.push(String(value))
  return into
}

/** Rows per INSERT: 1000 spans are two statements (well under both databases' bound-parameter limits). */
const rowsPerStatement = 500

const chunks = <A>(values: ReadonlyArray<A>) => Arr.chunksOf(values, rowsPerStatement)

export class SpansRepo extends Effect.Service<SpansRepo>()("@platform-kit/server/SpansRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = yield* makeRead
    const encode = Schema.encodeSync(Span)
    const decode = Schema.decodeUnknownSync(Span)
    let form: string | undefined
    const formNow = () => (form ??= formOf(Span))

    /** The row of a span: its searched columns, its document (the span as encoded) and the document's form. */
    const record = (span: Span) => {
      const start = instantOf(span.start_timestamp)
      return {
        account_id: span.account_id,
        id: span.id,
        trace_id: span.trace_id,
        parent_id: span.parent_id,
        name: span.name,
        start_ms: start.ms,
        duration_us: span.end_timestamp === null ? null : durationUs(start, instantOf(span.end_timestamp)),
        status: span.status,
        type: span.type,
        group_id: span.group_id,
        application_variant_id: span.application_variant_id,
        search_text: textsOf([span.input, span.output], []).join("\n").toLowerCase(),
        doc: JSON.stringify(encode(span)),
        form: formNow()
      }
    }
    type Row = ReturnType<typeof record>

    /** A row's document as the response encoding it answers: the stored text in today's form, else decoded and encoded again. */
    const wireText = (row: { readonly doc: string; readonly form: string | null }) =>
      row.form === formNow() ? row.doc : JSON.stringify(encode(decode(JSON.parse(row.doc))))

    const replaced = sql.literal(
      ["trace_id", "parent_id", "name", "start_ms", "duration_us", "status", "type", "group_id", "application_variant_id", "search_text", "doc", "form"]
        .map((column) => `${column} = excluded.${column}`)
        .join(", ")
    )

    /**
     * Stores `spans` (ids distinct within the batch), each replacing the account's span of its id
     * whole: one multi-row `INSERT … ON CONFLICT DO UPDATE` per 500 spans (one transaction when
     * there are more). Answers the documents' texts, in order.
     */
    const upsert = (spans: ReadonlyArray<Span>): Effect.Effect<ReadonlyArray<string>> => {
      if (spans.length === 0) return Effect.succeed([])
      const rows = spans.map(record)
      const statements = chunks(rows).map((part) =>
        sql`INSERT INTO spans ${sql.insert(part)} ON CONFLICT (account_id, id) DO UPDATE SET ${replaced}`
      )
      const run = statements.length === 1 ? statements[0]! : sql.withTransaction(Effect.all(statements, { discard: true }))
      return Effect.as(Effect.orDie(run), rows.map((row) => row.doc))
    }

    /**
     * Stores `spans` (ids distinct within the batch) only if the account holds none of their ids:
     * else a 409 naming those it holds, and nothing stored (one transaction).
     */
    const insertNew = (spans: ReadonlyArray<Span>): Effect.Effect<ReadonlyArray<string>, Conflict> => {
      if (spans.length === 0) return Effect.succeed([])
      const rows = spans.map(record)
      return sql.withTransaction(
        Effect.gen(function*() {
          const inserted = new Set<string>()
          for (const part of chunks(rows)) {
            const returned = yield* sql<{ id: string }>`INSERT INTO spans ${
              sql.insert(part)
            } ON CONFLICT (account_id, id) DO NOTHING RETURNING id`
            for (const row of returned) inserted.add(row.id)
          }
          const taken = rows.filter((row) => !inserted.has(row.id)).map((row) => row.id)
          if (taken.length > 0) {
            return yield* Effect.fail(
              new Conflict({ detail: `A span with the id ${taken.slice(0, 10).join(", ")} already exists` })
            )
          }
          return rows.map((row) => row.doc)
        })
      ).pipe(Effect.catchTag("SqlError", Effect.die))
    }

    /**
     * The row of span `id` in one of `accountIds` (the first account by id when several hold it),
     * row-locked on PostgreSQL inside a transaction.
     */
    const rowOf = (id: string, accountIds: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        if (accountIds.length === 0) return Option.none<{ doc: string; form: string | null }>()
        const inTransaction = Option.isSome(yield* Effect.serviceOption(SqlClient.TransactionConnection))
        const where = sql`id = ${id} AND ${sql.in("account_id", accountIds)}`
        const rows = inTransaction
          ? yield* sql<{ doc: string; form: string | null }>`SELECT doc, form FROM spans WHERE ${where} ORDER BY account_id LIMIT 1 ${
            forUpdate(sql)
          }`
          : yield* read(sql<{ doc: string; form: string | null }>`SELECT doc, form FROM spans WHERE ${where} ORDER BY account_id LIMIT 1`)
        return Option.fromNullable(rows[0])
      }).pipe(Effect.orDie)

    const notFound = (id: string) => new NotFound({ detail: `Span ${id} not found` })

    /** Span `id` in `accountIds`, else 404. */
    const get = (id: string, accountIds: ReadonlyArray<string>): Effect.Effect<Span, NotFound> =>
      Effect.flatMap(rowOf(id, accountIds), Option.match({
        onNone: () => Effect.fail(notFound(id)),
        onSome: (row) => Effect.succeed(decode(JSON.parse(row.doc)))
      }))

    /** Span `id` in `accountIds` as the JSON text a read answers, else 404. */
    const getText = (id: string, accountIds: ReadonlyArray<string>): Effect.Effect<string, NotFound> =>
      Effect.flatMap(rowOf(id, accountIds), Option.match({
        onNone: () => Effect.fail(notFound(id)),
        onSome: (row) => Effect.succeed(wireText(row))
      }))

    /**
     * Fails with 404 unless `accountId` holds span `id` in trace `traceId`: how a span assessment's
     * reference to its span is checked.
     */
    const ensureInTrace = (accountId: string, id: string, traceId: string): Effect.Effect<void, NotFound> =>
      read(sql<{ n: number }>`SELECT 1 AS n FROM spans WHERE account_id = ${accountId} AND id = ${id} AND trace_id = ${traceId}`).pipe(
        Effect.orDie,
        Effect.flatMap((rows) =>
          rows.length > 0 ? Effect.void : Effect.fail(new NotFound({ detail: `Span ${id} of trace ${traceId} not found` }))
        )
      )

    /** Writes `span` over its row (same account and id); answers its text. */
    const replace = (span: Span): Effect.Effect<string> => {
      const { account_id, id, ...rest }: Row = record(span)
      return Effect.as(
        Effect.orDie(sql`UPDATE spans SET ${sql.update(rest)} WHERE account_id = ${account_id} AND id = ${id}`),
        rest.doc
      )
    }

    /** `metadata.<key>` equal to `value` as JSON (the string `"3"` is not the number `3`). */
    const metadataEquals = (key: string, value: unknown): Statement.Fragment =>
      sql.onDialectOrElse({
        pg: () => sql`(doc -> 'metadata' -> ${key})::jsonb = ${JSON.stringify(value)}::jsonb`,
        orElse: () => sql`(doc -> 'metadata' -> ${key}) = json(${JSON.stringify(value)})`
      })

    /** The filters of a search body as conditions (an empty list filters nothing). */
    const conditionsOf = (filters: SpanSearchBody): Array<Statement.Fragment> => {
      const where: Array<Statement.Fragment> = []
      const some = <A>(values: ReadonlyArray<A> | undefined): values is ReadonlyArray<A> => values !== undefined && values.length > 0
      if (some(filters.trace_ids)) where.push(sql.in("trace_id", filters.trace_ids))
      if (some(filters.span_ids)) where.push(sql.in("id", filters.span_ids))
      if (some(filters.excluded_trace_ids)) where.push(sql`trace_id NOT IN ${sql.in(filters.excluded_trace_ids)}`)
      if (some(filters.excluded_span_ids)) where.push(sql`id NOT IN ${sql.in(filters.excluded_span_ids)}`)
      if (some(filters.names)) where.push(sql.in("name", filters.names))
      if (some(filters.statuses)) where.push(sql.in("status", filters.statuses))
      if (some(filters.types)) where.push(sql.in("type", filters.types))
      if (some(filters.application_variant_ids)) where.push(sql.in("application_variant_id", filters.application_variant_ids))
      if (filters.group_id !== undefined) where.push(sql`group_id = ${filters.group_id}`)
      if (filters.parents_only === true) where.push(sql`parent_id IS NULL`)
      if (filters.min_duration_ms !== undefined) where.push(sql`duration_us >= ${filters.min_duration_ms * 1000}`)
      if (filters.max_duration_ms !== undefined) where.push(sql`duration_us <= ${filters.max_duration_ms * 1000}`)
      if (some(filters.search_texts)) {
        where.push(sql.or(filters.search_texts.map((text) => sql`search_text LIKE ${containsPattern(text)} ${sql.literal(likeEscape)}`)))
      }
      for (const [key, value] of Object.entries(filters.extra_metadata ?? {})) where.push(metadataEquals(key, value))
      if (some(filters.acp_types)) where.push(sql`(doc -> 'metadata' ->> 'acp_type') IN ${sql.in(filters.acp_types)}`)
      if (some(filters.agentex_agent_ids)) {
        where.push(sql`(doc -> 'metadata' ->> 'agentex_agent_id') IN ${sql.in(filters.agentex_agent_ids)}`)
      }
      if (some(filters.agentex_agent_names)) {
        where.push(sql`(doc -> 'metadata' ->> 'agentex_agent_name') IN ${sql.in(filters.agentex_agent_names)}`)
      }
      if (some(filters.assessment_types)) {
        where.push(sql`trace_id IN (SELECT a.trace_id FROM span_assessments a WHERE a.account_id = spans.account_id AND ${
          sql.in("a.assessment_type", filters.assessment_types)
        })`)
      }
      return where
    }

    /**
     * One page of a search by keyset on `(start_ms, id)`, as the kit's v5 lists page
     * (sql/documents.ts `cursorPage`), without a count: `ending_before` answers the page just
     * before the cursor, still in list order; an id the caller's accounts do not hold as a cursor
     * is a 422 on its query field.
     */
    const search = (request: SpanSearch): Effect.Effect<SpanPage, ValidationError> =>
      Effect.gen(function*() {
        const empty: SpanPage = { items: [], total: 0, has_more: false, limit: request.limit, object: "list" }
        if (request.startingAfter !== undefined && request.endingBefore !== undefined) {
          return yield* Effect.fail(cursorError("ending_before", "starting_after and ending_before cannot be combined", request.endingBefore))
        }
        if (request.accountIds.length === 0) return empty
        const filters = request.filters
        const conditions = [sql.in("account_id", request.accountIds), ...conditionsOf(filters)]
        if (request.fromMs !== undefined) conditions.push(sql`start_ms >= ${request.fromMs}`)
        if (request.toMs !== undefined) conditions.push(sql`start_ms <= ${request.toMs}`)
        const backwards = request.endingBefore !== undefined
        const cursorId = request.startingAfter ?? request.endingBefore
        const readDesc = (request.sortOrder === "desc") !== backwards
        if (cursorId !== undefined) {
          const cursor = yield* read(
            sql<{ start_ms: number | string }>`SELECT start_ms FROM spans WHERE id = ${cursorId} AND ${
              sql.in("account_id", request.accountIds)
            } ORDER BY account_id LIMIT 1`
          )
          if (cursor.length === 0) {
            return yield* Effect.fail(cursorError(backwards ? "ending_before" : "starting_after", "No span with this id", cursorId))
          }
          conditions.push(sql`(start_ms, id) ${sql.literal(readDesc ? "<" : ">")} (${Number(cursor[0]!.start_ms)}, ${cursorId})`)
        }
        const direction = sql.literal(readDesc ? "DESC" : "ASC")
        // a search naming traces or spans reads them by their own index and sorts what it found:
        // `+start_ms` keeps SQLite's planner (which has no statistics) off the account's start
        // index, which gives the order but would read every span of the account to find them
        const narrowed = [filters.trace_ids, filters.span_ids, filters.assessment_types].some((ids) => (ids?.length ?? 0) > 0)
        const order = sql.literal(narrowed ? "+start_ms" : "start_ms")
        const rows = yield* read(sql<{ doc: string; form: string | null }>`SELECT doc, form FROM spans WHERE ${
          sql.and(conditions)
        } ORDER BY ${order} ${direction}, id ${direction} LIMIT ${request.limit + 1}`)
        const page = rows.slice(0, request.limit).map(wireText)
        return { ...empty, items: backwards ? page.reverse() : page, has_more: rows.length > request.limit }
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    /** `effect` as one transaction (a read of a span in it locks the row on PostgreSQL until it ends). */
    const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      sql.withTransaction(effect).pipe(
        Effect.catchIf((error): error is SqlError => error instanceof SqlError, Effect.die)
      ) as Effect.Effect<A, E, R>

    return { upsert, insertNew, get, getText, ensureInTrace, replace, search, transaction } as const
  })
}) {}
