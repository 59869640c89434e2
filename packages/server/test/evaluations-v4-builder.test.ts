/**
 * Builder v4 evaluations (docs/evaluations.md "Builder evaluations and the judge"): the create
 * answers at once (PENDING); the build on the engine processes the variant (input → the built-in
 * model, which echoes → output) over each test case of the dataset's latest published version,
 * stores one result per test case, and the judge answers them; the poller sees PENDING then
 * COMPLETED with the counts, and the build as an async job. A dataset with no published version:
 * the evaluation FAILED with the reason in its job. An engine started after a crash goes on with a
 * running build, and a test case with its result is not processed again.
 */
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { LifecyclesLive } from "../src/app.js"
import { resultOf as outputResultOf } from "../src/applications/test-case-outputs/outputs.js"
import { OutputsRepo, StoredTestCaseOutput } from "../src/applications/test-case-outputs/OutputsRepo.js"
import { Simulation } from "../src/engine/Simulation.js"
import { EvaluationsV4Repo, StoredEvaluationV4 } from "../src/evaluations-v4/EvaluationsV4Repo.js"
import { TestCaseResultsRepo } from "../src/evaluations-v4/TestCaseResultsRepo.js"
import { EvaluationJobsRepo, StoredEvaluationJob } from "../src/evaluations-v4/workflow.js"
import { eventually, provision, request, TestServerLive } from "../src/testing.js"
import { completionApp } from "./support/applications.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

const post = (caller: Caller, path: string, body: unknown) => request("POST", path, { key: caller.key, body })
const get = (caller: Caller, path: string) => request("GET", path, { key: caller.key })

const ok = <A extends { status: number; body: any }>(answer: A) => {
  assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
  return answer.body
}

const cases = [
  { input: "What is the capital of France", expected_output: "What is the capital of France" },
  { input: "Paris is in France", expected_output: "Paris" },
  { input: "hello world", expected_output: "something else entirely" }
]

/** A spec and its completion variant, a dataset of `cases` (published unless `publish` is false), an llm_auto config of one yes/no question. */
const setUp = (caller: Caller, options: { readonly publish?: boolean; readonly evaluationType?: string } = {}) =>
  Effect.gen(function*() {
    const spec = ok(yield* post(caller, "/v4/application-specs", { account_id: caller.accountId, name: "app", description: "an app" }))
    const variant = ok(
      yield* post(caller, "/v4/application-variants", {
        account_id: caller.accountId,
        application_spec_id: spec.id,
        name: "v",
        version: "V0",
        configuration: completionApp()
      })
    )
    const dataset = ok(yield* post(caller, "/v4/evaluation-datasets", { account_id: caller.accountId, name: "capitals", schema_type: "GENERATION" }))
    const testCases: Array<any> = []
    for (const data of cases) {
      testCases.push(ok(yield* post(caller, `/v4/evaluation-datasets/${dataset.id}/test-cases`, { test_case_data: data })))
    }
    if (options.publish !== false) ok(yield* post(caller, `/v4/evaluation-datasets/${dataset.id}/publish`, undefined))
    const question = ok(
      yield* post(caller, "/v4/questions", {
        account_id: caller.accountId,
        type: "categorical",
        title: "Correct?",
        prompt: "Is the output correct?",
        choices: [{ label: "Yes", value: "yes" }, { label: "No", value: "no" }]
      })
    )
    const set = ok(yield* post(caller, "/v4/question-sets", { account_id: caller.accountId, name: "qs", question_ids: [question.id] }))
    const config = ok(
      yield* post(caller, "/v4/evaluation-configs", {
        account_id: caller.accountId,
        evaluation_type: options.evaluationType ?? "llm_auto",
        question_set_id: set.id
      })
    )
    return { spec, variant, dataset, testCases, question, config }
  })

