/**
 * Custom metrics of v4 evaluations (docs/evaluations.md "v4 metrics", "Custom metrics"): the
 * metrics on known strings against values computed by hand; a posted result's metrics computed when
 * it is created and again when its output changes, answered by the `CustomMetrics` view; a
 * `metric_config` the kit cannot compute is a 422 at create. And the evaluation's counts, kept by
 * the writes of its results (created, batched, updated to another status, the evaluation archived
 * and restored; an evaluation stored before the FAILED count was kept counts its results once).
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { rouge } from "../src/chunks/rouge.js"
import { computeMetric } from "../src/evaluations/metrics.js"
import { EvaluationsV4Repo, StoredEvaluationV4 } from "../src/evaluations-v4/EvaluationsV4Repo.js"
import { TestCaseResultsRepo } from "../src/evaluations-v4/TestCaseResultsRepo.js"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

const reference = "The cat sat on the mat."
const candidate = "the cat sat on a mat"

const bleu = (ref: string, can: string) => computeMetric("bleu", can, ref)
const meteor = (ref: string, can: string) => computeMetric("meteor", can, ref)

describe("the metrics, by hand", () => {
  it("ROUGE-1 F: 5 of 6 unigrams shared each way", () => {
    assert.closeTo(rouge("rouge1", reference, candidate).fmeasure, 5 / 6, 1e-12)
  })

  it("BLEU-4 (NLTK's smoothing method 1): clipped precisions, a precision of no match 0.1 / its n-grams; brevity penalty", () => {
    assert.closeTo(bleu(reference, candidate), Math.pow((5 / 6) * (3 / 5) * (2 / 4) * (1 / 3), 1 / 4), 1e-12)
    // no 4-gram shared: 0.1 / 2
    assert.closeTo(bleu("a b c d e", "a b c x e"), Math.pow((4 / 5) * (2 / 4) * (1 / 3) * (0.1 / 2), 1 / 4), 1e-12)
    // 2 tokens of 6: orders up to 2, both precisions 1, brevity penalty e^(1 − 6/2)
    assert.closeTo(bleu(reference, "the cat"), Math.exp(-2), 1e-12)
    assert.strictEqual(bleu(reference, ""), 0)
  })

  it("METEOR, exact matches: Fmean × (1 − 0.5 · (chunks / matches)³)", () => {
    // 5 matches in 2 chunks (the cat sat on | mat): P = R = 5/6
    assert.closeTo(meteor(reference, candidate), (5 / 6) * (1 - 0.5 * Math.pow(2 / 5, 3)), 1e-12)
    // every token matched, in 2 chunks (c d | a b)
    assert.closeTo(meteor("a b c d", "c d a b"), 1 - 0.5 * Math.pow(2 / 4, 3), 1e-12)
    // P = 1/4, R = 1: Fmean = 0.25 / (0.9 · 0.25 + 0.1), one chunk of one match
    assert.closeTo(meteor("Paris", "Paris is in France"), (0.25 / 0.325) * 0.5, 1e-12)
    assert.strictEqual(meteor(reference, "nothing alike"), 0)
  })
})

const components = [
  { name: "rouge", type: "rouge" },
  { name: "bleu", type: "bleu" },
  { name: "meteor", type: "meteor" },
  { name: "cosine", type: "cosine_similarity" },
  // ROUGE-2 recall of the output against the test case's input
  { name: "vs input", type: "rouge", mappings: { references: ["test_case_data", "input"] }, params: { metric: "rouge2", score: "recall" } },
  // a text that is not there: left out
  { name: "nowhere", type: "bleu", mappings: { references: ["test_case_data", "no_such_field"] } }
]

/** A spec, a dataset of one test case, and an evaluation with `metric_config` (none when `metrics` is null). */
const fixture = (caller: Caller, metrics: ReadonlyArray<unknown> | null = components) =>
  Effect.gen(function*() {
    const post = (path: string, body: unknown) =>
      Effect.map(request("POST", path, { key: caller.key, body }), (response) => {
        assert.strictEqual(response.status, 200, `${path}: ${JSON.stringify(response.body)}`)
        return response.body
      })
    const spec = yield* post("/v4/application-specs", { account_id: caller.accountId, name: "app", description: "an app" })
    const dataset = yield* post("/v4/evaluation-datasets", { name: "d", schema_type: "GENERATION" })
    const testCase = yield* post(`/v4/evaluation-datasets/${dataset.id}/test-cases`, {
      test_case_data: { input: "the cat sat on what", expected_output: reference }
    })
    const evaluation = yield* post("/v4/evaluations", {
      account_id: caller.accountId,
      application_spec_id: spec.id,
      name: "eval",
      description: "metrics",
      ...(metrics === null ? {} : { metric_config: { components: metrics } })
    })
    const body = (output: string) => ({
      application_spec_id: spec.id,
      evaluation_dataset_version_num: "1",
      test_case_id: testCase.id,
      test_case_evaluation_data: { generation_output: output }
    })
    return { spec, evaluation, body, post, base: `/v4/evaluations/${evaluation.id}` }
  })

