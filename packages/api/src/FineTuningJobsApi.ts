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
  .add(HttpApiEndpoint.post("create", "/v4/fine-tuning-jobs").setPayload(CreateFineTuningJob).addSuccess(FineTuningJob))
  .add(
    HttpApiEndpoint.get("get", "/v4/fine-tuning-jobs/:fine_tuning_job_id")
      .setPath(Schema.Struct({ fine_tuning_job_id: Id }))
      .addSuccess(FineTuningJob)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/fine-tuning-jobs").setUrlParams(V4ListQuery).addSuccess(V4Page(FineTuningJob))
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/fine-tuning-jobs/:fine_tuning_job_id")
      .setPath(Schema.Struct({ fine_tuning_job_id: Id }))
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
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
  )
  .annotate(OpenApi.Title, "Fine-tuning jobs")
  .annotate(OpenApi.Description, "Beta.")
{}
