/**
 * The versions of evaluation datasets and the test cases each holds (docs/evaluation-datasets.md
 * "Versions"). A version is a document (`evaluation_dataset_versions`, `num` unique per dataset).
 * A published version (`draft: false`) keeps its own copy of every test case the dataset had when
 * it was published (`evaluation_test_case_versions`, written once, by `snapshot`); a draft version
 * is the dataset's working copy, so what it holds is the dataset's test cases as they are now
 * (those not archived). Evaluations read a version's test cases here (`testCasesAt`,
 * `testCaseAt`), whoever made the version.
 */
import { SqlClient } from "@effect/sql"
import { EvaluationDatasetVersion, NotFound, TestCase } from "@platform-kit/schema"
import type { EvaluationDataset } from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import type { Page } from "../sql/documents.js"
import { makeDocuments } from "../sql/documents.js"
import { TestCasesRepo } from "./TestCasesRepo.js"

const encodeTestCase = Schema.encodeSync(TestCase)
const decodeTestCase = Schema.decodeUnknownSync(TestCase)

export class DatasetVersionsRepo extends Effect.Service<DatasetVersionsRepo>()("@platform-kit/server/DatasetVersionsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const testCases = yield* TestCasesRepo
    const versions = yield* makeDocuments({
      table: "evaluation_dataset_versions",
      label: "Evaluation dataset version",
      schema: EvaluationDatasetVersion,
      columns: (version) => ({
        id: version.id,
        account_id: version.account_id,
        created_at: version.created_at,
        evaluation_dataset_id: version.evaluation_dataset_id,
        num: version.num,
        draft: version.draft ? 1 : 0,
        archived_at: version.archived_at
      })
    })

    /** The version `id` of `dataset`, else 404 naming it (also when it is another dataset's). */
    const getIn = (dataset: EvaluationDataset, id: string): Effect.Effect<EvaluationDatasetVersion, NotFound> =>
      Effect.flatMap(
        versions.findById(id, [dataset.account_id]),
        (found) =>
          Option.isSome(found) && found.value.evaluation_dataset_id === dataset.id
            ? Effect.succeed(found.value)
            : Effect.fail(new NotFound({ detail: `Evaluation dataset version ${id} not found` }))
      )

    /** One v4 page of the dataset's versions, highest `num` first; archived ones only when asked. */
    const pageIn = (dataset: EvaluationDataset, page: { readonly page: number; readonly limit: number }, includeArchived: boolean) =>
      versions.page({
        accountIds: [dataset.account_id],
        ...page,
        where: [sql`evaluation_dataset_id = ${dataset.id}`, ...versions.unlessArchived(includeArchived)],
        orderBy: sql.literal("num DESC")
      })

    /** The version `num` of the dataset, if there is one. */
    const find = (datasetId: string, num: number): Effect.Effect<Option.Option<EvaluationDatasetVersion>> =>
      Effect.flatMap(
        sql<{ account_id: string }>`SELECT account_id FROM evaluation_dataset_versions WHERE evaluation_dataset_id = ${datasetId} AND num = ${num}`,
        (rows) =>
          rows.length === 0
            ? Effect.succeedNone
            : versions.findFirst([rows[0]!.account_id], [sql`evaluation_dataset_id = ${datasetId}`, sql`num = ${num}`])
      ).pipe(Effect.orDie)

    /** The `num` the dataset's next version takes: one more than its highest, 1 for its first. */
    const nextNum = (datasetId: string): Effect.Effect<number> =>
      Effect.map(
        sql<{ top: number | null }>`SELECT MAX(num) AS top FROM evaluation_dataset_versions WHERE evaluation_dataset_id = ${datasetId}`,
        (rows) => Number(rows[0]?.top ?? 0) + 1
      ).pipe(Effect.orDie)

    /** The highest `num` of the dataset's published versions, if it has one. */
    const latestPublished = (datasetId: string): Effect.Effect<Option.Option<number>> =>
      Effect.map(
        sql<{ top: number | null }>`SELECT MAX(num) AS top FROM evaluation_dataset_versions WHERE evaluation_dataset_id = ${datasetId} AND draft = 0`,
        (rows) => Option.map(Option.fromNullable(rows[0]?.top), Number)
      ).pipe(Effect.orDie)

    /** The dataset's draft version with the highest `num` (not archived), if it has one. */
    const latestDraft = (datasetId: string): Effect.Effect<Option.Option<EvaluationDatasetVersion>> =>
      Effect.flatMap(
        sql<{ num: number }>`SELECT num FROM evaluation_dataset_versions
          WHERE evaluation_dataset_id = ${datasetId} AND draft = 1 AND archived_at IS NULL ORDER BY num DESC LIMIT 1`,
        (rows) => rows.length === 0 ? Effect.succeedNone : find(datasetId, Number(rows[0]!.num))
      ).pipe(Effect.orDie)

    /** The dataset's test cases as they are now, not archived, oldest first (what a draft version holds). */
    const current = (datasetId: string, accountId: string, testCaseId?: string) =>
      testCases.findNarrowed([accountId], [
        sql`evaluation_dataset_id = ${datasetId}`,
        sql`archived_at IS NULL`,
        ...(testCaseId === undefined ? [] : [sql`id = ${testCaseId}`])
      ])

    /** Keeps `cases` as the copy version `num` of the dataset holds (once, when it is published). */
    const snapshot = (datasetId: string, num: number, cases: ReadonlyArray<TestCase>) =>
      Effect.forEach(
        Array.from({ length: Math.ceil(cases.length / 200) }, (_, i) => cases.slice(i * 200, (i + 1) * 200)),
        (chunk) =>
          sql`INSERT INTO evaluation_test_case_versions ${
            sql.insert(chunk.map((testCase) => ({
              evaluation_dataset_id: datasetId,
              num,
              test_case_id: testCase.id,
              account_id: testCase.account_id,
              created_at: testCase.created_at,
              doc: JSON.stringify(encodeTestCase(testCase))
            })))
          }`,
        { discard: true }
      ).pipe(Effect.orDie)

    const copies = (datasetId: string, num: number, testCaseId?: string) =>
      Effect.map(
        sql<{ doc: string }>`SELECT doc FROM evaluation_test_case_versions WHERE ${
          sql.and([
            sql`evaluation_dataset_id = ${datasetId}`,
            sql`num = ${num}`,
            ...(testCaseId === undefined ? [] : [sql`test_case_id = ${testCaseId}`])
          ])
        } ORDER BY created_at, test_case_id`,
        (rows) => rows.map((row): TestCase => decodeTestCase(JSON.parse(row.doc)))
      ).pipe(Effect.orDie)

    /**
     * The test cases version `num` of the dataset holds, oldest first: a published version's copy,
     * a draft version's current test cases; none when the dataset has no such version.
     */
    const testCasesAt = (datasetId: string, num: number): Effect.Effect<ReadonlyArray<TestCase>> =>
      Effect.flatMap(find(datasetId, num), (version) =>
        Option.match(version, {
          onNone: () => Effect.succeed([]),
          onSome: (found) => found.draft ? current(datasetId, found.account_id) : copies(datasetId, num)
        }))

    /** The test case `testCaseId` as version `num` of the dataset holds it, if it does. */
    const testCaseAt = (datasetId: string, num: number, testCaseId: string): Effect.Effect<Option.Option<TestCase>> =>
      Effect.flatMap(find(datasetId, num), (version) =>
        Option.match(version, {
          onNone: () => Effect.succeedNone,
          onSome: (found) =>
            Effect.map(
              found.draft ? current(datasetId, found.account_id, testCaseId) : copies(datasetId, num, testCaseId),
              (cases) => Option.fromNullable(cases[0])
            )
        }))

    /**
     * One v4 page (newest first) of the test cases version `num` of `dataset` holds, else 404
     * naming the version.
     */
    const pageAt = (
      dataset: EvaluationDataset,
      num: number,
      page: { readonly page: number; readonly limit: number }
    ): Effect.Effect<Page<TestCase>, NotFound> =>
      Effect.gen(function*() {
        const version = yield* find(dataset.id, num)
        if (Option.isNone(version)) return yield* Effect.fail(new NotFound({ detail: `Evaluation dataset version ${num} not found` }))
        if (version.value.draft) return yield* testCases.pageIn(dataset, page, [sql`archived_at IS NULL`])
        const offset = Math.min((page.page - 1) * page.limit, Number.MAX_SAFE_INTEGER)
        const where = sql`evaluation_dataset_id = ${dataset.id} AND num = ${num}`
        const rows = yield* sql<{ doc: string }>`SELECT doc FROM evaluation_test_case_versions WHERE ${where}
          ORDER BY created_at DESC, test_case_id DESC LIMIT ${page.limit} OFFSET ${offset}`
        const counted = yield* sql<{ total: number }>`SELECT COUNT(*) AS total FROM evaluation_test_case_versions WHERE ${where}`
        return {
          items: rows.map((row): TestCase => decodeTestCase(JSON.parse(row.doc))),
          total_item_count: Number(counted[0]!.total),
          current_page: page.page,
          items_per_page: page.limit
        }
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    /** Removes every copy of test case `testCaseId` that published versions hold (the wipe); how many. */
    const removeCopiesOf = (testCaseId: string): Effect.Effect<number> =>
      Effect.map(
        sql<{ num: number }>`DELETE FROM evaluation_test_case_versions WHERE test_case_id = ${testCaseId} RETURNING num`,
        (rows) => rows.length
      ).pipe(Effect.orDie)

    /** Removes the dataset's versions and every copy they hold (the dataset's remove). */
    const removeAllOf = (datasetId: string): Effect.Effect<void> =>
      Effect.all([
        sql`DELETE FROM evaluation_test_case_versions WHERE evaluation_dataset_id = ${datasetId}`,
        sql`DELETE FROM evaluation_dataset_versions WHERE evaluation_dataset_id = ${datasetId}`
      ], { discard: true }).pipe(Effect.orDie)

    return {
      ...versions,
      getIn,
      pageIn,
      find,
      nextNum,
      latestPublished,
      latestDraft,
      snapshot,
      testCasesAt,
      testCaseAt,
      pageAt,
      removeCopiesOf,
      removeAllOf
    } as const
  }),
  dependencies: [TestCasesRepo.Default]
}) {}
