import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { countRows } from "../../sql/documentCounts.js"
import { documentTable } from "../../sql/documents.js"

/**
 * The table of v5 models (docs/models.md "v5 models"). A column for each sort key and filter of the
 * list; names are unique per vendor per account (a unique index, so a concurrent duplicate fails
 * too); `deploy_run` counts the deployments of a model (its lifecycle's run: a vendor
 * configuration changed starts a new one, and a step of an older run moves nothing). Counted, so
 * an unfiltered list's total does not scan the account's rows.
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("inference_models", (t) => [
    `name ${t.text} NOT NULL`,
    `name_lower ${t.text} NOT NULL`,
    `model_vendor ${t.text} NOT NULL`,
    `model_type ${t.text} NOT NULL`,
    `status ${t.text} NOT NULL`,
    `deploy_run ${t.integer} NOT NULL DEFAULT 0`
  ])
  yield* sql`CREATE UNIQUE INDEX inference_models_account_vendor_name ON inference_models (account_id, model_vendor, name)`
  yield* sql`CREATE INDEX inference_models_account_name ON inference_models (account_id, name, id)`
  yield* sql`CREATE INDEX inference_models_status ON inference_models (status)`
  yield* countRows("inference_models", { archived: false })
})

/** The v5 models migrations, by id (listed in ../../migrations.ts). */
export const inferenceModelsMigrations = {
  "0045_inference_models": created
}