const metricsOf = (caller: Caller, base: string, resultId: string) =>
  Effect.map(request("GET", `${base}/test-case-results/${resultId}?view=CustomMetrics`, { key: caller.key }), (response) => {
    assert.strictEqual(response.status, 200, JSON.stringify(response.body))
    return response.body.custom_metrics as Array<{ id: string; name: string; output: number; type: string }>
  })

/** The expected `[name, type, output]` of `components` for an output (the `nowhere` one left out). */
const expected = (output: string) => [
  ["rouge", "rouge", rouge("rouge1", reference, output).fmeasure],
  ["bleu", "bleu", bleu(reference, output)],
  ["meteor", "meteor", meteor(reference, output)],
  ["cosine", "cosine_similarity", undefined],
  ["vs input", "rouge", rouge("rouge2", "the cat sat on what", output).recall]
] as const

const assertMetrics = (
  metrics: ReadonlyArray<{ id: string; name: string; output: number; type: string }>,
  output: string,
  cosine: (value: number) => void
) => {
  assert.deepStrictEqual(metrics.map((m) => [m.name, m.type]), expected(output).map(([name, type]) => [name, type]))
  for (const [index, [, , value]] of expected(output).entries()) {
    const metric = metrics[index]!
    assert.match(metric.id, uuid)
    if (value === undefined) cosine(metric.output)
    else assert.closeTo(metric.output, value, 1e-12, metric.name)
  }
}

