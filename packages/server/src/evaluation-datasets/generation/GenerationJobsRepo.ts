/**
 * Generation jobs: a document table whose documents carry, beyond the answered job, its dataset,
 * the knowledge base it reads, what the create asked for and who asked (the drafts' creator).
 */
import { SqlClient } from "@effect/sql"
import { AuditFields, EvaluationDatasetGenerationJob, type GenerationJobStatus, Id, JsonObject, Nullable } from "@platform-kit/schema"
import { Effect, Schema } from "effect"
import { makeDocuments } from "../../sql/documents.js"

export class StoredGenerationJob extends Schema.Class<StoredGenerationJob>("StoredGenerationJob")({
  ...EvaluationDatasetGenerationJob.fields,
  ...AuditFields,
  evaluation_dataset_id: Id,
  knowledge_base_id: Id,
  custom_instructions: Nullable(Schema.String),
  group_by_artifact_id: Schema.Boolean,
  harms_list: Nullable(Schema.Array(Schema.String)),
  advanced_config: Nullable(JsonObject)
}) {}

/** Whether a job in `status` has ended: no step moves it any more. */
export const ended = (status: GenerationJobStatus) => status === "Completed" || status === "Failed" || status === "Canceled"

/** The job as answered. */
export const answered = (job: StoredGenerationJob) =>
  new EvaluationDatasetGenerationJob({
    generation_job_id: job.generation_job_id,
    status: job.status,
    created_at: job.created_at,
    updated_at: job.updated_at,
    failure_reason: job.failure_reason,
    num_completed_test_cases: job.num_completed_test_cases,
    num_test_cases: job.num_test_cases,
    total_chunk_count: job.total_chunk_count
  }, true)

export class GenerationJobsRepo extends Effect.Service<GenerationJobsRepo>()("@platform-kit/server/GenerationJobsRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "evaluation_generation_jobs",
      label: "Generation job",
      schema: StoredGenerationJob,
      columns: (job) => ({
        id: job.generation_job_id,
        account_id: job.account_id,
        created_at: job.created_at,
        evaluation_dataset_id: job.evaluation_dataset_id,
        unfinished: ended(job.status) ? 0 : 1
      })
    })
    const sql = yield* SqlClient.SqlClient

    /** The jobs whose lifecycle has not ended (what the engine's start goes on with). */
    const unfinished = Effect.orDie(
      sql<{ id: string; account_id: string }>`SELECT id, account_id FROM evaluation_generation_jobs WHERE unfinished = 1`
    )

    /** The jobs of dataset `datasetId`, newest first. */
    const ofDataset = (datasetId: string, accountId: string) =>
      Effect.map(
        documents.findNarrowed([accountId], [sql`evaluation_dataset_id = ${datasetId}`]),
        (jobs) => [...jobs].reverse()
      )

    return { ...documents, unfinished, ofDataset } as const
  })
}) {}
