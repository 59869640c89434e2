/**
 * Making v5 datasets and items (docs/datasets.md): what a dataset create and an evaluation create
 * with a new `dataset` (docs/evaluations.md "Create") both store.
 */
import type { Identity } from "@platform-kit/schema"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import { canonicalJson } from "../platform/canonicalJson.js"
import { freshIdentity, Ids, nowIso } from "../platform/Ids.js"
import { DatasetItemsRepo, DatasetsRepo, type StoredDataset, type StoredDatasetItem } from "./DatasetsRepo.js"

/** An item's `content_hash`: the SHA-256 of its data as canonical JSON (keys sorted), hex. */
export const contentHash = (data: unknown) => Crypto.createHash("sha256").update(canonicalJson(data)).digest("hex")

type ItemData = StoredDatasetItem["data"]
type ItemFiles = StoredDatasetItem["files"]

/** New items of `dataset` made of `data` (and `files`, by position), created by `created_by`. */
export const newItems = (
  dataset: Pick<StoredDataset, "id" | "account_id">,
  data: ReadonlyArray<ItemData>,
  files: ReadonlyArray<NonNullable<ItemFiles>> | undefined,
  created_by: Identity
) =>
  Effect.gen(function*() {
    const now = yield* nowIso
    // one instant for the batch, ids in ascending order: lists (by `created_at`, then id) keep the given order
    const make = (yield* Ids).make
    const ids = [...yield* Effect.all(data.map(() => make))].sort()
    return data.map((entry, i): StoredDatasetItem => ({
      id: ids[i]!,
      dataset_id: dataset.id,
      data: entry,
      files: files?.[i] ?? null,
      content_hash: contentHash(entry),
      created_at: now,
      created_by,
      updated_at: now,
      archived_at: null,
      object: "dataset.item",
      account_id: dataset.account_id
    }))
  })

/** A new dataset (version 1) of `fields`, and its items made of `data`; not stored yet (`storeNew`). */
export const newDataset = (
  fields: { readonly name: string; readonly description: string | null; readonly tags: ReadonlyArray<string>; readonly account_id: string },
  data: ReadonlyArray<ItemData>,
  files: ReadonlyArray<NonNullable<ItemFiles>> | undefined,
  created_by: Identity
) =>
  Effect.gen(function*() {
    const [id, created_at] = yield* freshIdentity
    const dataset: StoredDataset = { id, ...fields, current_version_num: 1, created_at, created_by, archived_at: null, object: "dataset" }
    return { dataset, items: yield* newItems(dataset, data, files, created_by) }
  })

/** Stores a new dataset and its items as its version 1 (inside the caller's transaction, if any). */
export const storeNew = (made: { readonly dataset: StoredDataset; readonly items: ReadonlyArray<StoredDatasetItem> }) =>
  Effect.gen(function*() {
    const datasets = yield* DatasetsRepo
    const items = yield* DatasetItemsRepo
    yield* datasets.insert(made.dataset)
    yield* items.insertAll(made.items)
    yield* items.openRevisions(made.items, 1)
  })
