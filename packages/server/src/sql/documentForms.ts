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
 * decoding path. A row records its own form, not its table, so servers of different releases
 * (from 0019 on) on one database each answer what the rows say. A release from before 0019 must
 * not write to a database migrated to 0019: it would rewrite a document and leave the row's newer
 * form (docs/serving.md, "Documents answered as stored").
 */
import { SqlClient } from "@effect/sql"
import { Effect, type Schema, SchemaAST as AST } from "effect"
import * as Crypto from "node:crypto"
import { columnTypes, hasColumn } from "./dialect.js"

/**
 * The annotations that can change a byte of a document's JSON, or tell apart Schemas whose nodes
 * are otherwise alike (`Trim` and `Lowercase` are both a string transformed into a refined string):
 * every other annotation documents (title, description, examples, messages, JSON Schema) or
 * repeats what the nodes say (a class's type side) and is left out of the form.
 */
const structural = new Set<symbol>([
  AST.SchemaIdAnnotationId,
  AST.IdentifierAnnotationId,
  AST.BrandAnnotationId,
  AST.ParseOptionsAnnotationId
])

/**
 * How many `Suspend`s deep a description follows a Schema. Every `Suspend` on the way counts, not
 * only recursive ones: a shape reached only through more nested `suspend`s than this is not in
 * the form (no Schema of the kit nests more than one).
 */
const suspendDepth = 4

/**
 * A plain description of an AST node and everything under it: its own fields (functions left
 * out), its structural annotations, a `Suspend`'s target. A node met again under itself is
 * described by how many levels up it was met first, and a recursive Schema is followed
 * `suspendDepth` `Suspend`s deep (a derived Schema, such as a type side, unfolds into new nodes
 * at every level), so the walk ends, and the description depends on the structure alone, not on
 * which nodes happen to be shared.
 */
const describe = (value: unknown, path: Array<object>, suspended: number): unknown => {
  switch (typeof value) {
    case "function":
      return undefined
    case "symbol":
      return String(value)
    case "bigint":
      return `${value}n`
    case "object": {
      if (value === null) return null
      if (Array.isArray(value)) return value.map((item) => describe(item, path, suspended))
      const above = path.lastIndexOf(value)
      if (above !== -1) return { up: path.length - above }
      path.push(value)
      const out: Record<string, unknown> = {}
      for (const [key, field] of Object.entries(value)) {
        out[key] = key === "annotations"
          ? annotationsOf(field as AST.Annotations, path, suspended)
          : describe(field, path, suspended)
      }
      if (value instanceof AST.Suspend && suspended < suspendDepth) out.ast = describe(value.f(), path, suspended + 1)
      path.pop()
      return out
    }
    default:
      return value
  }
}

const annotationsOf = (annotations: AST.Annotations, path: Array<object>, suspended: number) => {
  const out: Record<string, unknown> = {}
  for (const key of Object.getOwnPropertySymbols(annotations)) {
    if (structural.has(key)) out[String(key)] = describe(annotations[key], path, suspended)
  }
  return out
}

/**
 * The fingerprint of `schema`'s structure: its AST (types, fields, optionality, literals, unions,
 * transformations and their kinds, refinements' ids, parse options) without the annotations that
 * only document. A change to the code of a transformation or a filter alone keeps the
 * fingerprint: such a change must come with a new field or type, or rows keep their old text.
 */
export const formOf = (schema: Schema.Schema.Any): string =>
  Crypto.createHash("sha256")
    .update(JSON.stringify(describe(schema.ast, [], 0)))
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
