/**
 * The v5 datasets and dataset items (docs/datasets.md). Every change of a dataset's items (a
 * create's first items, a batch, an update, a delete) is one transaction that locks the dataset,
 * makes the next version and records the items' revisions, so a read at a version sees the items
 * exactly as they were then.
 */
import { SqlClient } from "@effect/sql"
import {
  Conflict,
  cursorOf,
  Dataset,
  DatasetDeleteResponse,
  DatasetItem,
  DatasetItemBatchCreateResponse,
  DatasetItemDeleteResponse,
  NotFound,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Effect, Layer, Option, Struct } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdByIdentity } from "../auth/access.js"
import type { ImplementGroup } from "../http/groups.js"
import { nowIso } from "../platform/Ids.js"
import { containsPattern, likeEscape } from "../sql/like.js"
import { DatasetItemsRepo, DatasetsRepo, type StoredDataset, type StoredDatasetItem } from "./DatasetsRepo.js"
import { contentHash, newDataset, newItems, storeNew } from "./records.js"

const answerDataset = (dataset: StoredDataset) => new Dataset(Struct.omit(dataset, "account_id"), true)

/** An item as answered: archived with its dataset when the dataset is. */
const answerItem = (item: StoredDatasetItem, dataset: StoredDataset | undefined) =>
  new DatasetItem({ ...Struct.omit(item, "account_id"), archived_at: item.archived_at ?? dataset?.archived_at ?? null }, true)

const filesProblems = (data: ReadonlyArray<unknown>, files: ReadonlyArray<unknown> | undefined) =>
  files === undefined || files.length === data.length
    ? []
    : [new ValidationIssue({ loc: ["body", "files"], msg: `files has ${files.length} entries for ${data.length} items: one per item, by position`, type: "value_error", input: files.length })]

