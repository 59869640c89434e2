/**
 * The one storage mechanism every resource family shares: a table per resource holding the
 * resource's wire JSON in `doc` (and in `form` which shape of its Schema wrote it:
 * sql/documentForms.ts), next to the columns that reads filter and sort on (`id`, `account_id`,
 * `created_at`, plus whatever a family queries). A read is one SELECT of one column, decoded by the
 * resource's own Schema; a read that answers the entity as it is (`getText`, `pageOfTexts`) answers
 * the stored text when its form is today's (http/storedResponses.ts makes it the response).
 *
 * `documentTable` is the DDL for such a table, `makeDocuments` the repository over it.
 */
import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { NotFound, ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Array as Arr, Effect, Option, Order, Schema } from "effect"
import { type ColumnTypes, columnTypes, forUpdate } from "./dialect.js"
import { countedRows, countingOf } from "./documentCounts.js"
import { formOf } from "./documentForms.js"
import { makeRead } from "./reads.js"

type Primitive = string | number | boolean | null

/**
 * DDL for a document table with `extra` columns (`name TYPE` each, types from `ColumnTypes` so the
 * same migration runs on SQLite and PostgreSQL) and an account/time index. A table with a list
 * that can be unfiltered is also counted (`countRows` of sql/documentCounts.ts, in its migration),
 * so that list's total does not scan the account's rows.
 */
export const documentTable = (
  table: string,
  extra: ReadonlyArray<string> | ((types: ColumnTypes) => ReadonlyArray<string>) = []
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const t = yield* columnTypes
    const columns = [
      `id ${t.text} PRIMARY KEY`,
      `account_id ${t.text} NOT NULL`,
      `created_at ${t.timestamp} NOT NULL`,
      ...(typeof extra === "function" ? extra(t) : extra),
      `doc ${t.json} NOT NULL`,
      // the form of the Schema that wrote `doc` (sql/documentForms.ts)
      `form ${t.text}`
    ]
    yield* sql.unsafe(`CREATE TABLE ${table} (${columns.join(", ")})`)
    yield* sql.unsafe(`CREATE INDEX ${table}_account_created ON ${table} (account_id, created_at, id)`)
  })

export interface PageRequest {
  readonly accountIds: ReadonlyArray<string>
  readonly page: number
  readonly limit: number
  /** Extra conditions, AND-ed. */
  readonly where?: ReadonlyArray<Statement.Fragment>
  /** ORDER BY fragment; default newest first. */
  readonly orderBy?: Statement.Fragment
}

/**
 * A v5 cursor page request. `sortBy` must be a column of the table (families whitelist it with a
 * `Schema.Literal`) holding no NULLs; ties are broken by `id`.
 */
export interface CursorRequest {
  readonly accountIds: ReadonlyArray<string>
  readonly limit: number
  readonly sortBy: string
  readonly sortOrder: "asc" | "desc"
  readonly startingAfter?: string | undefined
  readonly endingBefore?: string | undefined
  /** Extra conditions (filters), AND-ed; `total` counts every row matching them. */
  readonly where?: ReadonlyArray<Statement.Fragment>
}

export interface CursorPage<A> {
  readonly items: ReadonlyArray<A>
  readonly total: number
  readonly has_more: boolean
  readonly limit: number
  readonly object: "list"
}

/** The 422 of a v5 list's cursor field (`starting_after`, `ending_before`). */
export const cursorError = (field: "starting_after" | "ending_before", msg: string, input: unknown) =>
  new ValidationError({
    detail: [new ValidationIssue({ loc: ["query", field], msg, type: "value_error", input })]
  })

export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly total_item_count: number
  readonly current_page: number
  readonly items_per_page: number
}

/**
 * Fails with 404 naming it unless `id` is a row of `table` in one of `accountIds`: how a body's
 * reference to a stored resource (a knowledge base, a dataset, a model deployment, …) is checked.
 */
