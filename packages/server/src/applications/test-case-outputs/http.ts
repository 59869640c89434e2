/**
 * Application test case outputs (docs/applications.md "Test case outputs"): a batch records what
 * a variant answered for test cases (a bare array in, a bare array out); reads answer them with
 * the fields of their views.
 */
import { SqlClient } from "@effect/sql"
import { EvaluationTraceSpan, NotFound, pageOf, type TestCase, ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { accountForWrite, accountsForRead, callerAccounts } from "../../auth/access.js"
import { TestCasesRepo } from "../../evaluation-datasets/TestCasesRepo.js"
import type { ImplementGroup } from "../../http/groups.js"
import { freshIdentity } from "../../platform/Ids.js"
import { InteractionsRepo } from "../InteractionsRepo.js"
import { VariantsRepo } from "../specs/SpecsRepo.js"
import { answered, resultOf, withViews } from "./outputs.js"
import { OutputsRepo, StoredTestCaseOutput } from "./OutputsRepo.js"

export const ApplicationTestCaseOutputsHttp = (group: ImplementGroup) =>
  group("applicationTestCaseOutputs", (handlers) =>
    Effect.gen(function*() {
      const outputs = yield* OutputsRepo
      const variants = yield* VariantsRepo
      const testCases = yield* TestCasesRepo
      const interactions = yield* InteractionsRepo
      const sql = yield* SqlClient.SqlClient
      const viewed = (stored: StoredTestCaseOutput, views: ReadonlyArray<"MetricScores" | "TestCaseVersion" | "Trace"> | undefined) =>
        withViews(stored, views ?? []).pipe(
          Effect.provideService(TestCasesRepo, testCases),
          Effect.provideService(InteractionsRepo, interactions)
        )
      return handlers
        .handle("batch", ({ payload }) =>
          Effect.gen(function*() {
            // one group per batch: its outputs share an `application_test_case_output_group_id`
            const [group_id] = yield* freshIdentity
            const checked: Array<{ readonly item: typeof payload[number]; readonly testCase: TestCase; readonly account_id: string }> = []
            for (const [index, item] of payload.entries()) {
              const account_id = yield* accountForWrite(item.account_id, ["body", String(index), "account_id"])
              yield* variants.get(item.application_variant_id, [account_id])
              const testCase = yield* Effect.flatMap(testCases.findById(item.test_case_id, [account_id]), Option.match({
                onNone: () => Effect.fail(new NotFound({ detail: `Test case ${item.test_case_id} not found` })),
                onSome: Effect.succeed
              }))
              checked.push({ item, testCase, account_id })
            }
            // every test case of a dataset the batch names needs its output, unless an item of it says `ignore_missing`
            const datasets = new Set(checked.map(({ testCase }) => testCase.evaluation_dataset_id))
            const problems: Array<ValidationIssue> = []
            for (const datasetId of datasets) {
              const ofDataset = checked.filter(({ testCase }) => testCase.evaluation_dataset_id === datasetId)
              if (ofDataset.some(({ item }) => item.ignore_missing === true)) continue
              const given = new Set(ofDataset.map(({ testCase }) => testCase.id))
              const all = yield* testCases.findNarrowed([ofDataset[0]!.account_id], [sql`evaluation_dataset_id = ${datasetId}`])
              const missing = all.filter((testCase) => testCase.archived_at === null && !given.has(testCase.id)).map((testCase) => testCase.id)
              if (missing.length > 0) {
                problems.push(
                  new ValidationIssue({
                    loc: ["body"],
                    msg: `Test cases of evaluation dataset ${datasetId} have no output in the batch: ${missing.join(", ")} (set ignore_missing to store it anyway)`,
                    type: "value_error",
                    input: null
                  })
                )
              }
            }
            if (problems.length > 0) return yield* Effect.fail(new ValidationError({ detail: problems }))
            const stored: Array<StoredTestCaseOutput> = []
            for (const { account_id, item, testCase } of checked) {
              const [id, created_at] = yield* freshIdentity
              const trace_spans: Array<EvaluationTraceSpan> = []
              for (const span of item.trace_spans ?? []) {
                const [spanId] = yield* freshIdentity
                trace_spans.push(
                  new EvaluationTraceSpan({
                    id: spanId,
                    application_interaction_id: null,
                    node_id: span.node_id,
                    operation_input: span.operation_input,
                    operation_output: span.operation_output,
                    operation_expected: span.operation_expected ?? null,
                    operation_metadata: span.operation_metadata ?? null,
                    operation_status: span.operation_status ?? "SUCCESS",
                    operation_type: span.operation_type ?? "CUSTOM",
                    start_timestamp: span.start_timestamp,
                    duration_ms: span.duration_ms ?? 0
                  })
                )
              }
              const output = resultOf(item.output)
              stored.push(
                new StoredTestCaseOutput({
                  id,
                  account_id,
                  application_variant_id: item.application_variant_id,
                  evaluation_dataset_id: testCase.evaluation_dataset_id,
                  evaluation_dataset_version_num: item.evaluation_dataset_version_num,
                  test_case_id: testCase.id,
                  schema_type: typeof output.generation_output === "string" ? "GENERATION" : "FLEXIBLE",
                  output,
                  metrics: item.metrics ?? null,
                  application_interaction_id: null,
                  application_test_case_output_group_id: group_id,
                  application_variant_report_id: null,
                  trace_spans,
                  created_at
                }, true)
              )
            }
            yield* outputs.transaction(outputs.insertAll(stored))
            return stored.map(answered)
          }))
        .handle("get", ({ path, urlParams }) =>
          Effect.gen(function*() {
            const stored = yield* outputs.get(path.application_test_case_output_id, yield* callerAccounts)
            return yield* viewed(stored, urlParams.view)
          }))
        .handle("list", ({ urlParams }) =>
          Effect.gen(function*() {
            const accountIds = yield* accountsForRead(urlParams.account_id)
            const where = [
              urlParams.application_variant_id === undefined ? [] : [sql`application_variant_id = ${urlParams.application_variant_id}`],
              urlParams.application_variant_report_id === undefined
                ? []
                : [sql`application_variant_report_id = ${urlParams.application_variant_report_id}`],
              urlParams.evaluation_dataset_id === undefined ? [] : [sql`evaluation_dataset_id = ${urlParams.evaluation_dataset_id}`],
              urlParams.evaluation_dataset_version_num === undefined
                ? []
                : [sql`evaluation_dataset_version_num = ${urlParams.evaluation_dataset_version_num}`],
              urlParams.application_test_case_output_group_id === undefined
                ? []
                : [sql`application_test_case_output_group_id = ${urlParams.application_test_case_output_group_id}`]
            ].flat()
            const page = yield* outputs.page({ accountIds, ...pageOf(urlParams), where })
            return { ...page, items: yield* Effect.forEach(page.items, (stored) => viewed(stored, urlParams.view)) }
          }))
    })
  ).pipe(Layer.provide([OutputsRepo.Default, VariantsRepo.Default, TestCasesRepo.Default, InteractionsRepo.Default]))
