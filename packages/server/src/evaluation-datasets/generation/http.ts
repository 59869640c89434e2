/**
 * Generation jobs of evaluation datasets (docs/evaluation-datasets.md "Generated test cases"): a
 * create stores the job `Pending` and starts it on the engine (./workflow.ts); a cancel ends a job
 * that has not ended. A job belongs to its dataset: another dataset's job is a 404.
 */
import { EvaluationDatasetGenerationJobsList, NotFound, ValidationError, ValidationIssue, defaultGeneratedTestCases } from "@platform-kit/schema"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { callerAccounts, createdBy } from "../../auth/access.js"
import { Lifecycles } from "../../engine/Lifecycles.js"
import type { ImplementGroup } from "../../http/groups.js"
import { freshIdentity, nowIso } from "../../platform/Ids.js"
import { EvaluationDatasetsRepo } from "../EvaluationDatasetsRepo.js"
import { answered, ended, GenerationJobsRepo, StoredGenerationJob } from "./GenerationJobsRepo.js"

export const GenerationJobsHttp = (group: ImplementGroup) =>
  group("generationJobs", (handlers) =>
    Effect.gen(function*() {
      const datasets = yield* EvaluationDatasetsRepo
      const jobs = yield* GenerationJobsRepo
      const lifecycles = yield* Lifecycles
      const sql = yield* SqlClient.SqlClient

      const datasetOf = (id: string) => Effect.flatMap(callerAccounts, (accountIds) => datasets.get(id, accountIds))

      /** Job `jobId` of dataset `datasetId`, else 404 (also when it is another dataset's). */
      const jobOf = (datasetId: string, jobId: string) =>
        Effect.gen(function*() {
          const dataset = yield* datasetOf(datasetId)
          const job = yield* jobs.get(jobId, [dataset.account_id])
          if (job.evaluation_dataset_id !== dataset.id) return yield* Effect.fail(new NotFound({ detail: `Generation job ${jobId} not found` }))
          return job
        })

      return handlers
        .handle("create", ({ path, payload }) =>
          Effect.gen(function*() {
            const dataset = yield* datasetOf(path.evaluation_dataset_id)
            if (dataset.knowledge_base_id === null) {
              return yield* Effect.fail(
                new ValidationError({
                  detail: [
                    new ValidationIssue({
                      loc: ["path", "evaluation_dataset_id"],
                      msg:
                        `Evaluation dataset ${dataset.id} has no knowledge base: a generation job draws test cases from the chunks of the knowledge base a dataset is created with (knowledge_base_id)`,
                      type: "value_error",
                      input: dataset.id
                    })
                  ]
                })
              )
            }
            const [id, created_at] = yield* freshIdentity
            const [{ n: chunks }] = yield* Effect.orDie(
              sql<{ n: number }>`SELECT COUNT(*) AS n FROM kb_chunks WHERE knowledge_base_id = ${dataset.knowledge_base_id}`
            )
            const stored = yield* jobs.insert(
              new StoredGenerationJob({
                generation_job_id: id,
                status: "Pending",
                created_at,
                updated_at: created_at,
                failure_reason: null,
                num_completed_test_cases: 0,
                num_test_cases: payload.num_test_cases ?? defaultGeneratedTestCases,
                total_chunk_count: Number(chunks),
                account_id: dataset.account_id,
                ...(yield* createdBy),
                evaluation_dataset_id: dataset.id,
                knowledge_base_id: dataset.knowledge_base_id,
                custom_instructions: payload.custom_instructions ?? null,
                group_by_artifact_id: payload.group_by_artifact_id ?? false,
                harms_list: payload.harms_list ?? null,
                advanced_config: payload.advanced_config ?? null
              }, true)
            )
            yield* lifecycles.start({ workflow: "EvaluationDatasetGenerationJob", id, account_id: dataset.account_id })
            return answered(stored)
          }))
        .handle("get", ({ path }) => Effect.map(jobOf(path.evaluation_dataset_id, path.generation_job_id), answered))
        .handle("list", ({ path }) =>
          Effect.gen(function*() {
            const dataset = yield* datasetOf(path.evaluation_dataset_id)
            const found = yield* jobs.ofDataset(dataset.id, dataset.account_id)
            return new EvaluationDatasetGenerationJobsList({ generation_jobs: found.map(answered) }, true)
          }))
        .handle("cancel", ({ path }) =>
          jobs.transaction(Effect.gen(function*() {
            const job = yield* jobOf(path.evaluation_dataset_id, path.generation_job_id)
            if (ended(job.status)) return answered(job)
            return answered(yield* jobs.update(new StoredGenerationJob({ ...job, status: "Canceled", updated_at: yield* nowIso }, true)))
          })))
    })
  ).pipe(Layer.provide([EvaluationDatasetsRepo.Default, GenerationJobsRepo.Default]))
