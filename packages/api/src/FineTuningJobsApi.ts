import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./security.js"

export class FineTuningJobsApi extends HttpApiGroup.make("fineTuningJobs")
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Fine-tuning jobs")
{}
