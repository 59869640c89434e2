/**
 * v5 datasets and their items (docs/datasets.md): a dataset holds free-JSON items; every change of
 * its items (a batch of new ones, an update, a delete) makes a new version, and items are read as
 * they are now or as they were at a version.
 */
import { Schema } from "effect"
import {
  DateTimeString,
  Id,
  Identity,
  JsonObject,
  NonEmptyString,
  Nullable,
  Optional,
  QueryArray,
  QueryBoolean,
  V5List,
  V5PageQuery
} from "./common.js"

const Tag = NonEmptyString

/** Per item, a map of names to file ids (kept as given). */
const ItemFiles = Schema.Record({ key: Schema.String, value: Schema.String })

/** The most items one request may add (a create's `data`, a batch). */
export const maxItemsPerRequest = 10_000

const Items = Schema.Array(JsonObject).pipe(Schema.minItems(1), Schema.maxItems(maxItemsPerRequest))

// ---------------------------------------------------------------------------------------------
// Dataset

export class Dataset extends Schema.Class<Dataset>("Dataset")({
  id: Id,
  name: Schema.String,
  description: Nullable(Schema.String),
  tags: Schema.Array(Schema.String),
  current_version_num: Schema.Int,
  created_at: DateTimeString,
  created_by: Identity,
  archived_at: Nullable(DateTimeString),
  object: Schema.Literal("dataset")
}) {}

/** `POST /v5/datasets`: a name and the first items (at least one), made version 1. */
export class CreateDataset extends Schema.Class<CreateDataset>("CreateDataset")({
  name: NonEmptyString,
  data: Items,
  description: Optional(Schema.String),
  /** Each item's files, by position. */
  files: Optional(Schema.Array(ItemFiles)),
  tags: Optional(Schema.Array(Tag)),
  account_id: Optional(Id)
}) {}

/** `PATCH /v5/datasets/{id}`: `name`, `description`, `tags` (replaced), or `restore: true`. */
export class UpdateDataset extends Schema.Class<UpdateDataset>("UpdateDataset")({
  name: Optional(NonEmptyString),
  description: Optional(Schema.String),
  tags: Optional(Schema.Array(Tag)),
  restore: Optional(Schema.Boolean)
}) {}

const includeArchived = Schema.optionalWith(QueryBoolean, { exact: true })

/** Query of a read by id: an archived dataset is a 404 unless `include_archived=true`. */
export const DatasetGetQuery = Schema.Struct({ include_archived: includeArchived })

export const DatasetListQuery = Schema.Struct({
  ...V5PageQuery(["created_at", "name"]),
  /** A case-insensitive part of the name. */
  name: Schema.optionalWith(Schema.String, { exact: true }),
  /** Datasets with every one of these tags. */
  tags: Schema.optionalWith(QueryArray(Tag), { exact: true }),
  include_archived: includeArchived,
  account_id: Schema.optionalWith(Id, { exact: true })
})

export const DatasetList = V5List(Dataset).annotations({ identifier: "DatasetList" })

export class DatasetDeleteResponse extends Schema.Class<DatasetDeleteResponse>("DatasetDeleteResponse")({
  id: Id,
  deleted: Schema.Boolean,
  object: Schema.String
}) {}

// ---------------------------------------------------------------------------------------------
// Dataset item

export class DatasetItem extends Schema.Class<DatasetItem>("DatasetItem")({
  id: Id,
  dataset_id: Id,
  data: JsonObject,
  files: Nullable(ItemFiles),
  /** The SHA-256 of the item's `data` as canonical JSON (keys sorted), hex. */
  content_hash: Schema.String,
  created_at: DateTimeString,
  created_by: Identity,
  updated_at: DateTimeString,
  archived_at: Nullable(DateTimeString),
  object: Schema.Literal("dataset.item")
}) {}

/** `POST /v5/dataset-items/batch`: items added to a dataset, as one new version. */
export class BatchCreateDatasetItems extends Schema.Class<BatchCreateDatasetItems>("BatchCreateDatasetItems")({
  dataset_id: Id,
  data: Items,
  files: Optional(Schema.Array(ItemFiles))
}) {}

export class DatasetItemBatchCreateResponse extends Schema.Class<DatasetItemBatchCreateResponse>("DatasetItemBatchCreateResponse")({
  items: Schema.Array(DatasetItem),
  object: Schema.Literal("list")
}) {}

/** `PATCH /v5/dataset-items/{id}`: the item's new data (and files), as one new version. */
export class UpdateDatasetItem extends Schema.Class<UpdateDatasetItem>("UpdateDatasetItem")({
  data: JsonObject,
  files: Optional(ItemFiles)
}) {}

const Version = Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1))

/** Query of an item read: as it was at `version` (default: as it is). */
export const DatasetItemGetQuery = Schema.Struct({ version: Schema.optionalWith(Version, { exact: true }) })

export const DatasetItemListQuery = Schema.Struct({
  ...V5PageQuery(["created_at", "updated_at"]),
  dataset_id: Schema.optionalWith(Id, { exact: true }),
  /** The items as they were at this version of `dataset_id` (required with it). */
  version: Schema.optionalWith(Version, { exact: true }),
  include_archived: includeArchived,
  account_id: Schema.optionalWith(Id, { exact: true })
}).pipe(
  Schema.filter((query) =>
    query.version === undefined || query.dataset_id !== undefined
      ? undefined
      : { path: ["version"], message: "version needs dataset_id: a version is a dataset's" }
  )
)

export const DatasetItemList = V5List(DatasetItem).annotations({ identifier: "DatasetItemList" })

export class DatasetItemDeleteResponse extends Schema.Class<DatasetItemDeleteResponse>("DatasetItemDeleteResponse")({
  id: Id,
  deleted: Schema.Boolean,
  object: Schema.String
}) {}
