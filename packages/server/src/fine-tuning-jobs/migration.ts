import { documentTable } from "../sql/documents.js"
import eventsMigration from "./eventsMigration.js"

/** The tables of fine-tuning jobs: `status` is a column for the runner that will move jobs on. */
const created = documentTable("fine_tuning_jobs", (t) => [`status ${t.text} NOT NULL`])

/** The fine tuning jobs migrations, by id (listed in ../migrations.ts). */
export const fineTuningJobsMigrations = {
  "0008_fine_tuning_jobs": created,
  "0022_fine_tuning_job_events": eventsMigration
}
