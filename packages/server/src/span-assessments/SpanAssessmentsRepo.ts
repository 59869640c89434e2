import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { SpanAssessment, type SpanAssessmentType } from "@platform-kit/schema"
import { Effect, Schema } from "effect"
import { makeDocuments } from "../sql/documents.js"

/** What a list asks for: at least one of `span_id` / `trace_id` (the query schema sees to it). */
export interface SpanAssessmentFilter {
  readonly span_id?: string | undefined
  readonly trace_id?: string | undefined
  readonly assessment_type?: SpanAssessmentType | undefined
  readonly limit?: number | undefined
  /** On `created_at` (ties by id); default `desc`, newest first (v5 lists: docs/decisions.md "Pagination and lists"). */
  readonly sort_order?: "asc" | "desc" | undefined
}

export class SpanAssessmentsRepo extends Effect.Service<SpanAssessmentsRepo>()(
  "@platform-kit/server/SpanAssessmentsRepo",
  {
    effect: Effect.gen(function*() {
      const documents = yield* makeDocuments({
        table: "span_assessments",
        label: "Span assessment",
        schema: SpanAssessment,
        columns: (assessment) => ({
          id: assessment.assessment_id,
          account_id: assessment.account_id,
          created_at: assessment.created_at,
          trace_id: assessment.trace_id,
          span_id: assessment.span_id,
          assessment_type: assessment.assessment_type
        })
      })
      const sql = yield* SqlClient.SqlClient
      const decode = Schema.decodeUnknownSync(Schema.parseJson(SpanAssessment))

      /** The assessments matching `filter` in `accountIds`, newest first unless `asc` (ties by id), up to `limit`. */
      const list = (accountIds: ReadonlyArray<string>, filter: SpanAssessmentFilter) =>
        Effect.gen(function*() {
          const where: Array<Statement.Fragment> = [sql.in("account_id", accountIds)]
          if (filter.span_id !== undefined) where.push(sql`span_id = ${filter.span_id}`)
          if (filter.trace_id !== undefined) where.push(sql`trace_id = ${filter.trace_id}`)
          if (filter.assessment_type !== undefined) where.push(sql`assessment_type = ${filter.assessment_type}`)
          const limit = filter.limit === undefined ? sql.literal("") : sql`LIMIT ${filter.limit}`
          const order = sql.literal(filter.sort_order === "asc" ? "ASC" : "DESC")
          const rows = accountIds.length === 0
            ? []
            : yield* Effect.orDie(
              sql<{ doc: string }>`SELECT doc FROM span_assessments WHERE ${
                sql.and(where)
              } ORDER BY created_at ${order}, id ${order} ${limit}`
            )
          return rows.map((row) => decode(row.doc))
        })

      /** Deletes the row for good. */
      const remove = (id: string) => Effect.orDie(sql`DELETE FROM span_assessments WHERE id = ${id}`)

      return { ...documents, list, remove } as const
    })
  }
) {}
