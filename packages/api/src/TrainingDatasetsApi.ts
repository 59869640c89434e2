import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import {
  Conflict,
  CreateTrainingDatasetForm,
  GenericDeleteResponse,
  Id,
  NotFound,
  TrainingDataset,
  TrainingDatasetGenerationItem,
  V4ListQuery,
  V4Page
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const DatasetPath = Schema.Struct({ training_dataset_id: Id })

/** Training datasets (the real SDK's `training_datasets`): uploaded files of rows for fine-tuning jobs. */
export class TrainingDatasetsApi extends HttpApiGroup.make("trainingDatasets")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/training-datasets")
      .setPayload(HttpApiSchema.MultipartStream(CreateTrainingDatasetForm))
      .addSuccess(TrainingDataset)
      .annotate(OpenApi.Summary, "Upload a training dataset")
      .annotate(
        OpenApi.Description,
        "Uploads a file of rows (multipart/form-data: `file`, `account_id`, `name`, `schema_type` `GENERATION`; JSON Lines or CSV with `input` and `output`, within the body size limit), checked row by row as it is streamed into the object store: a malformed row is a 422 naming its line, and nothing is stored."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/training-datasets/:training_dataset_id")
      .setPath(DatasetPath)
      .addSuccess(TrainingDataset)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a training dataset")
      .annotate(OpenApi.Description, "Answers the training dataset; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/training-datasets")
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(TrainingDataset))
      .annotate(OpenApi.Summary, "List training datasets")
      .annotate(
        OpenApi.Description,
        "Lists the training datasets of the caller's accounts (`account_id` narrows to one), newest first, as a v4 page (`page`, `limit`)."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/training-datasets/:training_dataset_id")
      .setPath(DatasetPath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Delete a training dataset")
      .annotate(
        OpenApi.Description,
        "Deletes the training dataset and its file (`{count: 1, success: true}`); 409 while a fine-tuning job that names it is `PENDING` or `RUNNING`; 404 when it is not in the caller's accounts."
      )
  )
  .add(
    HttpApiEndpoint.get("contents", "/v4/training-datasets/:training_dataset_id/contents")
      .setPath(DatasetPath)
      .addSuccess(Schema.Array(TrainingDatasetGenerationItem))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List a training dataset's rows")
      .annotate(
        OpenApi.Description,
        "Answers the dataset's rows, in file order, as a bare array of `{input, output, schema_type}`, read back from its file in the object store as it is streamed out."
      )
  )
  .annotate(OpenApi.Title, "Training datasets")
  .annotate(
    OpenApi.Description,
    "Training datasets: files of input/output rows, uploaded and checked once, kept in the object store, named by fine-tuning jobs."
  )
{}
