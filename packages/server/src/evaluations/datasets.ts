/**
 * The datasets an evaluation lists and takes its items from: v5 datasets (the `datasets` and
 * `dataset_items` tables, docs/datasets.md) and v4 evaluation datasets (the `evaluation_datasets`
 * table of the evaluation-datasets family, their test cases). One query per table for any number
 * of ids.
 */
import { SqlClient } from "@effect/sql"
import { EvaluationDatasetEntry, Identity } from "@platform-kit/schema"
import { Effect, Schema } from "effect"
import { DatasetItemsRepo, StoredDataset } from "../datasets/DatasetsRepo.js"

const orNull = <S extends Schema.Schema.Any>(schema: S) =>
  Schema.optionalWith(Schema.NullOr(schema), { exact: true, default: () => null })

/** The members of a dataset's doc an entry is made of; what a dataset lacks takes a default. */
const DatasetDoc = Schema.parseJson(Schema.Struct({
  name: Schema.optionalWith(Schema.String, { exact: true, default: () => "" }),
  description: orNull(Schema.String),
  created_at: Schema.optionalWith(Schema.String, { exact: true }),
  created_by_user_id: Schema.optionalWith(Schema.String, { exact: true, default: () => "" }),
  created_by_identity_type: Schema.optionalWith(Schema.String, { exact: true, default: () => "user" }),
  archived_at: orNull(Schema.String),
  tags: Schema.optionalWith(Schema.Array(Schema.String), { exact: true, default: () => [] }),
  current_version_num: Schema.optionalWith(Schema.Int, { exact: true, default: () => 1 })
}))
const decodeDoc = Schema.decodeUnknown(DatasetDoc)
const decodeDataset = Schema.decodeUnknown(Schema.parseJson(StoredDataset))

/** The members of a test case's doc an evaluation item is made of. */
const decodeTestCase = Schema.decodeUnknown(Schema.parseJson(Schema.Struct({
  test_case_data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  archived_at: orNull(Schema.String),
  invalidated_at: orNull(Schema.String)
})))

export class EvaluationDatasetsLookup extends Effect.Service<EvaluationDatasetsLookup>()(
  "@platform-kit/server/EvaluationDatasetsLookup",
  {
    effect: Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const datasetItems = yield* DatasetItemsRepo

      /** The datasets (v5 or v4) among `ids` that belong to `accountIds`, as entries, by id. */
      const entries = (ids: ReadonlyArray<string>, accountIds: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const found = new Map<string, { readonly accountId: string; readonly entry: EvaluationDatasetEntry }>()
          if (ids.length === 0 || accountIds.length === 0) return found
          const v5 = yield* sql<{ doc: string }>`
            SELECT doc FROM datasets WHERE ${sql.and([sql.in("id", [...new Set(ids)]), sql.in("account_id", accountIds)])}`
          for (const row of v5) {
            const { account_id, ...dataset } = yield* decodeDataset(row.doc)
            found.set(dataset.id, { accountId: account_id, entry: new EvaluationDatasetEntry(dataset, true) })
          }
          const rows = yield* sql<{ id: string; account_id: string; created_at: string; doc: string }>`
            SELECT id, account_id, created_at, doc FROM evaluation_datasets
            WHERE ${sql.and([sql.in("id", [...new Set(ids)]), sql.in("account_id", accountIds)])}`
          for (const row of rows) {
            const doc = yield* decodeDoc(row.doc)
            found.set(row.id, {
              accountId: row.account_id,
              entry: new EvaluationDatasetEntry({
                id: row.id,
                name: doc.name,
                created_by: new Identity({ id: doc.created_by_user_id, type: doc.created_by_identity_type, object: "identity" }),
                created_at: doc.created_at ?? row.created_at,
                tags: doc.tags,
                current_version_num: doc.current_version_num,
                object: "dataset",
                description: doc.description,
                archived_at: doc.archived_at
              }, true)
            })
          }
          return found
        }).pipe(Effect.orDie)

      /**
       * The items of dataset `datasetId` an evaluation's items are made of, with the version they
       * are of: a v5 dataset's items now (not deleted, in creation order) at its current version;
       * else a v4 dataset's test cases neither archived nor overwritten, in creation order
       * (version 1: they are not versioned).
       */
      const testCases = (datasetId: string, accountId: string) =>
        Effect.gen(function*() {
          const v5 = yield* sql<{ doc: string }>`SELECT doc FROM datasets WHERE id = ${datasetId} AND account_id = ${accountId}`
          if (v5.length === 0) return yield* v4TestCases(datasetId, accountId)
          const { current_version_num } = yield* decodeDataset(v5[0]!.doc)
          // the items of that version (a change committed since makes a later one and leaves these be)
          const items = yield* datasetItems.allAtVersion(datasetId, current_version_num)
          return items.map((item) => ({ id: item.id, test_case_data: item.data, version: current_version_num }))
        }).pipe(Effect.orDie)

      const v4TestCases = (datasetId: string, accountId: string) =>
        sql<{ id: string; doc: string }>`
          SELECT id, doc FROM evaluation_test_cases
          WHERE evaluation_dataset_id = ${datasetId} AND account_id = ${accountId} ORDER BY created_at, id`.pipe(
          Effect.flatMap((rows) => Effect.forEach(rows, (row) => Effect.map(decodeTestCase(row.doc), (doc) => ({ id: row.id, ...doc })))),
          Effect.map((cases) =>
            cases.filter((testCase) => testCase.archived_at === null && testCase.invalidated_at === null)
              .map((testCase) => ({ id: testCase.id, test_case_data: testCase.test_case_data, version: 1 }))
          )
        )

      return { entries, testCases } as const
    }),
    dependencies: [DatasetItemsRepo.Default]
  }
) {}
