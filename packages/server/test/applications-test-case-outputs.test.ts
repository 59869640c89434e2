/**
 * Application test case outputs (docs/applications.md "Test case outputs"): the batch takes and
 * answers a bare array; every test case of a dataset needs its output unless `ignore_missing`;
 * references of another account are 404; reads add the fields of their views only when asked.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

const setUp = (caller: Caller) =>
  Effect.gen(function*() {
    const spec = yield* caller.client.applicationSpecs.create({ payload: { account_id: caller.accountId, name: "app", description: "an app" } })
    const variant = yield* caller.client.applicationVariants.create({
      payload: { account_id: caller.accountId, application_spec_id: spec.id, name: "offline", version: "OFFLINE", configuration: {} }
    })
    const dataset = yield* caller.client.evaluationDatasets.create({ payload: { name: "d" } })
    const first = yield* caller.client.evaluationDatasets.createTestCase({
      path: { evaluation_dataset_id: dataset.id },
      payload: { test_case_data: { input: "What is the capital of France?", expected_output: "Paris is the capital" } }
    })
    const second = yield* caller.client.evaluationDatasets.createTestCase({
      path: { evaluation_dataset_id: dataset.id },
      payload: { test_case_data: { input: "Say hi" } }
    })
    return { variant: variant.id, dataset: dataset.id, cases: [first.id, second.id] as const }
  })

const batch = (caller: Caller, body: unknown) => request("POST", "/v4/application-test-case-outputs/batch", { key: caller.key, body })

layer(TestServerLive, { timeout: 60_000 })("application test case outputs", (it) => {
  it.effect("batch: a bare array in, a bare array out, one group; reads add view fields only when asked", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { cases, dataset, variant } = yield* setUp(caller)
      const item = (test_case_id: string, output: unknown, extra: Record<string, unknown> = {}) => ({
        account_id: caller.accountId,
        application_variant_id: variant,
        evaluation_dataset_version_num: 1,
        test_case_id,
        output,
        ...extra
      })
      const posted = yield* batch(caller, [
        item(cases[0], { generation_output: "Paris", generation_extra_info: { chunks: [{ text: "Paris is in France" }] } }, {
          metrics: { latency: 1.5 },
          trace_spans: [{ node_id: "llm", operation_input: { prompt: "q" }, operation_output: { completion: "Paris" }, start_timestamp: "2024-01-01T00:00:00Z" }]
        }),
        item(cases[1], { generation_output: { answer: "hi" }, generation_extra_info: { info: "flexible" } })
      ])
      assert.strictEqual(posted.status, 200, JSON.stringify(posted.body))
      assert.isArray(posted.body)
      assert.strictEqual(posted.body.length, 2)
      const [generation, flexible] = posted.body
      assert.match(generation.id, uuid)
      assert.deepStrictEqual(Object.keys(generation).sort(), [
        "account_id",
        "application_interaction_id",
        "application_test_case_output_group_id",
        "application_variant_id",
        "created_at",
        "evaluation_dataset_id",
        "id",
        "metrics",
        "output",
        "schema_type",
        "test_case_id"
      ])
      assert.strictEqual(generation.schema_type, "GENERATION")
      assert.strictEqual(generation.evaluation_dataset_id, dataset)
      assert.strictEqual(generation.application_interaction_id, null)
      assert.deepStrictEqual(generation.metrics, { latency: 1.5 })
      assert.deepStrictEqual(generation.output, {
        generation_output: "Paris",
        generation_extra_info: { chunks: [{ text: "Paris is in France", metadata: null }], schema_type: "CHUNKS" }
      })
      assert.strictEqual(flexible.schema_type, "FLEXIBLE")
      assert.deepStrictEqual(flexible.output, { generation_output: { answer: "hi" }, generation_extra_info: { info: "flexible", schema_type: "STRING" } })
      assert.strictEqual(flexible.metrics, null)
      assert.match(generation.application_test_case_output_group_id, uuid)
      assert.strictEqual(flexible.application_test_case_output_group_id, generation.application_test_case_output_group_id)

      // retrieve: no view fields by default; each view adds its own
      const plain = yield* request("GET", `/v4/application-test-case-outputs/${generation.id}`, { key: caller.key })
      assert.deepStrictEqual(plain.body, generation)
      const viewed = yield* caller.client.applicationTestCaseOutputs.get({
        path: { application_test_case_output_id: generation.id },
        urlParams: { view: ["MetricScores", "TestCaseVersion", "Trace"] }
      })
      assert.strictEqual(viewed.test_case_version!.id, cases[0])
      assert.strictEqual(viewed.interaction, null)
      assert.strictEqual(viewed.trace_spans!.length, 1)
      assert.strictEqual(viewed.trace_spans![0]!.node_id, "llm")
      assert.strictEqual(viewed.trace_spans![0]!.operation_status, "SUCCESS")
      assert.strictEqual(viewed.trace_spans![0]!.operation_type, "CUSTOM")
      // "paris" against "paris is the capital": precision 1, recall 1/4 → F1 0.4; input words found: none
      const scores = Object.fromEntries(viewed.metric_scores!.map((metric) => [metric.metric_type, metric.score]))
      assert.deepStrictEqual(scores, { "answer-correctness": 0.4, "answer-relevance": 0, coherence: null, grammar: null, moderation: null, safety: null })
      const onlyTrace = yield* request("GET", `/v4/application-test-case-outputs/${flexible.id}?view=Trace`, { key: caller.key })
      assert.notProperty(onlyTrace.body, "metric_scores")
      assert.notProperty(onlyTrace.body, "test_case_version")
      assert.deepStrictEqual(onlyTrace.body.trace_spans, [])
      const flexibleScores = yield* caller.client.applicationTestCaseOutputs.get({
        path: { application_test_case_output_id: flexible.id },
        urlParams: { view: ["MetricScores"] }
      })
      assert.isTrue(flexibleScores.metric_scores!.every((metric) => metric.score === null))

      // list: filters narrow, views apply to every item
      const list = (urlParams: Record<string, unknown>) => caller.client.applicationTestCaseOutputs.list({ urlParams: urlParams as never })
      assert.strictEqual((yield* list({ application_variant_id: variant })).total_item_count, 2)
      assert.strictEqual((yield* list({ evaluation_dataset_id: dataset, evaluation_dataset_version_num: 1 })).total_item_count, 2)
      assert.strictEqual((yield* list({ evaluation_dataset_version_num: 2 })).total_item_count, 0)
      assert.strictEqual((yield* list({ application_test_case_output_group_id: generation.application_test_case_output_group_id })).total_item_count, 2)
      assert.strictEqual((yield* list({ application_variant_report_id: "none" })).total_item_count, 0)
      const withCases = yield* list({ view: ["TestCaseVersion"] })
      assert.sameMembers(withCases.items.map((output) => output.test_case_version!.id), [...cases])
      assert.isTrue(withCases.items.every((output) => output.metric_scores === undefined))
    }))

  it.effect("every test case of a dataset needs its output unless ignore_missing; bad items are 422; nothing stored", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { cases, variant } = yield* setUp(caller)
      const one = { account_id: caller.accountId, application_variant_id: variant, evaluation_dataset_version_num: 1, test_case_id: cases[0], output: { generation_output: "x" } }
      const missing = yield* batch(caller, [one])
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [{ loc: ["body"], type: "value_error" }])
      assert.include(missing.body.detail[0].msg, cases[1])
      assert.strictEqual((yield* batch(caller, [])).status, 422)
      const bad = yield* batch(caller, [{ ...one, evaluation_dataset_version_num: 0 }])
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad)[0].loc, ["body", 0, "evaluation_dataset_version_num"])
      assert.strictEqual((yield* batch(caller, { items: [one] })).status, 422)
      assert.strictEqual((yield* caller.client.applicationTestCaseOutputs.list({ urlParams: {} })).total_item_count, 0)
      const ignored = yield* batch(caller, [{ ...one, ignore_missing: true }])
      assert.strictEqual(ignored.status, 200, JSON.stringify(ignored.body))
      assert.strictEqual((yield* caller.client.applicationTestCaseOutputs.list({ urlParams: {} })).total_item_count, 1)
    }))

  it.effect("another account's variant, test case or output is a 404, and nothing is stored", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const a = yield* setUp(alice)
      const b = yield* setUp(bob)
      const item = (caller: Caller, variant: string, test_case_id: string) => ({
        account_id: caller.accountId,
        application_variant_id: variant,
        evaluation_dataset_version_num: 1,
        test_case_id,
        output: { generation_output: "x" },
        ignore_missing: true
      })
      assert.strictEqual((yield* batch(bob, [item(bob, a.variant, b.cases[0])])).status, 404)
      assert.strictEqual((yield* batch(bob, [item(bob, b.variant, a.cases[0])])).status, 404)
      assert.strictEqual((yield* batch(bob, [item(alice, a.variant, a.cases[0])])).status, 403)
      assert.strictEqual((yield* bob.client.applicationTestCaseOutputs.list({ urlParams: {} })).total_item_count, 0)
      const mine = yield* batch(alice, [item(alice, a.variant, a.cases[0])])
      const foreign = yield* request("GET", `/v4/application-test-case-outputs/${mine.body[0].id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.strictEqual((yield* bob.client.applicationTestCaseOutputs.list({ urlParams: {} })).total_item_count, 0)
    }))
})
