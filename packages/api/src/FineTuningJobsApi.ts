import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  CreateFineTuningJob,
  FineTuningJob,
  FineTuningJobEvent,
  GenericDeleteResponse,
  Id,
  NotFound,
  V4ListQuery,
  V4Page
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

export class FineTuningJobsApi extends HttpApiGroup.make("fineTuningJobs")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/fine-tuning-jobs")
      .setPayload(CreateFineTuningJob)
      .addSuccess(FineTuningJob)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Create a fine-tuning job")
      .annotate(
        OpenApi.Description,
        "Creates a fine-tuning job, answered `PENDING`; its simulated training (no model is trained) then moves it to `RUNNING` and `COMPLETED`."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/fine-tuning-jobs/:fine_tuning_job_id")
      .setPath(Schema.Struct({ fine_tuning_job_id: Id }))
      .addSuccess(FineTuningJob)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a fine-tuning job")
      .annotate(OpenApi.Description, "Answers the fine-tuning job; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/fine-tuning-jobs").setUrlParams(V4ListQuery).addSuccess(V4Page(FineTuningJob))
      .annotate(OpenApi.Summary, "List fine-tuning jobs")
      .annotate(
        OpenApi.Description,
        "Lists the fine-tuning jobs of the caller's accounts (`account_id` narrows to one), newest first, as a v4 page (`page`, `limit`)."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/fine-tuning-jobs/:fine_tuning_job_id")
      .setPath(Schema.Struct({ fine_tuning_job_id: Id }))
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Cancel or delete a fine-tuning job")
      .annotate(
        OpenApi.Description,
        "A job still PENDING or RUNNING is cancelled (CANCELED, kept with its events); a finished one is deleted."
      )
  )
  .add(
    HttpApiEndpoint.get("events", "/v4/fine-tuning-jobs/:fine_tuning_job_id/events")
      .setPath(Schema.Struct({ fine_tuning_job_id: Id }))
      .addSuccess(Schema.Array(FineTuningJobEvent))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List the events of a fine-tuning job")
      .annotate(
        OpenApi.Description,
        "Answers the job's log as a bare array of `{level, message, timestamp}`, oldest first (`timestamp` in seconds since the epoch)."
      )
  )
  .annotate(OpenApi.Title, "Fine-tuning jobs")
  .annotate(OpenApi.Description, "Beta.")
{}
