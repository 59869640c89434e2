import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { documentTable } from "../sql/documents.js"
import instancesMigration from "./instancesMigration.js"
import backendsMigration from "./backendsMigration.js"
import usageMigration from "./usageMigration.js"
import { modelTemplatesMigrations } from "./templates/migration.js"

/**
 * The tables of model deployments and servers.
 *
 * `model_deployments` carries a column for every sort key of a deployment list (docs/models.md
 * "Sorting (`sort_by`)"; objects as their JSON text, NULL when absent). `model_servers` keeps
 * aliases unique per account (NULL aliases do not collide, on SQLite and PostgreSQL alike).
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("model_deployments", (t) => [
    `name ${t.text} NOT NULL`,
    `status ${t.text} NOT NULL`,
    // objects as their JSON text, compared as text (they are sort keys, not documents)
    `model_creation_parameters ${t.text}`,
    `model_endpoint_id ${t.text}`,
    `model_instance_id ${t.text} NOT NULL`,
    `vendor_configuration ${t.text}`,
    `deployment_metadata ${t.text}`,
    `created_by_user_id ${t.text} NOT NULL`,
    `created_by_identity_type ${t.text} NOT NULL`
  ])
  yield* sql`CREATE INDEX model_deployments_instance ON model_deployments (model_instance_id)`
  yield* documentTable("model_servers", (t) => [
    `name ${t.text} NOT NULL`,
    `model_deployment_id ${t.text} NOT NULL`,
    `alias ${t.text}`
  ])
  yield* sql`CREATE UNIQUE INDEX model_servers_account_alias ON model_servers (account_id, alias)`
})

/** The models migrations, by id (listed in ../migrations.ts). */
export const modelsMigrations = {
  "0010_models": created,
  "0027_model_instances": instancesMigration,
  "0028_model_server_backends": backendsMigration,
  "0029_model_usage": usageMigration,
  ...modelTemplatesMigrations
}
