/**
 * The ORDER BY of a sorted list of models or deployments: the `sort_by` keys in order, then newest
 * first. Built only from whitelists of columns; no text of the request reaches the SQL.
 */
import type { SqlClient } from "@effect/sql"
import type { ModelDeploymentSortField, ModelDeploymentSortKey } from "@platform-kit/schema"

/** The column each sort field reads (object fields hold their JSON text). */
const columns: Record<ModelDeploymentSortField, string> = {
  model_creation_parameters: "model_creation_parameters",
  model_endpoint_id: "model_endpoint_id",
  model_instance_id: "model_instance_id",
  vendor_configuration: "vendor_configuration",
  deployment_metadata: "deployment_metadata",
  status: "status",
  id: "id",
  created_at: "created_at",
  account_id: "account_id",
  created_by_user_id: "created_by_user_id",
  created_by_identity_type: "created_by_identity_type",
  name: "name"
}

/**
 * The ORDER BY of `keys` (`<field>:asc|desc`), each field read from `columns`, then newest first.
 * Text compares byte-wise on both dialects (the text columns carry the "C" collation on
 * PostgreSQL: `sql/dialect.ts`); NULL (an absent value) comes first ascending and last
 * descending, as SQLite orders it anyway.
 */
export const orderBySortKeys = <Field extends string>(
  sql: SqlClient.SqlClient,
  keys: ReadonlyArray<`${Field}:${"asc" | "desc"}`>,
  columns: Readonly<Record<Field, string>>
) => {
  const terms = keys.map((key) => {
    const [field, direction] = key.split(":") as [Field, "asc" | "desc"]
    const column = columns[field]
    if (column === undefined) throw new Error(`Unknown sort field ${field}`)
    return direction === "asc" ? `${column} ASC NULLS FIRST` : `${column} DESC NULLS LAST`
  })
  return sql.literal([...terms, "created_at DESC", "id DESC"].join(", "))
}

/** The ORDER BY of a model deployment list (docs/models.md "Sorting (`sort_by`)"). */
export const deploymentOrderBy = (sql: SqlClient.SqlClient, keys: ReadonlyArray<ModelDeploymentSortKey>) =>
  orderBySortKeys<ModelDeploymentSortField>(sql, keys, columns)