export const DatasetsHttp = (group: ImplementGroup) =>
  group("datasets", (handlers) =>
  Effect.gen(function*() {
    const datasets = yield* DatasetsRepo
    const items = yield* DatasetItemsRepo
    const sql = yield* SqlClient.SqlClient

    /** The caller's dataset `id` (locked inside a transaction); archived ones only when `includeArchived`. */
    const datasetOf = (id: string, includeArchived: boolean) =>
      Effect.gen(function*() {
        const dataset = yield* datasets.get(id, yield* callerAccounts)
        return dataset.archived_at !== null && !includeArchived ? yield* Effect.fail(new NotFound({ detail: `Dataset ${id} not found` })) : dataset
      })

    /** The caller's dataset `id`, for a change of its items: an archived one is a 409. */
    const changeable = (id: string) =>
      Effect.flatMap(datasetOf(id, true), (dataset) =>
        dataset.archived_at === null
          ? Effect.succeed(dataset)
          : Effect.fail(new Conflict({ detail: `Dataset ${id} is archived: restore it first (PATCH with {"restore": true})` })))

    /** `dataset` at its next version. */
    const nextVersion = (dataset: StoredDataset) =>
      datasets.update({ ...dataset, current_version_num: dataset.current_version_num + 1 })

    /** The datasets of `itemsOf`'s items, by id (their archive shows on the items). */
    const datasetsOf = (page: ReadonlyArray<StoredDatasetItem>) =>
      Effect.gen(function*() {
        const wanted = [...new Set(page.map((item) => item.dataset_id))]
        if (wanted.length === 0) return new Map<string, StoredDataset>()
        const found = yield* datasets.findAll([...new Set(page.map((item) => item.account_id))], [sql.in("id", wanted)])
        return new Map(found.map((dataset) => [dataset.id, dataset]))
      })

    const badVersion = (dataset: StoredDataset, version: number, at: ReadonlyArray<string>) =>
      new ValidationError({
        detail: [new ValidationIssue({
          loc: at,
          msg: `Dataset ${dataset.id} has versions 1 to ${dataset.current_version_num}`,
          type: "value_error",
          input: version
        })]
      })

    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const problems = filesProblems(payload.data, payload.files)
          if (problems.length > 0) return yield* Effect.fail(new ValidationError({ detail: problems }))
          const account_id = yield* accountForWrite(payload.account_id)
          const made = yield* newDataset(
            { name: payload.name, description: payload.description ?? null, tags: payload.tags ?? [], account_id },
            payload.data,
            payload.files,
            yield* createdByIdentity
          )
          yield* datasets.transaction(storeNew(made))
          return answerDataset(made.dataset)
        }))
      .handle("get", ({ path, urlParams }) => Effect.map(datasetOf(path.dataset_id, urlParams.include_archived === true), answerDataset))
      .handle("list", ({ urlParams }) =>
        Effect.gen(function*() {
          const accountIds = yield* accountsForRead(urlParams.account_id)
          const where = [...datasets.unlessArchived(urlParams.include_archived)]
          if (urlParams.name !== undefined) where.push(sql`name_lower LIKE ${containsPattern(urlParams.name)} ${sql.literal(likeEscape)}`)
          for (const tag of urlParams.tags ?? []) where.push(sql`tags LIKE ${containsPattern(JSON.stringify(tag))} ${sql.literal(likeEscape)}`)
          const page = yield* datasets.cursorPage({ accountIds, ...cursorOf(urlParams), where })
          return { ...page, items: page.items.map(answerDataset) }
        }))
      .handle("update", ({ path, payload }) =>
        datasets.transaction(Effect.gen(function*() {
          const current = yield* datasetOf(path.dataset_id, true)
          const restoring = payload.restore === true && current.archived_at !== null
          const changes = payload.name !== undefined || payload.description !== undefined || payload.tags !== undefined
          if (current.archived_at !== null && !restoring && changes) {
            return yield* Effect.fail(new Conflict({ detail: `Dataset ${current.id} is archived: restore it first (PATCH with {"restore": true})` }))
          }
          return answerDataset(yield* datasets.update({
            ...current,
            name: payload.name ?? current.name,
            description: payload.description !== undefined ? payload.description : current.description,
            tags: payload.tags ?? current.tags,
            archived_at: restoring ? null : current.archived_at
          }))
        })))
      .handle("delete", ({ path }) =>
        datasets.transaction(Effect.gen(function*() {
          const current = yield* datasetOf(path.dataset_id, true)
          if (current.archived_at !== null) return yield* Effect.fail(new Conflict({ detail: `Dataset ${current.id} is already archived` }))
          yield* datasets.update({ ...current, archived_at: yield* nowIso })
          return new DatasetDeleteResponse({ id: current.id, deleted: true, object: "dataset" }, true)
        })))
      .handle("batchCreateItems", ({ payload }) =>
        Effect.gen(function*() {
          const problems = filesProblems(payload.data, payload.files)
          if (problems.length > 0) return yield* Effect.fail(new ValidationError({ detail: problems }))
          return yield* datasets.transaction(Effect.gen(function*() {
            const dataset = yield* changeable(payload.dataset_id)
            const made = yield* newItems(dataset, payload.data, payload.files, yield* createdByIdentity)
            const next = yield* nextVersion(dataset)
            yield* items.insertAll(made)
            yield* items.openRevisions(made, next.current_version_num)
            return new DatasetItemBatchCreateResponse({ items: made.map((item) => answerItem(item, next)), object: "list" }, true)
          }))
        }))
      .handle("listItems", ({ urlParams }) =>
        Effect.gen(function*() {
          const accountIds = yield* accountsForRead(urlParams.account_id)
          const includeArchived = urlParams.include_archived === true
          if (urlParams.dataset_id !== undefined) {
            const dataset = yield* datasetOf(urlParams.dataset_id, includeArchived)
            if (!accountIds.includes(dataset.account_id)) return yield* Effect.fail(new NotFound({ detail: `Dataset ${dataset.id} not found` }))
            if (urlParams.version !== undefined) {
              if (urlParams.version > dataset.current_version_num) {
                return yield* Effect.fail(badVersion(dataset, urlParams.version, ["query", "version"]))
              }
              const { limit, sortOrder } = cursorOf(urlParams)
              const page = yield* items.pageAtVersion({
                datasetId: dataset.id,
                version: urlParams.version,
                limit,
                sortOrder,
                startingAfter: urlParams.starting_after,
                endingBefore: urlParams.ending_before
              })
              return { ...page, items: page.items.map((item) => answerItem(item, dataset)) }
            }
          }
          const where = [...items.unlessArchived(includeArchived)]
          if (urlParams.dataset_id !== undefined) where.push(sql`dataset_id = ${urlParams.dataset_id}`)
          else if (!includeArchived) where.push(sql`dataset_id NOT IN (SELECT id FROM datasets WHERE archived_at IS NOT NULL)`)
          const page = yield* items.cursorPage({ accountIds, ...cursorOf(urlParams), where })
          const owners = yield* datasetsOf(page.items)
          return { ...page, items: page.items.map((item) => answerItem(item, owners.get(item.dataset_id))) }
        }))
      .handle("getItem", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const item = yield* items.get(path.dataset_item_id, yield* callerAccounts)
          const dataset = Option.getOrUndefined(yield* datasets.findById(item.dataset_id, [item.account_id]))
          if (urlParams.version === undefined) return answerItem(item, dataset)
          if (dataset !== undefined && urlParams.version > dataset.current_version_num) {
            return yield* Effect.fail(badVersion(dataset, urlParams.version, ["query", "version"]))
          }
          const then = yield* items.atVersion(item.id, urlParams.version)
          if (Option.isNone(then)) {
            return yield* Effect.fail(new NotFound({ detail: `Dataset item ${item.id} was not in version ${urlParams.version} of its dataset` }))
          }
          return answerItem(then.value, dataset)
        }))
      .handle("updateItem", ({ path, payload }) =>
        datasets.transaction(Effect.gen(function*() {
          const item = yield* items.get(path.dataset_item_id, yield* callerAccounts)
          const dataset = yield* changeable(item.dataset_id)
          if (item.archived_at !== null) return yield* Effect.fail(new NotFound({ detail: `Dataset item ${item.id} not found` }))
          const next = yield* nextVersion(dataset)
          const updated = yield* items.update({
            ...item,
            data: payload.data,
            files: payload.files !== undefined ? payload.files : item.files,
            content_hash: contentHash(payload.data),
            updated_at: yield* nowIso
          })
          yield* items.closeRevision(item.id, next.current_version_num)
          yield* items.openRevisions([updated], next.current_version_num)
          return answerItem(updated, next)
        })))
      .handle("deleteItem", ({ path }) =>
        datasets.transaction(Effect.gen(function*() {
          const item = yield* items.get(path.dataset_item_id, yield* callerAccounts)
          const dataset = yield* changeable(item.dataset_id)
          if (item.archived_at !== null) return yield* Effect.fail(new NotFound({ detail: `Dataset item ${item.id} not found` }))
          const next = yield* nextVersion(dataset)
          const now = yield* nowIso
          yield* items.update({ ...item, archived_at: now, updated_at: now })
          yield* items.closeRevision(item.id, next.current_version_num)
          return new DatasetItemDeleteResponse({ id: item.id, deleted: true, object: "dataset.item" }, true)
        })))
  })
).pipe(Layer.provide([DatasetsRepo.Default, DatasetItemsRepo.Default]))