/** A builder evaluation stored as its create stores it, PENDING, over `setUp`'s spec, variant, dataset and config. */
const builderEvaluation = (options: {
  readonly id: string
  readonly name: string
  readonly now: string
  readonly group: string | null
  readonly caller: Caller
  readonly setup: Effect.Effect.Success<ReturnType<typeof setUp>>
}) => {
  const { caller, setup } = options
  return new StoredEvaluationV4({
    id: options.id,
    account_id: caller.accountId,
    application_spec_id: setup.spec.id,
    application_variant_id: setup.variant.id,
    name: options.name,
    description: "",
    status: "PENDING",
    total_test_case_result_count: 0,
    completed_test_case_result_count: 0,
    completed_at: null,
    annotation_config: null,
    question_id_to_annotation_config: null,
    evaluation_config: null,
    evaluation_config_id: setup.config.id,
    metric_config: null,
    tags: null,
    created_by_user_id: caller.identityId,
    created_by_identity_type: "user",
    created_at: options.now,
    archived_at: null,
    type: "builder",
    evaluation_dataset_id: setup.dataset.id,
    evaluation_dataset_version: null,
    application_test_case_output_group_id: options.group,
    evaluation_type: null
  })
}

const builder = (caller: Caller, setup: Effect.Effect.Success<ReturnType<typeof setUp>>, extra: Record<string, unknown> = {}) =>
  post(caller, "/v4/evaluations", {
    account_id: caller.accountId,
    type: "builder",
    name: "built",
    description: "a builder evaluation",
    application_spec_id: setup.spec.id,
    application_variant_id: setup.variant.id,
    evaluation_dataset_id: setup.dataset.id,
    evaluation_config_id: setup.config.id,
    ...extra
  })

/** Polls the evaluation (with its async jobs) until `done`; answers every distinct status seen and the last read. */
const pollUntil = (caller: Caller, id: string, done: (evaluation: any) => boolean) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const end = yield* eventually(
      Effect.map(get(caller, `/v4/evaluations/${id}?view=AsyncJobs`), (read) => {
        const evaluation = ok(read)
        if (seen.at(-1) !== evaluation.status) seen.push(evaluation.status)
        return done(evaluation) ? Option.some(evaluation) : Option.none()
      }),
      80_000
    )
    assert.isTrue(Option.isSome(end), `evaluation ${id} did not end: ${seen.join(" → ")}`)
    return { seen, evaluation: Option.getOrThrow(end) }
  })

const jobsEnded = (evaluation: any) =>
  evaluation.async_jobs.length > 0 && evaluation.async_jobs.every((job: any) => job.status === "Completed" || job.status === "Failed")