layer(TestServerLive)("v4 custom metrics", (it) => {
  it.effect("a posted result's metrics: computed at create (one, batch), again when its output changes, kept otherwise", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const f = yield* fixture(caller)
      const created = yield* f.post(`${f.base}/test-case-results`, f.body(candidate))
      // the result as created and updated answers no custom_metrics (the view does)
      assert.notProperty(created, "custom_metrics")
      const first = yield* metricsOf(caller, f.base, created.id)
      assertMetrics(first, candidate, (cosine) => assert.isTrue(cosine > 0.5 && cosine < 1, `cosine ${cosine}`))
      // the hand-computed values, as the view answers them
      assert.closeTo(first[0]!.output, 5 / 6, 1e-12)
      assert.closeTo(first[1]!.output, Math.pow((5 / 6) * (3 / 5) * (2 / 4) * (1 / 3), 1 / 4), 1e-12)
      // "the cat", "cat sat", "sat on" of the input's 4 bigrams
      assert.closeTo(first[4]!.output, 3 / 4, 1e-12)

      const [batched] = yield* f.post(`${f.base}/test-case-results/batch`, [f.body(reference)])
      const exact = yield* metricsOf(caller, f.base, batched.id)
      assertMetrics(exact, reference, (cosine) => assert.closeTo(cosine, 1, 1e-9))
      assert.deepStrictEqual(exact.slice(0, 2).map((m) => m.output), [1, 1])

      // an update that leaves the output: the same metrics (same ids); a new output: computed again
      const audited = yield* request("PATCH", `${f.base}/test-case-results/${created.id}`, { key: caller.key, body: { audit_comment: "fine" } })
      assert.strictEqual(audited.status, 200)
      assert.deepStrictEqual(yield* metricsOf(caller, f.base, created.id), first)
      const changed = yield* request("PATCH", `${f.base}/test-case-results/${created.id}`, {
        key: caller.key,
        body: { test_case_evaluation_data: { generation_output: "a dog" } }
      })
      assert.strictEqual(changed.status, 200)
      const again = yield* metricsOf(caller, f.base, created.id)
      assertMetrics(again, "a dog", (cosine) => assert.isTrue(cosine < 0.5, `cosine ${cosine}`))
      assert.strictEqual(again[0]!.output, 0)
      assert.notInclude(again.map((m) => m.id), first[0]!.id)

      // the list answers them too; an evaluation without metric_config has none
      const listed = yield* request("GET", `${f.base}/test-case-results?view=CustomMetrics`, { key: caller.key })
      assert.deepStrictEqual(listed.body.items.map((r: any) => r.custom_metrics.length), [5, 5])
      const plain = yield* fixture(caller, null)
      const bare = yield* plain.post(`${plain.base}/test-case-results`, plain.body(candidate))
      assert.deepStrictEqual(yield* metricsOf(caller, plain.base, bare.id), [])
    }))

  it.effect("a metric_config the kit cannot compute is a 422 at create, naming where", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const f = yield* fixture(caller, [])
      const create = (component: unknown) =>
        request("POST", "/v4/evaluations", {
          key: caller.key,
          body: {
            account_id: caller.accountId,
            application_spec_id: f.spec.id,
            name: "e",
            description: "",
            metric_config: { components: [{ name: "ok", type: "rouge" }, component] }
          }
        })
      const cases: ReadonlyArray<readonly [unknown, ReadonlyArray<string | number>]> = [
        [{ name: "x", type: "rouge", mappings: { candidates: ["test_case_output", "generation_output"] } }, ["mappings", "candidates"]],
        [{ name: "x", type: "bleu", mappings: { references: ["expected_output"] } }, ["mappings", "references"]],
        [{ name: "x", type: "bleu", mappings: { references: ["somewhere", "expected_output"] } }, ["mappings", "references"]],
        [{ name: "x", type: "rouge", params: { metric: "rouge9" } }, ["params", "metric"]],
        [{ name: "x", type: "rouge", params: { score: "f2" } }, ["params", "score"]],
        [{ name: "x", type: "bleu", params: { max_order: 2 } }, ["params", "max_order"]],
        [{ name: "x", type: "cosine_similarity", params: { model: "big" } }, ["params", "model"]],
        [{ name: "x", type: "f1" }, ["type"]],
        // keys an object has through its prototype are no keys here (were a 500)
        [{ name: "x", type: "bleu", params: { constructor: 1 } }, ["params", "constructor"]],
        [{ name: "x", type: "bleu", mappings: { constructor: ["test_case_data", "input"] } }, ["mappings", "constructor"]]
      ]
      for (const [component, loc] of cases) {
        const response = yield* create(component)
        assert.strictEqual(response.status, 422, JSON.stringify(component))
        assert.deepInclude(issues(response).map((i: any) => i.loc), ["body", "metric_config", "components", 1, ...loc], JSON.stringify(response.body))
      }
      const fine = yield* create({ name: "y", type: "rouge", mappings: { predictions: ["test_case_output", "generation_output"] }, params: { metric: "rougeL" } })
      assert.strictEqual(fine.status, 200, JSON.stringify(fine.body))
      assert.deepStrictEqual(fine.body.metric_config.components[1], {
        name: "y",
        type: "rouge",
        mappings: { predictions: ["test_case_output", "generation_output"] },
        params: { metric: "rougeL" }
      })
    }))

  it.effect("the counts follow the results: create, batch, a status changed, archived and restored", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const f = yield* fixture(caller, [])
      const counts = Effect.map(request("GET", f.base, { key: caller.key }), (response) =>
        [response.body.total_test_case_result_count, response.body.completed_test_case_result_count, response.body.status])
      const one = yield* f.post(`${f.base}/test-case-results`, f.body("a"))
      assert.deepStrictEqual(yield* counts, [1, 0, "PENDING"])
      const [done, failed] = yield* f.post(`${f.base}/test-case-results/batch`, [
        { ...f.body("b"), label_status: "COMPLETED" },
        { ...f.body("c"), label_status: "FAILED" }
      ])
      assert.deepStrictEqual(yield* counts, [3, 1, "PENDING"])
      const patch = (id: string, body: unknown) =>
        Effect.map(request("PATCH", `${f.base}/test-case-results/${id}`, { key: caller.key, body }), (r) => assert.strictEqual(r.status, 200))
      // PENDING → FAILED: every result ended, one failed
      yield* patch(one.id, { label_status: "FAILED" })
      assert.deepStrictEqual(yield* counts, [3, 1, "FAILED"])
      // FAILED → COMPLETED twice: all COMPLETED
      yield* patch(one.id, { label_status: "COMPLETED" })
      yield* patch(failed.id, { label_status: "COMPLETED" })
      assert.deepStrictEqual(yield* counts, [3, 3, "COMPLETED"])
      // an update that keeps the status keeps the counts
      yield* patch(done.id, { audit_comment: "checked" })
      assert.deepStrictEqual(yield* counts, [3, 3, "COMPLETED"])
      // COMPLETED → PENDING
      yield* patch(done.id, { label_status: "PENDING" })
      assert.deepStrictEqual(yield* counts, [3, 2, "PENDING"])
      // archived and restored: the same counts, and the next result counted on them
      assert.strictEqual((yield* request("DELETE", f.base, { key: caller.key })).status, 200)
      assert.strictEqual((yield* request("PATCH", f.base, { key: caller.key, body: { restore: true } })).status, 200)
      assert.deepStrictEqual(yield* counts, [3, 2, "PENDING"])
      yield* f.post(`${f.base}/test-case-results`, { ...f.body("d"), label_status: "COMPLETED" })
      assert.deepStrictEqual(yield* counts, [4, 3, "PENDING"])
      yield* patch(done.id, { label_status: "COMPLETED" })
      assert.deepStrictEqual(yield* counts, [4, 4, "COMPLETED"])
    }))

  it.effect("an evaluation stored without the FAILED count: its first result write counts its results, then keeps the count", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const f = yield* fixture(caller, [])
      const evaluations = yield* EvaluationsV4Repo
      const results = yield* TestCaseResultsRepo
      const stored = yield* evaluations.get(f.evaluation.id, [caller.accountId])
      const [first] = yield* results.createResults(stored, [{ ...f.body("a"), label_status: "FAILED" }], caller.identityId)
      // as stored before the count was kept: no failed count (and counts a delta would carry on from)
      const { failed_test_case_result_count: _failed, ...legacy } = yield* evaluations.get(f.evaluation.id, [caller.accountId])
      yield* evaluations.update(new StoredEvaluationV4({ ...legacy, total_test_case_result_count: 7, completed_test_case_result_count: 7 }))
      const reread = yield* evaluations.get(f.evaluation.id, [caller.accountId])
      assert.isUndefined(reread.failed_test_case_result_count)
      yield* results.createResults(reread, [{ ...f.body("b"), label_status: "COMPLETED" }], caller.identityId)
      const counted = yield* evaluations.get(f.evaluation.id, [caller.accountId])
      assert.deepStrictEqual(
        [counted.total_test_case_result_count, counted.completed_test_case_result_count, counted.failed_test_case_result_count, counted.status],
        [2, 1, 1, "FAILED"]
      )
      yield* results.updateResult(counted, first!.id, { label_status: "COMPLETED" }, caller.identityId)
      const after = yield* evaluations.get(f.evaluation.id, [caller.accountId])
      assert.deepStrictEqual([after.total_test_case_result_count, after.completed_test_case_result_count, after.failed_test_case_result_count, after.status], [
        2,
        2,
        0,
        "COMPLETED"
      ])
    }).pipe(Effect.provide([EvaluationsV4Repo.Default, TestCaseResultsRepo.Default])))
})
