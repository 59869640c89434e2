import { Effect } from "effect"
import { countRows } from "../sql/documentCounts.js"
import { documentTable } from "../sql/documents.js"

/**
 * The table of training datasets: `format` (`jsonl` or `csv`, how the file's rows are read back)
 * and `row_count` beside the document; the file itself is in the object store.
 */
const created = Effect.gen(function*() {
  yield* documentTable("training_datasets", (t) => [`format ${t.text} NOT NULL`, `row_count ${t.integer} NOT NULL`])
  yield* countRows("training_datasets", { archived: false })
})

/** The training datasets migrations, by id (listed in ../migrations.ts). */
export const trainingDatasetsMigrations = {
  "0041_training_datasets": created
}
