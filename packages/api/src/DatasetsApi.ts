import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  BatchCreateDatasetItems,
  Conflict,
  CreateDataset,
  Dataset,
  DatasetDeleteResponse,
  DatasetGetQuery,
  DatasetItem,
  DatasetItemBatchCreateResponse,
  DatasetItemDeleteResponse,
  DatasetItemGetQuery,
  DatasetItemList,
  DatasetItemListQuery,
  DatasetList,
  DatasetListQuery,
  Id,
  NotFound,
  UpdateDataset,
  UpdateDatasetItem
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const DatasetPath = Schema.Struct({ dataset_id: Id })
const ItemPath = Schema.Struct({ dataset_item_id: Id })

export class DatasetsApi extends HttpApiGroup.make("datasets")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v5/datasets")
      .setPayload(CreateDataset)
      .addSuccess(Dataset)
      .annotate(OpenApi.Summary, "Create a dataset")
      .annotate(OpenApi.Description, "Creates a dataset with its first items (`data`, at least one): version 1.")
  )
  .add(
    HttpApiEndpoint.get("list", "/v5/datasets")
      .setUrlParams(DatasetListQuery)
      .addSuccess(DatasetList)
      .annotate(OpenApi.Summary, "List datasets")
      .annotate(
        OpenApi.Description,
        "The datasets of the caller's accounts with the v5 cursor; `name` (a case-insensitive part), `tags` (all of them) filter; archived ones only with `include_archived=true`."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v5/datasets/:dataset_id")
      .setPath(DatasetPath)
      .setUrlParams(DatasetGetQuery)
      .addSuccess(Dataset)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a dataset")
      .annotate(OpenApi.Description, "The dataset; an archived one is a 404 unless `include_archived=true`.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v5/datasets/:dataset_id")
      .setPath(DatasetPath)
      .setPayload(UpdateDataset)
      .addSuccess(Dataset)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Update a dataset")
      .annotate(
        OpenApi.Description,
        "Changes `name`, `description`, `tags`; `restore: true` un-archives it and its items. An archived dataset takes only `restore` (409 otherwise)."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v5/datasets/:dataset_id")
      .setPath(DatasetPath)
      .addSuccess(DatasetDeleteResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Archive a dataset")
      .annotate(OpenApi.Description, "Archives the dataset and its items (`deleted: true`); one already archived is a 409.")
  )
  .add(
    HttpApiEndpoint.post("batchCreateItems", "/v5/dataset-items/batch")
      .setPayload(BatchCreateDatasetItems)
      .addSuccess(DatasetItemBatchCreateResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Add dataset items")
      .annotate(OpenApi.Description, "Adds the items of `data` to the dataset as one new version; answers them.")
  )
  .add(
    HttpApiEndpoint.get("listItems", "/v5/dataset-items")
      .setUrlParams(DatasetItemListQuery)
      .addSuccess(DatasetItemList)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List dataset items")
      .annotate(
        OpenApi.Description,
        "Items of the caller's datasets (`dataset_id` narrows to one) with the v5 cursor; `version` (with `dataset_id`) answers them as they were at that version. Archived ones only with `include_archived=true`."
      )
  )
  .add(
    HttpApiEndpoint.get("getItem", "/v5/dataset-items/:dataset_item_id")
      .setPath(ItemPath)
      .setUrlParams(DatasetItemGetQuery)
      .addSuccess(DatasetItem)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a dataset item")
      .annotate(OpenApi.Description, "The item as it is, or as it was at `version` of its dataset (404 when it did not exist then).")
  )
  .add(
    HttpApiEndpoint.patch("updateItem", "/v5/dataset-items/:dataset_item_id")
      .setPath(ItemPath)
      .setPayload(UpdateDatasetItem)
      .addSuccess(DatasetItem)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Update a dataset item")
      .annotate(OpenApi.Description, "Replaces the item's `data` (and `files` when given) as one new version of its dataset.")
  )
  .add(
    HttpApiEndpoint.del("deleteItem", "/v5/dataset-items/:dataset_item_id")
      .setPath(ItemPath)
      .addSuccess(DatasetItemDeleteResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Delete a dataset item")
      .annotate(
        OpenApi.Description,
        "Archives the item as one new version of its dataset: earlier versions still hold it. One already deleted is a 404."
      )
  )
  .annotate(OpenApi.Title, "Datasets")
  .annotate(OpenApi.Description, "Datasets (v5): free-JSON items, versioned by every change of their items.")
{}
