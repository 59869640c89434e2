/**
 * The stored form of a document: which shape of its Schema wrote it.
 *
 * A document table's `doc` holds the resource's wire JSON as the repository encoded it. A row
 * written by today's Schema reads back, decoded and encoded again, as exactly the text stored (the
 * Schema's encoding is a fixed point: `document-forms.test.ts`), so a read by id can answer that
 * text as it is. A row written by an older shape of the Schema (a field since added, renamed or
 * retyped) cannot: it is decoded and encoded by today's Schema, as every row was before.
 *
 * Each row records the form it was written in (`form`, added by migration 0019): a fingerprint of
 * the Schema's structure (`formOf`). Rows written before 0019 have none and always take the
 * decoding path. A row records its own form, not its table, so two servers of different versions
 * on one database each answer what the rows say (docs/benchmarks.md, "Stored documents answered
 * as stored").
 */
import { SqlClient } from "@effect/sql"
import { Effect, type Schema } from "effect"
import * as Crypto from "node:crypto"
import { columnTypes, hasColumn } from "./dialect.js"

/**
 * The fingerprint of `schema`'s structure: its AST (types, fields, optionality, literals, unions,
 * transformations and their kinds) without its annotations (titles, descriptions, messages and
 * identifiers change no byte of the JSON). A change to the code of a transformation alone keeps
 * the fingerprint: such a change must come with a new field or type, or rows keep their old text.
 */
export const formOf = (schema: Schema.Schema.Any): string =>
  Crypto.createHash("sha256")
    .update(JSON.stringify(schema.ast, (key, value) => (key === "annotations" ? undefined : value)))
    .digest("base64url")
    .slice(0, 16)

/** The document tables of migrations 0002–0018, which 0019 gives a `form` column. */
const documentTablesTo0018: ReadonlyArray<string> = [
  "model_groups",
  "application_deployments",
  "application_interactions",
  "knowledge_bases",
  "knowledge_base_data_sources",
  "kb_upload_schedules",
  "kb_artifacts",
  "evaluation_datasets",
  "evaluation_test_cases",
  "evaluation_draft_test_cases",
  "questions",
  "evaluation_configs",
  "fine_tuning_jobs",
  "deployment_package_jobs",
  "model_deployments",
  "model_servers",
  "evaluations",
  "evaluation_dashboards",
  "evaluation_dashboard_widgets",
  "evaluation_dashboard_widget_results",
  "span_assessments",
  "agent_runtime_deployments",
  "credentials",
  "events"
]

/**
 * Migration 0019: the `form` column of every document table, NULL for the rows already there. A
 * database created since has it from `documentTable`, which declares it: then there is nothing to
 * add.
 */
export const documentFormsMigration = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* columnTypes
  for (const table of documentTablesTo0018) {
    if (!(yield* hasColumn(table, "form"))) yield* sql.unsafe(`ALTER TABLE ${table} ADD COLUMN form ${t.text}`)
  }
})
