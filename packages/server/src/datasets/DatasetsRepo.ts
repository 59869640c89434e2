/**
 * The v5 datasets' storage (docs/datasets.md): datasets, their items as they are now, and every
 * revision of every item with the versions of its dataset it holds (migration 0057).
 */
import { SqlClient } from "@effect/sql"
import { Dataset, DatasetItem, Id } from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import { cursorError, makeDocuments } from "../sql/documents.js"
import { makeRead } from "../sql/reads.js"

export const StoredDataset = Schema.Struct({ ...Dataset.fields, account_id: Id })
export type StoredDataset = typeof StoredDataset.Type

export const StoredDatasetItem = Schema.Struct({ ...DatasetItem.fields, account_id: Id })
export type StoredDatasetItem = typeof StoredDatasetItem.Type

export class DatasetsRepo extends Effect.Service<DatasetsRepo>()("@platform-kit/server/DatasetsRepo", {
  effect: makeDocuments({
    table: "datasets",
    label: "Dataset",
    schema: StoredDataset,
    columns: (dataset) => ({
      id: dataset.id,
      account_id: dataset.account_id,
      created_at: dataset.created_at,
      name: dataset.name,
      name_lower: dataset.name.toLowerCase(),
      // lowered: the list's tag filter matches a tag case-insensitively (sql/like.ts)
      tags: JSON.stringify(dataset.tags.map((tag) => tag.toLowerCase())),
      archived_at: dataset.archived_at
    })
  })
}) {}

/** A v5 page of items at a version, by keyset on `(created_at, item id)`. */
export interface VersionPageRequest {
  readonly datasetId: string
  readonly version: number
  readonly limit: number
  readonly sortOrder: "asc" | "desc"
  readonly startingAfter?: string | undefined
  readonly endingBefore?: string | undefined
}

const encodeItem = Schema.encodeSync(StoredDatasetItem)
const decodeItem = Schema.decodeUnknownSync(Schema.parseJson(StoredDatasetItem))

export class DatasetItemsRepo extends Effect.Service<DatasetItemsRepo>()("@platform-kit/server/DatasetItemsRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "dataset_items",
      label: "Dataset item",
      schema: StoredDatasetItem,
      columns: (item) => ({
        id: item.id,
        account_id: item.account_id,
        created_at: item.created_at,
        dataset_id: item.dataset_id,
        updated_at: item.updated_at,
        archived_at: item.archived_at
      })
    })
    const sql = yield* SqlClient.SqlClient
    const read = yield* makeRead

    /** Each item holds from `version` on (its new revision). */
    const openRevisions = (items: ReadonlyArray<StoredDatasetItem>, version: number) =>
      Effect.forEach(
        Array.from({ length: Math.ceil(items.length / 500) }, (_, i) => items.slice(i * 500, (i + 1) * 500)),
        (rows) =>
          sql`INSERT INTO dataset_item_revisions ${
            sql.insert(rows.map((item) => ({
              item_id: item.id,
              dataset_id: item.dataset_id,
              created_at: item.created_at,
              first_version: version,
              last_version: null,
              doc: JSON.stringify(encodeItem(item))
            })))
          }`,
        { discard: true }
      ).pipe(Effect.orDie)

    /** The item's revision up to now ends before `version`. */
    const closeRevision = (itemId: string, version: number) =>
      Effect.orDie(sql`UPDATE dataset_item_revisions SET last_version = ${version - 1} WHERE item_id = ${itemId} AND last_version IS NULL`)

    const holds = (version: number) => sql`first_version <= ${version} AND (last_version IS NULL OR last_version >= ${version})`

    /** Every item of dataset `datasetId` as it was at `version`, in creation order. */
    const allAtVersion = (datasetId: string, version: number) =>
      read(sql<{ doc: string }>`SELECT doc FROM dataset_item_revisions WHERE dataset_id = ${datasetId} AND ${holds(version)} ORDER BY created_at, item_id`).pipe(
        Effect.map((rows) => rows.map((row) => decodeItem(row.doc))),
        Effect.orDie
      )

    /** The item as it was at `version` of its dataset, if it was there. */
    const atVersion = (itemId: string, version: number) =>
      read(sql<{ doc: string }>`SELECT doc FROM dataset_item_revisions WHERE item_id = ${itemId} AND ${holds(version)}`).pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => decodeItem(row.doc))),
        Effect.orDie
      )

    /**
     * A page of the items of a dataset as they were at `version`, in `created_at` order (ties by
     * id), as the v5 cursor reads (`starting_after`, `ending_before`: an item id of that version).
     */
    const pageAtVersion = (request: VersionPageRequest) =>
      Effect.gen(function*() {
        if (request.startingAfter !== undefined && request.endingBefore !== undefined) {
          return yield* Effect.fail(cursorError("ending_before", "starting_after and ending_before cannot be combined", request.endingBefore))
        }
        const filters = [sql`dataset_id = ${request.datasetId}`, holds(request.version)]
        // an item deleted at a later version was there then, as its revision holds it
        const backwards = request.endingBefore !== undefined
        const cursorId = request.startingAfter ?? request.endingBefore
        const readDesc = (request.sortOrder === "desc") !== backwards
        const conditions = [...filters]
        if (cursorId !== undefined) {
          const cursor = yield* read(
            sql<{ k: string }>`SELECT created_at AS k FROM dataset_item_revisions WHERE item_id = ${cursorId} AND ${sql.and(filters)}`
          )
          if (cursor.length === 0) {
            return yield* Effect.fail(cursorError(backwards ? "ending_before" : "starting_after", "No item with this id in the list", cursorId))
          }
          conditions.push(sql`(created_at, item_id) ${sql.literal(readDesc ? "<" : ">")} (${cursor[0]!.k}, ${cursorId})`)
        }
        const direction = sql.literal(readDesc ? "DESC" : "ASC")
        const rows = yield* read(sql<{ doc: string; total: number }>`SELECT doc, (SELECT COUNT(*) FROM dataset_item_revisions WHERE ${
          sql.and(filters)
        }) AS total FROM dataset_item_revisions WHERE ${sql.and(conditions)} ORDER BY created_at ${direction}, item_id ${direction} LIMIT ${
          request.limit + 1
        }`)
        const total = rows.length > 0
          ? Number(rows[0]!.total)
          : Number((yield* read(sql<{ n: number }>`SELECT COUNT(*) AS n FROM dataset_item_revisions WHERE ${sql.and(filters)}`))[0]!.n)
        const page = rows.slice(0, request.limit).map((row) => decodeItem(row.doc))
        return {
          items: backwards ? page.reverse() : page,
          total,
          has_more: rows.length > request.limit,
          limit: request.limit,
          object: "list" as const
        }
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    return { ...documents, openRevisions, closeRevision, atVersion, allAtVersion, pageAtVersion } as const
  })
}) {}
