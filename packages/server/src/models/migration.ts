import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { documentTable } from "../sql/documents.js"

/**
 * The tables of model deployments and servers.
 *
 * `model_deployments` carries a column for every sort key of spec 2.21 (objects as their JSON
 * text, NULL when absent). `model_servers` keeps aliases unique per account (NULL aliases do not
 * collide, on SQLite and PostgreSQL alike).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* documentTable("model_deployments", [
    "name TEXT NOT NULL",
    "status TEXT NOT NULL",
    "model_creation_parameters TEXT",
    "model_endpoint_id TEXT",
    "model_instance_id TEXT NOT NULL",
    "vendor_configuration TEXT",
    "deployment_metadata TEXT",
    "created_by_user_id TEXT NOT NULL",
    "created_by_identity_type TEXT NOT NULL"
  ])
  yield* sql`CREATE INDEX model_deployments_instance ON model_deployments (model_instance_id)`
  yield* documentTable("model_servers", ["name TEXT NOT NULL", "model_deployment_id TEXT NOT NULL", "alias TEXT"])
  yield* sql`CREATE UNIQUE INDEX model_servers_account_alias ON model_servers (account_id, alias)`
})
