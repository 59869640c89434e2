import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { columnTypes } from "../sql/dialect.js"
import { documentTable } from "../sql/documents.js"

/**
 * The v5 datasets (docs/datasets.md): a document per dataset (`name`, its lowered form for the
 * case-insensitive filter, its `tags` as a JSON array for theirs, `archived_at`); a document per item as it is now (`dataset_id`,
 * `updated_at`, `archived_at` for lists and their cursors); and every revision of every item, each
 * with the versions of its dataset it holds from and to (`last_version` NULL: up to now), for reads
 * at a version.
 */
const created = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  yield* documentTable("datasets", (t) => [
    `name ${t.text} NOT NULL`,
    `name_lower ${t.text} NOT NULL`,
    `tags ${t.text} NOT NULL`,
    `archived_at ${t.timestamp}`
  ])
  yield* sql`CREATE INDEX datasets_account_name ON datasets (account_id, name, id)`
  yield* documentTable("dataset_items", (t) => [
    `dataset_id ${t.text} NOT NULL`,
    `updated_at ${t.timestamp} NOT NULL`,
    `archived_at ${t.timestamp}`
  ])
  yield* sql`CREATE INDEX dataset_items_dataset_created ON dataset_items (dataset_id, created_at, id)`
  yield* sql`CREATE INDEX dataset_items_dataset_updated ON dataset_items (dataset_id, updated_at, id)`
  yield* sql.unsafe(`CREATE TABLE dataset_item_revisions (
    item_id ${t.text} NOT NULL,
    dataset_id ${t.text} NOT NULL,
    created_at ${t.timestamp} NOT NULL,
    first_version ${t.integer} NOT NULL,
    last_version ${t.integer},
    doc ${t.json} NOT NULL,
    PRIMARY KEY (item_id, first_version)
  )`)
  yield* sql`CREATE INDEX dataset_item_revisions_dataset ON dataset_item_revisions (dataset_id, created_at, item_id)`
})

/** The datasets migrations, by id (listed in ../migrations.ts). */
export const datasetsMigrations = {
  "0057_datasets": created
}
