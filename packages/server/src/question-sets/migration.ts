import { Effect } from "effect"
import { countRows } from "../sql/documentCounts.js"
import { documentTable } from "../sql/documents.js"

/**
 * Question sets (archived in place: `archived_at`) and Studio projects, whose sealed Studio API
 * key (`SecretBox`) has a column of its own, never in `doc`. Document tables, counted.
 */
const created = Effect.gen(function*() {
  yield* documentTable("question_sets", (t) => [`archived_at ${t.timestamp}`])
  yield* documentTable("studio_projects", (t) => [`studio_api_key_sealed ${t.text} NOT NULL`])
  yield* countRows("question_sets", { archived: true })
  yield* countRows("studio_projects", { archived: false })
})

/** The question sets and Studio projects migrations, by id (listed in ../migrations.ts). */
export const questionSetsMigrations = {
  "0067_question_sets_studio_projects": created
}
