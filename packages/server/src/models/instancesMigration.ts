/**
 * Migration 0027: the model registry (`model_instances`, docs/models.md). A column for every
 * stored sort key of the list (objects as their JSON text, NULL when absent); counted, as every
 * table with an unfiltered list is (sql/documentCounts.ts).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { countRows } from "../sql/documentCounts.js"
import { documentTable } from "../sql/documents.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("model_instances", (t) => [
    `name ${t.text} NOT NULL`,
    `model_type ${t.text} NOT NULL`,
    `display_name ${t.text}`,
    `model_vendor ${t.text}`,
    `base_model_id ${t.text}`,
    `base_model_metadata ${t.text}`,
    `model_creation_parameters ${t.text}`,
    `model_card ${t.text}`,
    `training_data_card ${t.text}`,
    `description ${t.text}`,
    `model_template_id ${t.text}`,
    `model_group_id ${t.text}`,
    `created_by_user_id ${t.text} NOT NULL`
  ])
  yield* sql`CREATE INDEX model_instances_group ON model_instances (model_group_id)`
  yield* countRows("model_instances", { archived: false })
})
