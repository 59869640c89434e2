/**
 * The table of generation jobs (docs/evaluation-datasets.md "Generated test cases"): a document
 * table listed per dataset, with `unfinished` 1 while the job has not ended (what the engine's
 * start goes on with). The drafts a job writes are the dataset's draft test cases (their table is
 * the dataset family's): a job finds the ones it wrote by their ids, made from the job's id and
 * the case's number, so a step run again writes none twice.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { documentTable } from "../../sql/documents.js"

const jobs = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("evaluation_generation_jobs", (t) => [
    `evaluation_dataset_id ${t.text} NOT NULL`,
    `unfinished ${t.integer} NOT NULL`
  ])
  yield* sql`CREATE INDEX evaluation_generation_jobs_dataset ON evaluation_generation_jobs (evaluation_dataset_id, created_at, id)`
  yield* sql`CREATE INDEX evaluation_generation_jobs_unfinished ON evaluation_generation_jobs (unfinished)`
})

/** The generation jobs' migrations, by id (listed in ../../migrations.ts). */
export const generationJobsMigrations = {
  "0069_evaluation_generation_jobs": jobs
}