export const ensureReference = (options: {
  readonly table: string
  readonly id: string
  readonly accountIds: ReadonlyArray<string>
  /** `Knowledge base`, `Evaluation dataset`, … */
  readonly label: string
}): Effect.Effect<void, NotFound, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = options.accountIds.length === 0
      ? []
      : yield* Effect.orDie(
        sql<{ id: string }>`SELECT id FROM ${sql(options.table)} WHERE id = ${options.id} AND ${
          sql.in("account_id", options.accountIds)
        }`
      )
    if (rows.length === 0) yield* Effect.fail(new NotFound({ detail: `${options.label} ${options.id} not found` }))
  })

/** A document row as read: its text and the form that wrote it (sql/documentForms.ts). */
interface StoredRow {
  readonly doc: string
  readonly form: string | null
}

/** A row's `created_at` (a Date on PostgreSQL's TIMESTAMPTZ, the stored ISO text on SQLite), then its `id`: `findAll`'s order. */
const createdThenId = Order.combine<{ readonly created_at: string | Date; readonly id: string }>(
  Order.mapInput(Order.number, (row) => row.created_at instanceof Date ? row.created_at.getTime() : Date.parse(row.created_at)),
  Order.mapInput(Order.string, (row) => row.id)
)

export const makeDocuments = <A, I>(options: {
  readonly table: string
  /** What the resource is called in a 404 (`Model group`). */
  readonly label: string
  readonly schema: Schema.Schema<A, I, never>
  /** The indexed columns of a value: `id`, `account_id`, `created_at` and the family's own. */
  readonly columns: (value: A) => { readonly id: string; readonly account_id: string; readonly created_at: string } & Record<string, Primitive>
}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const table = sql(options.table)
    const read = yield* makeRead
    const encode = Schema.encodeSync(options.schema)
    // JSON.parse, then the Schema: the same as `parseJson(schema)` without a transformation per row
    const decode = Schema.decodeUnknownSync(options.schema)
    const decodeRows = (rows: ReadonlyArray<{ readonly doc: string }>) => rows.map((row) => decode(JSON.parse(row.doc)))
    const counting = yield* countingOf(options.table)
    /** The one filter `unlessArchived` adds: a list with only it counts from the counters too. */
    const archivedHidden = sql`archived_at IS NULL`
    // the form of today's Schema: a row written in it is answered as stored (sql/documentForms.ts);
    // worked out at the first write or read by id, not at start-up (a few ms for a large Schema)
    let form: string | undefined
    const formNow = () => (form ??= formOf(options.schema))
    /** The row of `value`: its columns, its document and the document's form (for a family's own writes). */
    const record = (value: A) => ({ ...options.columns(value), doc: JSON.stringify(encode(value)), form: formNow() })

    const insert = (value: A) => Effect.orDie(sql`INSERT INTO ${table} ${sql.insert(record(value))}`).pipe(Effect.as(value))

    /** Stores new values, in statements of at most 500 rows (inside the caller's transaction, if any). */
    const insertAll = (values: ReadonlyArray<A>) =>
      Effect.forEach(
        Array.from({ length: Math.ceil(values.length / 500) }, (_, i) => values.slice(i * 500, (i + 1) * 500)),
        (rows) => sql`INSERT INTO ${table} ${sql.insert(rows.map(record))}`,
        { discard: true }
      ).pipe(Effect.orDie)

    const update = (value: A) => {
      const { id, ...rest } = record(value)
      return Effect.orDie(sql`UPDATE ${table} SET ${sql.update(rest)} WHERE id = ${id}`).pipe(Effect.as(value))
    }

    /** Deletes the row of `id` (its family deletes what hangs on it). */
    const remove = (id: string) => Effect.orDie(sql`DELETE FROM ${table} WHERE id = ${id}`).pipe(Effect.asVoid)

    /**
     * Inside a transaction a read locks the row it reads until the transaction ends (`FOR UPDATE`
     * on PostgreSQL): a transaction that reads an entity and writes it back is never interleaved
     * with another one doing the same, as on SQLite, whose single writer runs one at a time.
     */
    const noLock = sql.literal("")
    const lockInTransaction = Effect.map(
      Effect.serviceOption(SqlClient.TransactionConnection),
      (transaction) => (Option.isSome(transaction) ? forUpdate(sql) : noLock)
    )

    /** The entity with `id` if it belongs to one of `accountIds` (row-locked inside a transaction). */
    const findById = (id: string, accountIds: ReadonlyArray<string>): Effect.Effect<Option.Option<A>> =>
      accountIds.length === 0
        ? Effect.succeedNone
        : Effect.flatMap(lockInTransaction, (lock) => rowById(id, accountIds, lock)).pipe(
          Effect.map((rows) => Option.fromNullable(decodeRows(rows)[0])),
          Effect.orDie
        )

    /** The row of `id` if it belongs to one of `accountIds` (a non-empty list), with `lock` appended. */
    const rowById = (id: string, accountIds: ReadonlyArray<string>, lock: Statement.Fragment) =>
      read(sql<StoredRow>`SELECT doc, form FROM ${table} WHERE id = ${id} AND ${sql.in("account_id", accountIds)} ${lock}`)

    const notFound = (id: string) => new NotFound({ detail: `${options.label} ${id} not found` })

    /** The entity with `id` in `accountIds`, else 404 naming it. */
    const get = (id: string, accountIds: ReadonlyArray<string>): Effect.Effect<A, NotFound> =>
      Effect.flatMap(
        findById(id, accountIds),
        Option.match({
          onNone: () => Effect.fail(notFound(id)),
          onSome: Effect.succeed
        })
      )

    /** A row's document as encoding it answers: the stored text in today's form, else decoded and encoded again. */
    const wireText = (row: StoredRow) => row.form === formNow() ? row.doc : JSON.stringify(encode(decode(JSON.parse(row.doc))))

    /**
     * The entity with `id` in `accountIds` as the JSON text encoding it answers, else 404 naming
     * it: the stored text itself when its row was written in today's form, else the row decoded
     * and encoded again. What a read by id answers as its body (`storedResponse`,
     * http/storedResponses.ts) without decoding and encoding the entity.
     */
    const getText = (id: string, accountIds: ReadonlyArray<string>): Effect.Effect<string, NotFound> =>
      accountIds.length === 0
        ? Effect.fail(notFound(id))
        : rowById(id, accountIds, noLock).pipe(
          Effect.orDie,
          Effect.flatMap((rows) => rows.length === 0 ? Effect.fail(notFound(id)) : Effect.succeed(wireText(rows[0]!)))
        )

    /** The entities matching `where` in `accountIds`, unpaged (for small per-parent sets). */
    const findAll = (
      accountIds: ReadonlyArray<string>,
      where: ReadonlyArray<Statement.Fragment> = []
    ): Effect.Effect<ReadonlyArray<A>> =>
      accountIds.length === 0
        ? Effect.succeed([])
        : read(sql<{ doc: string }>`SELECT doc FROM ${table} WHERE ${
          sql.and([sql.in("account_id", accountIds), ...where])
        } ORDER BY created_at, id`).pipe(Effect.map(decodeRows), Effect.orDie)

    /**
     * `findAll` for conditions that narrow to a few rows by an index of their own: the same rows in
     * the same order (`created_at`, `id`), ordered here rather than by the statement, so SQLite's
     * planner takes the index of `where` (without statistics it prefers the accounts' index, which
     * gives the order, and reads every row of the accounts).
     */
    const findNarrowed = (accountIds: ReadonlyArray<string>, where: ReadonlyArray<Statement.Fragment>): Effect.Effect<ReadonlyArray<A>> =>
      accountIds.length === 0
        ? Effect.succeed([])
        : read(sql<{ doc: string; created_at: string | Date; id: string }>`SELECT doc, created_at, id FROM ${table} WHERE ${
          sql.and([sql.in("account_id", accountIds), ...where])
        }`).pipe(
          Effect.map((rows) => decodeRows(Arr.sort(rows, createdThenId))),
          Effect.orDie
        )

    /** The first row `findNarrowed` finds, if any. */
    const findFirst = (accountIds: ReadonlyArray<string>, where: ReadonlyArray<Statement.Fragment>): Effect.Effect<Option.Option<A>> =>
      Effect.map(findNarrowed(accountIds, where), Arr.head)

    /**
     * A scalar subquery counting every row of `accountIds` matching `where` (`filters` is both,
     * AND-ed): the sum of the accounts' counters (sql/documentCounts.ts) when the table is counted
     * and `where` is empty or only hides archived rows; else a COUNT(*), whose cost is bounded by
     * the index its filters use. Run inside the page's own SELECT, it sees the rows the page sees
     * (one statement, one snapshot on both dialects) and is computed once per statement.
     */
    const countOf = (
      accountIds: ReadonlyArray<string>,
      where: ReadonlyArray<Statement.Fragment>,
      filters: Statement.Fragment
    ): Statement.Fragment => {
      if (Option.isSome(counting)) {
        if (where.length === 0) return countedRows(sql, options.table, accountIds, false)
        if (where.length === 1 && where[0] === archivedHidden && counting.value.archived) {
          return countedRows(sql, options.table, accountIds, true)
        }
      }
      return sql`(SELECT COUNT(*) FROM ${table} WHERE ${filters})`
    }

    /** The count alone, for a page that came back empty (past the end, or nothing matches). */
    const countAlone = (count: Statement.Fragment) =>
      Effect.map(read(sql<{ total: number }>`SELECT ${count} AS total`), (rows) => Number(rows[0]!.total))

    /**
     * One v4 page (`page` from 1) and the count of every match, newest first unless told (`page`
     * decoded; `pageOfTexts` with each document as the text `getText` answers). The
     * count is a scalar subquery of the page's SELECT (`countOf`), not `COUNT(*) OVER ()`, which
     * makes SQLite materialise every match, documents included, before the LIMIT
     * (docs/benchmarks.md "List totals and keyset pages").
     */
    const pageOfRows = <B>(request: PageRequest, items: (rows: ReadonlyArray<StoredRow>) => Array<B>): Effect.Effect<Page<B>> => {
      const empty: Page<B> = { items: [], total_item_count: 0, current_page: request.page, items_per_page: request.limit }
      if (request.accountIds.length === 0) return Effect.succeed(empty)
      const where = sql.and([sql.in("account_id", request.accountIds), ...(request.where ?? [])])
      const count = countOf(request.accountIds, request.where ?? [], where)
      const orderBy = request.orderBy ?? sql.literal("created_at DESC, id DESC")
      // past 2^53 − 1 rows no page can hold anything: a page that far answers empty (with the
      // count), where the exact product would overflow the 64-bit OFFSET of both dialects
      const offset = Math.min((request.page - 1) * request.limit, Number.MAX_SAFE_INTEGER)
      return Effect.gen(function*() {
        const rows = yield* read(
          sql<StoredRow & { total: number }>`SELECT doc, form, ${count} AS total FROM ${table} WHERE ${where} ORDER BY ${orderBy} LIMIT ${request.limit} OFFSET ${offset}`
        )
        const total = rows.length > 0 ? Number(rows[0]!.total) : yield* countAlone(count)
        return { ...empty, items: items(rows), total_item_count: total }
      }).pipe(Effect.orDie)
    }

    const page = (request: PageRequest): Effect.Effect<Page<A>> => pageOfRows(request, decodeRows)

    /**
     * One v5 page by keyset on `(sortBy, id)`: never OFFSET, so page 10,000 costs what page 1 does
     * and inserts between pages neither repeat nor skip items. `ending_before` answers the page just
     * before the cursor, still in list order; `has_more` says whether more items lie beyond the page
     * in the direction of travel. An unknown cursor id is a 422 on its query field.
     */
    const cursorPageOfRows = <B>(
      request: CursorRequest,
      items: (rows: ReadonlyArray<StoredRow>) => Array<B>
    ): Effect.Effect<CursorPage<B>, ValidationError> =>
      Effect.gen(function*() {
        const empty: CursorPage<B> = { items: [], total: 0, has_more: false, limit: request.limit, object: "list" }
        if (request.startingAfter !== undefined && request.endingBefore !== undefined) {
          return yield* Effect.fail(
            cursorError("ending_before", "starting_after and ending_before cannot be combined", request.endingBefore)
          )
        }
        if (request.accountIds.length === 0) return empty
        const filters = sql.and([sql.in("account_id", request.accountIds), ...(request.where ?? [])])
        const count = countOf(request.accountIds, request.where ?? [], filters)
        const column = sql(request.sortBy)
        const backwards = request.endingBefore !== undefined
        const cursorId = request.startingAfter ?? request.endingBefore
        // the direction rows are read in: list order, or its reverse when walking back
        const readDesc = (request.sortOrder === "desc") !== backwards
        const conditions = [filters]
        if (cursorId !== undefined) {
          const cursor = yield* read(sql<{ k: unknown }>`SELECT ${column} AS k FROM ${table} WHERE id = ${cursorId} AND ${filters}`)
          if (cursor.length === 0) {
            return yield* Effect.fail(
              cursorError(backwards ? "ending_before" : "starting_after", "No item with this id in the list", cursorId)
            )
          }
          const key = cursor[0]!.k as Primitive
          const op = sql.literal(readDesc ? "<" : ">")
          // a row value, not `k < ? OR (k = ? AND id < ?)`: SQLite (and PostgreSQL) seek the index to
          // it, where the OR form scans from the first row of the list (docs/benchmarks.md "List
          // totals and keyset pages")
          conditions.push(sql`(${column}, id) ${op} (${key}, ${cursorId})`)
        }
        const direction = sql.literal(readDesc ? "DESC" : "ASC")
        const rows = yield* read(sql<StoredRow & { total: number }>`SELECT doc, form, ${count} AS total FROM ${table} WHERE ${
          sql.and(conditions)
        } ORDER BY ${column} ${direction}, id ${direction} LIMIT ${request.limit + 1}`)
        const total = rows.length > 0 ? Number(rows[0]!.total) : yield* countAlone(count)
        const page = items(rows.slice(0, request.limit))
        return {
          ...empty,
          items: backwards ? page.reverse() : page,
          total,
          has_more: rows.length > request.limit
        }
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    const cursorPage = (request: CursorRequest): Effect.Effect<CursorPage<A>, ValidationError> =>
      cursorPageOfRows(request, decodeRows)

    /**
     * `page` and `cursorPage` with each document as its JSON text (`getText`): what a list answers
     * without decoding and encoding a document whose row is in today's form (`pageResponse`,
     * http/storedResponses.ts, splices them into the envelope).
     */
    const pageOfTexts = (request: PageRequest): Effect.Effect<Page<string>> => pageOfRows(request, (rows) => rows.map(wireText))

    const cursorPageOfTexts = (request: CursorRequest): Effect.Effect<CursorPage<string>, ValidationError> =>
      cursorPageOfRows(request, (rows) => rows.map(wireText))

    /**
     * The filter that hides archived rows (an `archived_at` column) unless asked to show them. A
     * list whose only filter is this one counts from the table's counters when they count archived
     * rows (`countOf`).
     */
    const unlessArchived = (includeArchived: boolean | undefined): ReadonlyArray<Statement.Fragment> =>
      includeArchived === true ? [] : [archivedHidden]

    /**
     * `effect` as one transaction (a SQL failure of its own is a defect, as everywhere in the
     * repositories): for a handler that reads and writes as one change (a row locked by `lock` or a
     * read inside it stays locked until it ends).
     */
    const transaction = <B, E, R>(effect: Effect.Effect<B, E, R>): Effect.Effect<B, E, R> =>
      sql.withTransaction(effect).pipe(
        Effect.catchIf((error): error is SqlError => error instanceof SqlError, Effect.die)
      ) as Effect.Effect<B, E, R>

    return {
      transaction,
      record,
      insert,
      insertAll,
      update,
      remove,
      findById,
      get,
      getText,
      findAll,
      findNarrowed,
      findFirst,
      page,
      pageOfTexts,
      cursorPage,
      cursorPageOfTexts,
      unlessArchived
    } as const
  })
