import { SqlClient } from "@effect/sql"
import { NotFound, TrainingDataset } from "@platform-kit/schema"
import { Effect } from "effect"
import { makeDocuments } from "../sql/documents.js"
import type { RowFormat } from "./rows.js"

/** Where a dataset's file is: its object in the store's own bucket, read back in its format. */
export interface StoredFile {
  readonly id: string
  readonly format: RowFormat
  readonly row_count: number
}

export class TrainingDatasetsRepo extends Effect.Service<TrainingDatasetsRepo>()("@platform-kit/server/TrainingDatasetsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* makeDocuments({
      table: "training_datasets",
      label: "Training dataset",
      schema: TrainingDataset,
      columns: (dataset) => ({ id: dataset.id, account_id: dataset.account_id, created_at: dataset.created_at })
    })

    /** Stores a new dataset whose file (`format`, `row_count` rows) is in the store already. */
    const create = (dataset: TrainingDataset, file: { readonly format: RowFormat; readonly row_count: number }) =>
      Effect.orDie(sql`INSERT INTO training_datasets ${sql.insert({ ...documents.record(dataset), ...file })}`).pipe(
        Effect.as(dataset)
      )

    /** The file of dataset `id` of `accountIds`, else 404 naming the dataset. */
    const file = (id: string, accountIds: ReadonlyArray<string>): Effect.Effect<StoredFile, NotFound> =>
      (accountIds.length === 0
        ? Effect.succeed([])
        : Effect.orDie(sql<{ format: RowFormat; row_count: number }>`
          SELECT format, row_count FROM training_datasets WHERE id = ${id} AND ${sql.in("account_id", accountIds)}`)).pipe(
          Effect.flatMap((rows) =>
            rows.length === 0
              ? Effect.fail(new NotFound({ detail: `Training dataset ${id} not found` }))
              : Effect.succeed({ id, format: rows[0]!.format, row_count: Number(rows[0]!.row_count) })
          )
        )

    return { ...documents, create, file } as const
  })
}) {}
