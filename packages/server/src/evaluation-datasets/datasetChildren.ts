/**
 * What test cases and draft test cases share: a document table listed per dataset, where an entity
 * is found only through its own dataset.
 */
import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { NotFound } from "@platform-kit/schema"
import type { EvaluationDataset } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import type { Schema } from "effect"
import { makeDocuments } from "../sql/documents.js"

export const makeDatasetChildren = <A extends { readonly id: string; readonly evaluation_dataset_id: string; readonly account_id: string; readonly created_at: string }, I>(
  options: {
    readonly table: string
    readonly label: string
    readonly schema: Schema.Schema<A, I, never>
    /** Columns of the table beyond the shared ones (test cases: `archived_at`). */
    readonly extraColumns?: (value: A) => Record<string, string | number | boolean | null>
  }
) =>
  Effect.gen(function*() {
    const documents = yield* makeDocuments({
      ...options,
      columns: (value: A) => ({
        id: value.id,
        account_id: value.account_id,
        created_at: value.created_at,
        evaluation_dataset_id: value.evaluation_dataset_id,
        ...options.extraColumns?.(value)
      })
    })
    const sql = yield* SqlClient.SqlClient

    /** The entity `id` of `dataset`, else 404 naming it (also when it belongs to another dataset). */
    const getIn = (dataset: EvaluationDataset, id: string): Effect.Effect<A, NotFound> =>
      Effect.flatMap(
        documents.findById(id, [dataset.account_id]),
        (found) =>
          Option.isSome(found) && found.value.evaluation_dataset_id === dataset.id
            ? Effect.succeed(found.value)
            : Effect.fail(new NotFound({ detail: `${options.label} ${id} not found` }))
      )

    /** One v4 page of the dataset's entities, newest first (narrowed by `where`, if given). */
    const pageIn = (
      dataset: EvaluationDataset,
      page: { readonly page: number; readonly limit: number },
      where: ReadonlyArray<Statement.Fragment> = []
    ) =>
      documents.page({ accountIds: [dataset.account_id], ...page, where: [sql`evaluation_dataset_id = ${dataset.id}`, ...where] })

    return { ...documents, getIn, pageIn } as const
  })
