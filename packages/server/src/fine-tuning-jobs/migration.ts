import { documentTable } from "../sql/documents.js"

/** The tables of fine-tuning jobs: `status` is a column for the runner that will move jobs on. */
export default documentTable("fine_tuning_jobs", (t) => [`status ${t.text} NOT NULL`])
