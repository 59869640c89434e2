import { FineTuningJob } from "@platform-kit/schema"
import { Effect } from "effect"
import { makeDocuments } from "../sql/documents.js"

export class FineTuningJobsRepo extends Effect.Service<FineTuningJobsRepo>()("@platform-kit/server/FineTuningJobsRepo", {
  effect: makeDocuments({
    table: "fine_tuning_jobs",
    label: "Fine-tuning job",
    schema: FineTuningJob,
    columns: (job) => ({ id: job.id, account_id: job.account_id, created_at: job.created_at, status: job.status })
  })
}) {}
