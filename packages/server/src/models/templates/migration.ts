/**
 * Migrations 0043–0044: the model templates (`model_templates`, docs/model-templates.md), counted
 * as every table with an unfiltered list is (sql/documentCounts.ts); and an index on the models'
 * `model_template_id`, which a template's delete counts.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { countRows } from "../../sql/documentCounts.js"
import { documentTable } from "../../sql/documents.js"

const templates = Effect.gen(function*() {
  yield* documentTable("model_templates", (t) => [`name ${t.text} NOT NULL`])
  yield* countRows("model_templates", { archived: false })
})

const modelsByTemplate = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX model_instances_template ON model_instances (model_template_id)`
})

/** The model templates migrations, by id (listed in ../migration.ts). */
export const modelTemplatesMigrations = {
  "0043_model_templates": templates,
  "0044_model_instances_template": modelsByTemplate
}