layer(TestServerLive, { timeout: 60_000 })("builder v4 evaluations", (it) => {
  it.effect("the build processes the variant over each test case once; the judge answers; PENDING then COMPLETED with counts", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const setup = yield* setUp(caller)
      const created = ok(yield* builder(caller, setup))
      assert.strictEqual(created.status, "PENDING")
      assert.strictEqual(created.total_test_case_result_count, 0)

      const { evaluation, seen } = yield* pollUntil(caller, created.id, (e) => e.status !== "PENDING" && jobsEnded(e))
      assert.deepStrictEqual(seen, ["PENDING", "COMPLETED"])
      assert.strictEqual(evaluation.total_test_case_result_count, 3)
      assert.strictEqual(evaluation.completed_test_case_result_count, 3)
      assert.isString(evaluation.completed_at)
      const [build, judge] = evaluation.async_jobs
      assert.strictEqual(build.job_type, "evaluation-build")
      assert.strictEqual(build.status, "Completed")
      assert.deepStrictEqual(build.progress, { completed: 3, failed: 0, pending: 0 })
      assert.deepInclude(build.job_metadata, { evaluation_dataset_id: setup.dataset.id, evaluation_dataset_version_num: 1, test_case_count: 3 })
      assert.strictEqual(judge.job_type, "evaluation-judge")
      assert.strictEqual(judge.status, "Completed")
      assert.deepStrictEqual(judge.progress, { completed: 3, failed: 0, pending: 0 })

      // one result per test case: the variant's output (the built-in model echoes the input), its output stored
      const page = ok(yield* get(caller, `/v4/evaluations/${created.id}/test-case-results?view=AnnotationResults&view=Trace`))
      assert.strictEqual(page.total_item_count, 3)
      assert.sameMembers(page.items.map((r: any) => r.test_case_id), setup.testCases.map((t) => t.id))
      for (const result of page.items) {
        const testCase = setup.testCases.find((t) => t.id === result.test_case_id)
        assert.strictEqual(result.test_case_evaluation_data.generation_output, testCase.test_case_data.input)
        assert.strictEqual(result.test_case_evaluation_data_schema, "GENERATION")
        assert.strictEqual(result.evaluation_dataset_version_num, "1")
        assert.strictEqual(result.evaluation_dataset_id, setup.dataset.id)
        assert.strictEqual(result.label_status, "COMPLETED")
        assert.isString(result.application_test_case_output_id)
        assert.strictEqual(result.application_test_case_output.id, result.application_test_case_output_id)
        assert.strictEqual(result.application_test_case_output.application_variant_id, setup.variant.id)
        // the built-in judge: exact match → yes; F1 0.4 (Paris) and 0 → no
        const expected = testCase.test_case_data.expected_output === testCase.test_case_data.input ? "yes" : "no"
        assert.deepStrictEqual(result.result, { [setup.question.id]: expected })
        assert.strictEqual(result.annotation_results.length, 1)
        const [answer] = result.annotation_results
        assert.strictEqual(answer.annotation_type, "llm_auto")
        assert.strictEqual(answer.question_id, setup.question.id)
        assert.deepInclude(answer.selected_choice, { value: expected })
        assert.strictEqual(answer.llm_auto_eval_metadata.annotation_result_id, answer.id)
        assert.match(answer.llm_auto_eval_metadata.llm_reasoning, /^Built-in judge/)
      }
    }), 90_000)

  it.effect("a dataset without a published version: the evaluation FAILED, the reason in its build job; no result", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const setup = yield* setUp(caller, { publish: false })
      const created = ok(yield* builder(caller, setup))
      const { evaluation } = yield* pollUntil(caller, created.id, (e) => e.status === "FAILED" && jobsEnded(e))
      assert.strictEqual(evaluation.total_test_case_result_count, 0)
      const [build] = evaluation.async_jobs
      assert.strictEqual(build.status, "Failed")
      assert.match(build.job_metadata.reason, /has no published version/)
      assert.strictEqual(ok(yield* get(caller, `/v4/evaluations/${created.id}/test-case-results`)).total_item_count, 0)
    }), 90_000)

  it.effect("a human config: the build stores the results PENDING for people, no judge", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const setup = yield* setUp(caller, { evaluationType: "human" })
      const created = ok(yield* builder(caller, setup, { evaluation_dataset_version: 1 }))
      const { evaluation } = yield* pollUntil(caller, created.id, jobsEnded)
      assert.strictEqual(evaluation.status, "PENDING")
      assert.strictEqual(evaluation.total_test_case_result_count, 3)
      assert.strictEqual(evaluation.completed_test_case_result_count, 0)
      assert.deepStrictEqual(evaluation.async_jobs.map((job: any) => [job.job_type, job.status]), [["evaluation-build", "Completed"]])
      const page = ok(yield* get(caller, `/v4/evaluations/${created.id}/test-case-results?view=AnnotationResults`))
      assert.isTrue(page.items.every((r: any) => r.label_status === "PENDING" && r.result === null && r.annotation_results.length === 0))
    }), 90_000)

  it.effect("the build computes each result's custom metrics (the variant's output against the expected output)", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const setup = yield* setUp(caller, { evaluationType: "human" })
      const metric_config = { components: [{ name: "r1", type: "rouge" }, { name: "b", type: "bleu" }, { name: "m", type: "meteor" }] }
      const created = ok(yield* builder(caller, setup, { metric_config }))
      yield* pollUntil(caller, created.id, jobsEnded)
      const page = ok(yield* get(caller, `/v4/evaluations/${created.id}/test-case-results?view=CustomMetrics`))
      const byInput = new Map(page.items.map((r: any) => [r.test_case_evaluation_data.generation_output, r.custom_metrics.map((m: any) => [m.name, m.output])]))
      // the built-in model echoes the input: the same text as expected → 1, 1 and METEOR's one chunk of 6
      const same = byInput.get(cases[0]!.input) as Array<[string, number]>
      assert.deepStrictEqual(same.slice(0, 2), [["r1", 1], ["b", 1]])
      assert.closeTo(same[2]![1], 1 - 0.5 * Math.pow(1 / 6, 3), 1e-12)
      // "Paris is in France" against "Paris": ROUGE-1 F 2·(1/4)·1 / (1/4 + 1); BLEU (1/4 · 0.1/3 · 0.1/2 · 0.1/1)^(1/4)
      // (NLTK's smoothing method 1; longer than the reference: no penalty); METEOR Fmean 0.25 / 0.325, one chunk of one match
      const paris = byInput.get(cases[1]!.input) as Array<[string, number]>
      assert.deepStrictEqual(paris.map(([name]) => name), ["r1", "b", "m"])
      assert.closeTo(paris[0]![1], 0.4, 1e-12)
      assert.closeTo(paris[1]![1], Math.pow((1 / 4) * (0.1 / 3) * (0.1 / 2) * (0.1 / 1), 1 / 4), 1e-12)
      assert.closeTo(paris[2]![1], (0.25 / 0.325) * 0.5, 1e-12)
      // nothing shared: ROUGE and METEOR 0 (BLEU's smoothing keeps it above 0)
      const none = byInput.get(cases[2]!.input) as Array<[string, number]>
      assert.deepStrictEqual(none.filter(([name]) => name !== "b"), [["r1", 0], ["m", 0]])
    }), 90_000)

  it.effect("an engine started after a crash goes on with a running build; a test case with its result is not processed again", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const setup = yield* setUp(caller, { evaluationType: "human" })
      const evaluations = yield* EvaluationsV4Repo
      const results = yield* TestCaseResultsRepo
      const jobs = yield* EvaluationJobsRepo
      const id = randomUUID()
      const now = new Date().toISOString()
      // what a process killed mid-build leaves: the build job Running, the first test case's result stored
      const evaluation = yield* evaluations.insert(
        builderEvaluation({ id, name: "crashed", now, group: null, caller, setup })
      )
      yield* jobs.insert(
        new StoredEvaluationJob({
          id: randomUUID(),
          account_id: caller.accountId,
          evaluation_id: id,
          created_at: now,
          updated_at: now,
          status: "Running",
          job_type: "evaluation-build",
          job_metadata: { evaluation_dataset_id: setup.dataset.id, evaluation_dataset_version_num: 1, test_case_count: 3, failed_test_case_ids: [] },
          parent_job_id: null,
          progress: { completed: 1, failed: 0, pending: 2 }
        })
      )
      const [kept] = yield* results.createResults(evaluation, [{
        test_case_id: setup.testCases[0].id,
        application_spec_id: setup.spec.id,
        evaluation_dataset_version_num: "1",
        test_case_evaluation_data: { generation_output: "stored before the crash" }
      }], caller.identityId)
      const ended = yield* Effect.scoped(
        Effect.gen(function*() {
          // a second engine on the same database, as a restarted process has: it starts the unfinished build
          yield* Layer.build(LifecyclesLive.pipe(Layer.provide(Simulation.layer)))
          return yield* pollUntil(caller, id, jobsEnded)
        })
      )
      const [build] = ended.evaluation.async_jobs
      assert.strictEqual(build.status, "Completed")
      assert.deepStrictEqual(build.progress, { completed: 3, failed: 0, pending: 0 })
      const page = ok(yield* get(caller, `/v4/evaluations/${id}/test-case-results`))
      assert.strictEqual(page.total_item_count, 3)
      const first = page.items.filter((r: any) => r.test_case_id === setup.testCases[0].id)
      assert.deepStrictEqual(first.map((r: any) => [r.id, r.test_case_evaluation_data.generation_output]), [[kept!.id, "stored before the crash"]])
      // only the two test cases without a result were processed (each process records one interaction)
      const interactions = ok(yield* get(caller, `/v4/applications/${setup.spec.id}/interactions`))
      assert.strictEqual(interactions.total_item_count, 2)
      // and only their outputs stored, each once (the step stored the rest of its test cases, not the one it found)
      const outputs = yield* OutputsRepo
      const sql = yield* SqlClient.SqlClient
      const made = yield* outputs.findNarrowed([caller.accountId], [sql`application_variant_id = ${setup.variant.id}`])
      assert.deepStrictEqual(
        made.map((output) => output.test_case_id).sort(),
        [setup.testCases[1].id, setup.testCases[2].id].sort()
      )
      assert.deepStrictEqual(
        page.items.filter((r: any) => r.test_case_id !== setup.testCases[0].id).map((r: any) => r.application_test_case_output_id).sort(),
        made.map((output) => output.id).sort()
      )
    }).pipe(Effect.provide(Layer.mergeAll(EvaluationsV4Repo.Default, TestCaseResultsRepo.Default, EvaluationJobsRepo.Default, OutputsRepo.Default))), 90_000)

  it.effect("a test case whose result cannot be stored fails alone: the step's others are stored, its reason in the build job", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const setup = yield* setUp(caller, { evaluationType: "human" })
      const evaluations = yield* EvaluationsV4Repo
      const jobs = yield* EvaluationJobsRepo
      const outputs = yield* OutputsRepo
      const sql = yield* SqlClient.SqlClient
      const id = randomUUID()
      const group = randomUUID()
      const now = new Date().toISOString()
      // the evaluation's output group holds an object output for the second test case: its GENERATION dataset takes text
      const bad = yield* outputs.insert(
        new StoredTestCaseOutput({
          id: randomUUID(),
          account_id: caller.accountId,
          application_variant_id: setup.variant.id,
          evaluation_dataset_id: setup.dataset.id,
          evaluation_dataset_version_num: 1,
          test_case_id: setup.testCases[1].id,
          schema_type: "FLEXIBLE",
          output: outputResultOf({ generation_output: { answer: "an object" } }),
          metrics: null,
          application_interaction_id: null,
          application_test_case_output_group_id: group,
          application_variant_report_id: null,
          trace_spans: [],
          created_at: now
        })
      )
      yield* evaluations.insert(
        builderEvaluation({ id, name: "grouped", now, group, caller, setup })
      )
      yield* jobs.insert(
        new StoredEvaluationJob({
          id: randomUUID(),
          account_id: caller.accountId,
          evaluation_id: id,
          created_at: now,
          updated_at: now,
          status: "Pending",
          job_type: "evaluation-build",
          job_metadata: {},
          parent_job_id: null,
          progress: { completed: 0, failed: 0, pending: 0 }
        })
      )
      const ended = yield* Effect.scoped(
        Effect.gen(function*() {
          yield* Layer.build(LifecyclesLive.pipe(Layer.provide(Simulation.layer)))
          return yield* pollUntil(caller, id, jobsEnded)
        })
      )
      const [build] = ended.evaluation.async_jobs
      assert.strictEqual(build.status, "Failed")
      assert.deepStrictEqual(build.progress, { completed: 2, failed: 1, pending: 0 })
      assert.deepStrictEqual(build.job_metadata.failed_test_case_ids, [setup.testCases[1].id])
      assert.match(build.job_metadata.reason, new RegExp(`^Test case ${setup.testCases[1].id}: .*text`))
      const page = ok(yield* get(caller, `/v4/evaluations/${id}/test-case-results`))
      assert.deepStrictEqual(page.items.map((r: any) => r.test_case_id).sort(), [setup.testCases[0].id, setup.testCases[2].id].sort())
      // the two processed outputs stored with their results; the group's output stays the only one of its test case
      const made = yield* outputs.findNarrowed([caller.accountId], [sql`application_variant_id = ${setup.variant.id}`])
      assert.deepStrictEqual(
        made.filter((output) => output.id !== bad.id).map((output) => output.id).sort(),
        page.items.map((r: any) => r.application_test_case_output_id).sort()
      )
      assert.strictEqual(made.filter((output) => output.test_case_id === setup.testCases[1].id).length, 1)
    }).pipe(Effect.provide(Layer.mergeAll(EvaluationsV4Repo.Default, EvaluationJobsRepo.Default, OutputsRepo.Default))), 90_000)
})
