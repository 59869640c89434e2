/**
 * The items of evaluations (docs/evaluations.md "Items"). An item is stored with its account and
 * where its run stands; it is answered with its evaluation's `archived_at` (archiving an
 * evaluation archives its items, without writing them).
 */
import { SqlClient } from "@effect/sql"
import { EvaluationItem, Id, NotFound } from "@platform-kit/schema"
import type { Statement } from "@effect/sql"
import { Effect, Schema, Struct } from "effect"
import { makeDocuments } from "../sql/documents.js"

/** Where an item's run stands, and when it failed, which task failed and why. */
export const RunStatus = Schema.Literal("pending", "successful", "failed")
export type RunStatus = typeof RunStatus.Type

export class StoredEvaluationItem extends Schema.Class<StoredEvaluationItem>("StoredEvaluationItem")({
  ...Struct.omit(EvaluationItem.fields, "archived_at"),
  account_id: Id,
  /** Its place in its evaluation, from 0. */
  position: Schema.Int,
  run_status: RunStatus,
  run_error: Schema.NullOr(Schema.Struct({ alias: Schema.String, error: Schema.String, error_type: Schema.String }))
}) {}

/** The order of an evaluation's items, and of all items: by their evaluation's creation, then position. */
const sortKeyOf = (item: { readonly created_at: string; readonly position: number }) =>
  `${item.created_at}#${item.position.toString().padStart(9, "0")}`

const decodeDoc = Schema.decodeUnknownSync(Schema.parseJson(StoredEvaluationItem))

export interface ListRequest {
  readonly accountIds: ReadonlyArray<string>
  readonly evaluationId?: string | undefined
  readonly includeArchived?: boolean | undefined
  readonly limit: number
  readonly sortOrder: "asc" | "desc"
  readonly startingAfter?: string | undefined
  readonly endingBefore?: string | undefined
}

export class EvaluationItemsRepo extends Effect.Service<EvaluationItemsRepo>()("@platform-kit/server/EvaluationItemsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const docs = yield* makeDocuments({
      table: "evaluation_items",
      label: "Evaluation item",
      schema: StoredEvaluationItem,
      columns: (item) => ({
        id: item.id,
        account_id: item.account_id,
        created_at: item.created_at,
        evaluation_id: item.evaluation_id,
        sort_key: sortKeyOf(item),
        run_status: item.run_status,
        run_error_alias: item.run_error?.alias ?? null
      })
    })

    /** Hides the items of archived evaluations unless asked to show them. */
    const unlessArchived = (includeArchived: boolean | undefined): ReadonlyArray<Statement.Fragment> =>
      includeArchived === true ? [] : [sql`evaluation_id IN (SELECT id FROM evaluations WHERE archived_at IS NULL)`]

    /** The item with `id` in `accountIds`; one of an archived evaluation is a 404 unless `includeArchived`. */
    const get = (id: string, accountIds: ReadonlyArray<string>, includeArchived: boolean) =>
      Effect.flatMap(docs.findAll(accountIds, [sql`id = ${id}`, ...unlessArchived(includeArchived)]), (found) =>
        found.length === 0
          ? Effect.fail(new NotFound({ detail: `Evaluation item ${id} not found` }))
          : Effect.succeed(found[0]!))

    /** One v5 page of items, in their evaluations' order. */
    const list = (request: ListRequest) =>
      docs.cursorPage({
        accountIds: request.accountIds,
        limit: request.limit,
        sortBy: "sort_key",
        sortOrder: request.sortOrder,
        startingAfter: request.startingAfter,
        endingBefore: request.endingBefore,
        where: [
          ...(request.evaluationId === undefined ? [] : [sql`evaluation_id = ${request.evaluationId}`]),
          ...unlessArchived(request.includeArchived)
        ]
      })

    /** The next `limit` items of an evaluation its run has not done yet, in order. */
    const pending = (evaluationId: string, limit: number) =>
      sql<{ doc: string }>`SELECT doc FROM evaluation_items
        WHERE evaluation_id = ${evaluationId} AND run_status = 'pending' ORDER BY sort_key LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map((row) => decodeDoc(row.doc))),
        Effect.orDie
      )

    /** How many items of an evaluation stand where, and the failed ones (at most `failedLimit`, in order). */
    const tally = (evaluationId: string, failedLimit: number) =>
      Effect.gen(function*() {
        const counts = yield* sql<{ run_status: RunStatus; n: number }>`
          SELECT run_status, COUNT(*) AS n FROM evaluation_items WHERE evaluation_id = ${evaluationId} GROUP BY run_status`
        const failed = yield* sql<{ doc: string }>`
          SELECT doc FROM evaluation_items WHERE evaluation_id = ${evaluationId} AND run_status = 'failed'
          ORDER BY sort_key LIMIT ${failedLimit}`
        const aliases = yield* sql<{ alias: string }>`
          SELECT DISTINCT run_error_alias AS alias FROM evaluation_items
          WHERE evaluation_id = ${evaluationId} AND run_status = 'failed'`
        const count = (status: RunStatus) => Number(counts.find((row) => row.run_status === status)?.n ?? 0)
        return {
          pending: count("pending"),
          successful: count("successful"),
          failed: count("failed"),
          failedItems: failed.map((row) => decodeDoc(row.doc)),
          /** The tasks that failed on some item (all of them, not only on the items listed). */
          failedAliases: aliases.map((row) => row.alias)
        }
      }).pipe(Effect.orDie)

    /** The evaluations with items their run has not done (the engine starts their runs when it starts). */
    const unfinished = sql<{ id: string; account_id: string }>`
      SELECT DISTINCT evaluation_id AS id, account_id FROM evaluation_items WHERE run_status = 'pending'`.pipe(Effect.orDie)

    /** Every item of the evaluations `ids`, in order (what a dashboard's widget is computed from). */
    const ofEvaluations = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed([])
        : sql<{ doc: string }>`SELECT doc FROM evaluation_items WHERE ${sql.in("evaluation_id", ids)} ORDER BY sort_key`.pipe(
          Effect.map((rows) => rows.map((row) => decodeDoc(row.doc))),
          Effect.orDie
        )

    return { insertAll: docs.insertAll, unfinished, ofEvaluations, get, list, pending, tally, update: docs.update, transaction: docs.transaction } as const
  })
}) {}
