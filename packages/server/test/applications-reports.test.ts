/**
 * Application variant reports (docs/applications.md "Reports"): the create answers at once with
 * the report unscored; its job on the engine moves Pending → Running → Completed, processes the
 * completion app (the built-in model, which echoes its prompt) over each test case once, stores
 * one output per test case, and scores them with the built-in judge.
 */
import { assert, layer } from "@effect/vitest"
import { ReportAsyncJob, ReportAsyncJobProgress, ReportDataset, TestCaseOutputResult } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { LifecyclesLive } from "../src/app.js"
import { ReportsRepo, StoredVariantReport } from "../src/applications/reports/ReportsRepo.js"
import { OutputsRepo, StoredTestCaseOutput } from "../src/applications/test-case-outputs/OutputsRepo.js"
import { Simulation } from "../src/engine/Simulation.js"
import { eventually, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

const node = (id: string, kind: string, configuration: Record<string, unknown> = {}) => ({
  id,
  application_node_schema_id: kind,
  configuration: Object.fromEntries(Object.entries(configuration).map(([key, value]) => [key, { value }]))
})

/** The SDK's completion app on the built-in model: input → completion → output. */
const completionApp = {
  nodes: [
    node("input_node", "text_input_schema"),
    node("completion_node", "completion_model_schema", { completion_model_id: "builtin" }),
    node("output_node", "text_output_schema")
  ],
  edges: [
    { from_node: "input_node", from_field: "input-text", to_node: "completion_node", to_field: "prompt" },
    { from_node: "completion_node", from_field: "completion", to_node: "output_node", to_field: "output-text" }
  ]
}

/** A spec, its completion-app variant, and a dataset of three test cases (one without an expected output). */
const setUp = (caller: Caller) =>
  Effect.gen(function*() {
    const spec = yield* caller.client.applicationSpecs.create({ payload: { account_id: caller.accountId, name: "app", description: "an app" } })
    const variant = yield* caller.client.applicationVariants.create({
      payload: { account_id: caller.accountId, application_spec_id: spec.id, name: "v", version: "V0", configuration: completionApp }
    })
    const dataset = yield* caller.client.evaluationDatasets.create({ payload: { name: "capitals" } })
    const cases = []
    for (
      const data of [
        { input: "What is the capital of France", expected_output: "What is the capital of France" },
        { input: "Paris is in France", expected_output: "Paris" },
        { input: "hello world" }
      ]
    ) {
      cases.push(yield* caller.client.evaluationDatasets.createTestCase({ path: { evaluation_dataset_id: dataset.id }, payload: { test_case_data: data } }))
    }
    return { spec: spec.id, variant: variant.id, dataset, cases }
  })

layer(TestServerLive, { timeout: 60_000 })("application variant reports", (it) => {
  it.effect("create answers at once; the job goes Pending → Running → Completed; one output per test case; scores by the built-in judge", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { cases, dataset, spec, variant } = yield* setUp(caller)
      const created = yield* caller.client.applicationVariantReports.create({
        payload: { application_variant_id: variant, evaluation_dataset_ids: [dataset.id] }
      })
      assert.match(created.id, uuid)
      assert.strictEqual(created.application_spec_id, spec)
      assert.strictEqual(created.category_scores, null)
      assert.strictEqual(created.score, null)
      assert.strictEqual(created.evaluation_datasets[0]!.generation_status, "Pending")
      assert.strictEqual(created.evaluation_datasets[0]!.evaluation_dataset.id, dataset.id)
      assert.strictEqual(created.evaluation_datasets[0]!.scored_test_case_count, null)
      const raw = yield* request("POST", "/v4/application-variant-reports", {
        key: caller.key,
        body: { application_variant_id: variant, evaluation_dataset_ids: [dataset.id], account_id: null }
      })
      assert.strictEqual(raw.status, 200, JSON.stringify(raw.body))
      assert.notProperty(raw.body, "async_jobs")

      // the poller sees the job's statuses in order, ending Completed
      const order = ["Pending", "Running", "Completed"]
      const seen: Array<string> = []
      const done = yield* eventually(
        Effect.map(
          caller.client.applicationVariantReports.get({ path: { application_variant_report_id: created.id }, urlParams: { view: ["AsyncJobs"] } }),
          (report) => {
            const status = report.async_jobs![0]!.status
            if (seen.at(-1) !== status) seen.push(status)
            return status === "Completed" || status === "Failed" ? Option.some(report) : Option.none()
          }
        )
      )
      assert.isTrue(Option.isSome(done))
      const report = Option.getOrThrow(done)
      assert.strictEqual(seen.at(-1), "Completed", JSON.stringify(report.async_jobs))
      assert.deepStrictEqual(seen, order.filter((status) => seen.includes(status)))
      const job = report.async_jobs![0]!
      assert.strictEqual(job.job_type, "application-variant-report-generation")
      assert.deepStrictEqual(job.progress, { completed: 3, failed: 0, pending: 0 })
      assert.deepStrictEqual(job.job_metadata, { test_case_count: 3, failed_test_case_ids: [] })
      assert.strictEqual(report.evaluation_datasets[0]!.generation_status, "Completed")
      assert.strictEqual(report.evaluation_datasets[0]!.scored_test_case_count, 3)

      // outputs: one per test case, each the built-in model's echo of the input, with its interaction
      const outputs = yield* caller.client.applicationTestCaseOutputs.list({
        urlParams: { application_variant_report_id: created.id, view: ["MetricScores", "Trace"] }
      })
      assert.strictEqual(outputs.total_item_count, 3)
      assert.sameMembers(outputs.items.map((output) => output.test_case_id), cases.map((testCase) => testCase.id))
      for (const output of outputs.items) {
        const testCase = cases.find((c) => c.id === output.test_case_id)!
        assert.strictEqual(output.output.generation_output, (testCase.test_case_data as { input: string }).input)
        assert.strictEqual(output.schema_type, "GENERATION")
        assert.strictEqual(output.evaluation_dataset_id, dataset.id)
        assert.strictEqual(output.interaction!.id, output.application_interaction_id)
        assert.strictEqual(output.interaction!.application_variant_id, variant)
      }

      // the scores: correctness is the token F1 with the expected output (1 and 0.4; the third has
      // none), relevance the share of the input's words in the output (1 each, an echo)
      const byMetric = Object.fromEntries(
        report.category_scores!.flatMap((category) => category.metric_scores.map((metric) => [metric.metric_type, metric.score]))
      )
      assert.deepStrictEqual(byMetric, {
        "answer-correctness": 0.7,
        "answer-relevance": 1,
        coherence: null,
        grammar: null,
        moderation: null,
        safety: null
      })
      assert.deepStrictEqual(report.category_scores!.map((category) => [category.category, category.score]), [
        ["accuracy", 0.85],
        ["quality", null],
        ["trust-and-safety", null]
      ])
      assert.strictEqual(report.score, 0.85)
      const noExpected = outputs.items.find((output) => output.test_case_id === cases[2]!.id)!
      const correctness = noExpected.metric_scores!.find((metric) => metric.metric_type === "answer-correctness")!
      assert.strictEqual(correctness.score, null)
      assert.strictEqual(correctness.llm_metadata!.reasoning, "The test case has no expected_output to compare with")

      // list, narrowed, with and without the view
      const listed = yield* caller.client.applicationVariantReports.list({ urlParams: { application_variant_id: variant } })
      assert.strictEqual(listed.total_item_count, 2)
      assert.isTrue(listed.items.every((item) => item.async_jobs === undefined))
      const other = yield* caller.client.applicationVariantReports.list({ urlParams: { application_spec_id: "another-spec" } })
      assert.strictEqual(other.total_item_count, 0)
    }))

  it.effect("references of another account, unknown datasets and output groups are 404; an OFFLINE variant without outputs 409", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const { dataset, variant } = yield* setUp(alice)
      const post = (body: unknown, key = bob.key) => request("POST", "/v4/application-variant-reports", { key, body })
      assert.strictEqual((yield* post({ application_variant_id: variant, evaluation_dataset_ids: [dataset.id] })).status, 404)
      const bobs = yield* setUp(bob)
      assert.strictEqual((yield* post({ application_variant_id: bobs.variant, evaluation_dataset_ids: [dataset.id] })).status, 404)
      const group = yield* post({ application_variant_id: bobs.variant, evaluation_dataset_ids: [bobs.dataset.id], application_test_case_output_group_ids: ["nope"] })
      assert.strictEqual(group.status, 404)
      assert.strictEqual((yield* post({ application_variant_id: bobs.variant, evaluation_dataset_ids: [] })).status, 422)
      const offline = yield* bob.client.applicationVariants.create({
        payload: { account_id: bob.accountId, application_spec_id: (yield* bob.client.applicationVariants.get({ path: { application_variant_id: bobs.variant } })).application_spec_id, name: "off", version: "OFFLINE", configuration: {} }
      })
      assert.strictEqual((yield* post({ application_variant_id: offline.id, evaluation_dataset_ids: [bobs.dataset.id] })).status, 409)
      const none = yield* bob.client.applicationVariantReports.list({ urlParams: {} })
      assert.strictEqual(none.total_item_count, 0)
      const foreign = yield* request("GET", `/v4/application-variant-reports/${bobs.variant}`, { key: alice.key })
      assert.strictEqual(foreign.status, 404)
    }))

  it.effect("an OFFLINE variant's report scores the outputs its groups hold", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { cases, dataset, spec } = yield* setUp(caller)
      const offline = yield* caller.client.applicationVariants.create({
        payload: { account_id: caller.accountId, application_spec_id: spec, name: "off", version: "OFFLINE", configuration: {} }
      })
      const batch = yield* caller.client.applicationTestCaseOutputs.batch({
        payload: cases.map((testCase) => ({
          account_id: caller.accountId,
          application_variant_id: offline.id,
          evaluation_dataset_version_num: 1,
          test_case_id: testCase.id,
          output: { generation_output: "Paris" }
        }))
      })
      const created = yield* caller.client.applicationVariantReports.create({
        payload: {
          application_variant_id: offline.id,
          evaluation_dataset_ids: [dataset.id],
          application_test_case_output_group_ids: [batch[0]!.application_test_case_output_group_id!]
        }
      })
      const done = yield* eventually(
        Effect.map(
          caller.client.applicationVariantReports.get({ path: { application_variant_report_id: created.id }, urlParams: {} }),
          (report) => (report.score !== null ? Option.some(report) : Option.none())
        )
      )
      const report = Option.getOrThrow(done)
      // correctness: F1("Paris", expected) = 0 for the first, 1 for the second; relevance: 0, 1/4, 0
      const accuracy = report.category_scores!.find((category) => category.category === "accuracy")!
      assert.deepStrictEqual(accuracy.metric_scores.map((metric) => metric.score), [0.5, 0.0833])
      assert.strictEqual(report.score, 0.2917)
    }))

  it.effect("a test case that cannot be processed fails the job with the reason; the others are still scored", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { cases, dataset, spec } = yield* setUp(caller)
      const offline = yield* caller.client.applicationVariants.create({
        payload: { account_id: caller.accountId, application_spec_id: spec, name: "off", version: "OFFLINE", configuration: {} }
      })
      const batch = yield* caller.client.applicationTestCaseOutputs.batch({
        payload: [{
          account_id: caller.accountId,
          application_variant_id: offline.id,
          evaluation_dataset_version_num: 1,
          test_case_id: cases[1]!.id,
          output: { generation_output: "Paris" },
          ignore_missing: true
        }]
      })
      const created = yield* caller.client.applicationVariantReports.create({
        payload: {
          application_variant_id: offline.id,
          evaluation_dataset_ids: [dataset.id],
          application_test_case_output_group_ids: [batch[0]!.application_test_case_output_group_id!]
        }
      })
      const done = yield* eventually(
        Effect.map(
          caller.client.applicationVariantReports.get({ path: { application_variant_report_id: created.id }, urlParams: { view: ["AsyncJobs"] } }),
          (report) => (report.async_jobs![0]!.status === "Failed" ? Option.some(report) : Option.none())
        )
      )
      const report = Option.getOrThrow(done)
      const job = report.async_jobs![0]!
      assert.deepStrictEqual(job.progress, { completed: 1, failed: 2, pending: 0 })
      assert.sameMembers(job.job_metadata!.failed_test_case_ids as Array<string>, [cases[0]!.id, cases[2]!.id])
      assert.include(job.job_metadata!.reason as string, "is OFFLINE")
      assert.strictEqual(report.evaluation_datasets[0]!.generation_status, "Failed")
      assert.strictEqual(report.evaluation_datasets[0]!.scored_test_case_count, 1)
      // the one output: "Paris" against "Paris" is 1; "Paris is in France" holds one of its four words
      assert.strictEqual(report.score, 0.625)
    }))

  it.effect("a dataset without test cases: the job completes with nothing scored", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { variant } = yield* setUp(caller)
      const empty = yield* caller.client.evaluationDatasets.create({ payload: { name: "empty" } })
      const created = yield* caller.client.applicationVariantReports.create({
        payload: { application_variant_id: variant, evaluation_dataset_ids: [empty.id] }
      })
      const done = yield* eventually(
        Effect.map(
          caller.client.applicationVariantReports.get({ path: { application_variant_report_id: created.id }, urlParams: { view: ["AsyncJobs"] } }),
          (report) => (report.async_jobs![0]!.status === "Completed" ? Option.some(report) : Option.none())
        )
      )
      const report = Option.getOrThrow(done)
      assert.strictEqual(report.score, null)
      assert.isTrue(report.category_scores!.every((category) => category.score === null))
      assert.strictEqual(report.evaluation_datasets[0]!.scored_test_case_count, 0)
      assert.deepStrictEqual(report.async_jobs![0]!.progress, { completed: 0, failed: 0, pending: 0 })
    }))

  it.effect("an engine started after a crash goes on with a running report; a test case with its output is not processed again", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { cases, dataset, spec, variant } = yield* setUp(caller)
      const reports = yield* ReportsRepo
      const outputs = yield* OutputsRepo
      const id = randomUUID()
      const now = new Date().toISOString()
      // what a process killed mid-job leaves: the job Running, the first test case's output stored
      yield* reports.insert(
        new StoredVariantReport({
          id,
          account_id: caller.accountId,
          application_spec_id: spec,
          application_variant_id: variant,
          evaluation_datasets: [new ReportDataset({ evaluation_dataset: dataset, evaluation_dataset_version_num: 1, generation_status: "Running", scored_test_case_count: null })],
          category_scores: null,
          score: null,
          created_by_user_id: caller.identityId,
          created_by_identity_type: "user",
          created_at: now,
          updated_at: now,
          async_job: new ReportAsyncJob({
            id: randomUUID(),
            job_type: "application-variant-report-generation",
            status: "Running",
            job_metadata: { test_case_count: 3, failed_test_case_ids: [] },
            progress: new ReportAsyncJobProgress({ completed: 1, failed: 0, pending: 2 }),
            created_at: now,
            updated_at: now
          }),
          application_test_case_output_group_ids: []
        })
      )
      const kept = yield* outputs.insert(
        new StoredTestCaseOutput({
          id: randomUUID(),
          account_id: caller.accountId,
          application_variant_id: variant,
          evaluation_dataset_id: dataset.id,
          evaluation_dataset_version_num: 1,
          test_case_id: cases[0]!.id,
          schema_type: "GENERATION",
          output: new TestCaseOutputResult({ generation_output: "stored before the crash", generation_extra_info: null }),
          metrics: null,
          application_interaction_id: null,
          application_test_case_output_group_id: null,
          application_variant_report_id: id,
          trace_spans: [],
          created_at: now
        })
      )
      const report = yield* Effect.scoped(
        Effect.gen(function*() {
          // a second engine on the same database, as a restarted process has: it starts the unfinished report
          yield* Layer.build(LifecyclesLive.pipe(Layer.provide(Simulation.layer)))
          return yield* eventually(
            Effect.map(
              caller.client.applicationVariantReports.get({ path: { application_variant_report_id: id }, urlParams: { view: ["AsyncJobs"] } }),
              (report) => (report.async_jobs![0]!.status === "Completed" ? Option.some(report) : Option.none())
            )
          )
        })
      )
      assert.isTrue(Option.isSome(report))
      assert.deepStrictEqual(Option.getOrThrow(report).async_jobs![0]!.progress, { completed: 3, failed: 0, pending: 0 })
      const stored = yield* caller.client.applicationTestCaseOutputs.list({ urlParams: { application_variant_report_id: id } })
      assert.strictEqual(stored.total_item_count, 3)
      const first = stored.items.find((output) => output.test_case_id === cases[0]!.id)!
      assert.strictEqual(first.id, kept.id)
      assert.strictEqual(first.output.generation_output, "stored before the crash")
      // only the two test cases without an output were processed (each process records one interaction)
      const interactions = yield* request("GET", `/v4/applications/${spec}/interactions`, { key: caller.key })
      assert.strictEqual(interactions.body.total_item_count, 2)
    }).pipe(Effect.provide(Layer.mergeAll(ReportsRepo.Default, OutputsRepo.Default))))
})
