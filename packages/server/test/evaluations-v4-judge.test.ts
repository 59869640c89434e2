/**
 * The judge of v4 evaluations (docs/evaluations.md "Builder evaluations and the judge"): results
 * posted to an `llm_auto` evaluation are answered on the engine, question by question, by the
 * built-in judge (no model configured, or none served by the config's name) or by the model the
 * kit serves under `auto_evaluation_model` (an upstream of the test's own on 127.0.0.1); an
 * upstream that fails leaves its result FAILED with the reason, nothing else written; an
 * `llm_benchmark` evaluation's results keep PENDING for people.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { eventually, provision, request, TestServerLive } from "../src/testing.js"
import { registerModel, readyDeploymentOf } from "./support/models.js"
import { chatAnswer, upstream } from "./support/upstream.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

const post = (caller: Caller, path: string, body: unknown) => request("POST", path, { key: caller.key, body })
const get = (caller: Caller, path: string) => request("GET", path, { key: caller.key })

const ok = <A extends { status: number; body: any }>(answer: A) => {
  assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
  return answer.body
}

/** A spec, a dataset of `data` test cases, the questions and their set, a config of `type` (and `model`), a default evaluation. */
const setUp = (
  caller: Caller,
  data: ReadonlyArray<Record<string, unknown>>,
  questions: ReadonlyArray<Record<string, unknown>>,
  config: Record<string, unknown>
) =>
  Effect.gen(function*() {
    const spec = ok(yield* post(caller, "/v4/application-specs", { account_id: caller.accountId, name: "app", description: "an app" }))
    const dataset = ok(yield* post(caller, "/v4/evaluation-datasets", { account_id: caller.accountId, name: "ds", schema_type: "GENERATION" }))
    const testCases: Array<any> = []
    for (const test_case_data of data) {
      testCases.push(ok(yield* post(caller, `/v4/evaluation-datasets/${dataset.id}/test-cases`, { test_case_data })))
    }
    const made: Array<any> = []
    for (const question of questions) made.push(ok(yield* post(caller, "/v4/questions", { account_id: caller.accountId, ...question })))
    const set = ok(yield* post(caller, "/v4/question-sets", { account_id: caller.accountId, name: "qs", question_ids: made.map((q) => q.id) }))
    const evaluationConfig = ok(yield* post(caller, "/v4/evaluation-configs", { account_id: caller.accountId, question_set_id: set.id, ...config }))
    const evaluation = ok(
      yield* post(caller, "/v4/evaluations", {
        account_id: caller.accountId,
        name: "judged",
        description: "judged by a model",
        application_spec_id: spec.id,
        evaluation_config_id: evaluationConfig.id
      })
    )
    return { spec, testCases, questions: made, evaluation }
  })

/** Posts one result per `outputs[i]` for test case i, as a batch. */
const postResults = (caller: Caller, setup: Effect.Effect.Success<ReturnType<typeof setUp>>, outputs: ReadonlyArray<string>) =>
  Effect.map(
    post(caller, `/v4/evaluations/${setup.evaluation.id}/test-case-results/batch`, outputs.map((output, i) => ({
      application_spec_id: setup.spec.id,
      evaluation_dataset_version_num: "1",
      test_case_id: setup.testCases[i].id,
      test_case_evaluation_data: { generation_output: output }
    }))),
    ok
  )

/** Polls until the evaluation's judge job has ended; answers the evaluation and its results with their annotation results. */
const judged = (caller: Caller, evaluationId: string) =>
  Effect.gen(function*() {
    const end = yield* eventually(
      Effect.map(get(caller, `/v4/evaluations/${evaluationId}?view=AsyncJobs`), (read) => {
        const evaluation = ok(read)
        const job = evaluation.async_jobs.find((j: any) => j.job_type === "evaluation-judge")
        return job !== undefined && (job.status === "Completed" || job.status === "Failed") ? Option.some(evaluation) : Option.none()
      }),
      80_000
    )
    assert.isTrue(Option.isSome(end), "the judge did not end")
    const results = ok(yield* get(caller, `/v4/evaluations/${evaluationId}/test-case-results?view=AnnotationResults`)).items
    return { evaluation: Option.getOrThrow(end), results }
  })

const yesNo = { type: "categorical", title: "Correct?", prompt: "Is it correct?", choices: [{ label: "Yes", value: "yes" }, { label: "No", value: "no" }] }

layer(TestServerLive, { timeout: 60_000 })("the v4 judge", (it) => {
  it.effect("the built-in judge answers every question type; the results and the evaluation COMPLETED", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const setup = yield* setUp(
        caller,
        [{ input: "capital of France", expected_output: "Paris" }, { input: "Paris is in France", expected_output: "Paris is a city in France" }],
        [
          yesNo,
          { type: "rating", title: "Quality", prompt: "Rate it", ratingOptions: { minLabel: "bad", maxLabel: "good", scaleSteps: 5 } },
          { type: "number", title: "Score", prompt: "Score it", numberOptions: { min: 0, max: 10 } },
          { type: "free_text", title: "Why", prompt: "Explain" }
        ],
        { evaluation_type: "llm_auto" }
      )
      yield* postResults(caller, setup, ["Paris", "Paris is in France"])
      const { evaluation, results } = yield* judged(caller, setup.evaluation.id)
      assert.strictEqual(evaluation.status, "COMPLETED")
      assert.strictEqual(evaluation.completed_test_case_result_count, 2)
      const job = evaluation.async_jobs.find((j: any) => j.job_type === "evaluation-judge")
      assert.deepStrictEqual(job.progress, { completed: 2, failed: 0, pending: 0 })
      const [yes, rating, number, why] = setup.questions.map((q) => q.id)
      const byCase = (i: number) => results.find((r: any) => r.test_case_id === setup.testCases[i].id)
      // exact match: score 1
      const exact = byCase(0)
      assert.strictEqual(exact.label_status, "COMPLETED")
      assert.deepInclude(exact.result, { [yes]: "yes", [rating]: 5, [number]: 10 })
      assert.match(exact.result[why], /equals the expected output/)
      // "Paris is in France" vs "Paris is a city in France": F1 = 2·(4/4·4/6)/(4/4+4/6) = 0.8
      const partial = byCase(1)
      assert.deepInclude(partial.result, { [yes]: "yes", [rating]: 4, [number]: 8 })
      assert.match(partial.result[why], /F1 of the output and the expected output: 0.8/)
      // one llm_auto annotation result per question, with what the judge spent (no model: 0 tokens)
      assert.sameMembers(partial.annotation_results.map((a: any) => a.question_id), [yes, rating, number, why])
      for (const answer of partial.annotation_results) {
        assert.strictEqual(answer.annotation_type, "llm_auto")
        assert.strictEqual(answer.test_case_result_lineage_id, partial.id)
        assert.deepInclude(answer.llm_auto_eval_metadata, { annotation_result_id: answer.id, prompt_tokens: 0, completion_tokens: 0, time_elapsed_s: 0 })
      }
      assert.deepInclude(partial.annotation_results.find((a: any) => a.question_id === yes).selected_choice, { label: "Yes", value: "yes" })
      assert.strictEqual(partial.annotation_results.find((a: any) => a.question_id === rating).selected_choice, 4)
    }), 90_000)

  it.scoped("a served judge model: its answers with its tokens; an upstream 500 leaves that result FAILED with the reason, nothing written", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const server = yield* upstream((received) =>
        JSON.stringify(received.body).includes("poison")
          ? { status: 500, body: { error: { message: "the judge broke" } } }
          : { status: 200, body: chatAnswer(JSON.stringify({ answer: "no", reasoning: "It names the wrong city" })) }
      )
      // the config's model name is a registered model of the account: its READY deployment judges
      const model = yield* registerModel(caller, "gpt-4-turbo-2024-04-09")
      yield* readyDeploymentOf(caller, model, { provider: "openai_compatible", base_url: server.url, model: "upstream-model", max_retries: 0 })
      const setup = yield* setUp(
        caller,
        [{ input: "capital of France", expected_output: "Paris" }, { input: "capital of Italy", expected_output: "Rome" }],
        [yesNo],
        { evaluation_type: "llm_auto", auto_evaluation_model: "gpt-4-turbo-2024-04-09", auto_evaluation_parameters: { temperature: 0.3 } }
      )
      yield* postResults(caller, setup, ["Lyon", "poison"])
      const { evaluation, results } = yield* judged(caller, setup.evaluation.id)
      const [yes] = setup.questions.map((q) => q.id)
      const answered = results.find((r: any) => r.test_case_id === setup.testCases[0].id)
      assert.strictEqual(answered.label_status, "COMPLETED")
      assert.deepStrictEqual(answered.result, { [yes]: "no" })
      const [answer] = answered.annotation_results
      assert.deepInclude(answer.llm_auto_eval_metadata, { prompt_tokens: 11, completion_tokens: 3, llm_reasoning: "It names the wrong city" })
      assert.deepInclude(answer.selected_choice, { label: "No", value: "no" })
      // the failed one: FAILED, no answer, the reason in the judge job
      const failed = results.find((r: any) => r.test_case_id === setup.testCases[1].id)
      assert.strictEqual(failed.label_status, "FAILED")
      assert.strictEqual(failed.result, null)
      assert.deepStrictEqual(failed.annotation_results, [])
      const job = evaluation.async_jobs.find((j: any) => j.job_type === "evaluation-judge")
      assert.strictEqual(job.status, "Failed")
      assert.deepStrictEqual(job.progress, { completed: 1, failed: 1, pending: 0 })
      assert.match(job.job_metadata.failures[failed.id], /gpt-4-turbo-2024-04-09 failed/)
      assert.strictEqual(evaluation.status, "FAILED")
      // the prompt carried the question, the output and the expected output, at the config's temperature
      assert.isTrue(server.received.every((r) => r.body.temperature === 0.3))
      assert.include(server.received[0]!.body.messages[0].content, "Is it correct?")
      // each result asked once (the engine's retries of a failed step aside: an upstream 500 is the step's answer, not a crash)
      assert.strictEqual(server.received.filter((r) => JSON.stringify(r.body).includes("Lyon")).length, 1)
    }), 90_000)

  it.effect("llm_benchmark: the judge's answers as llm_auto annotation results; the results stay PENDING for people", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const setup = yield* setUp(caller, [{ input: "q", expected_output: "a" }], [yesNo], { evaluation_type: "llm_benchmark" })
      yield* postResults(caller, setup, ["a"])
      const { evaluation, results } = yield* judged(caller, setup.evaluation.id)
      assert.strictEqual(evaluation.status, "PENDING")
      const [result] = results
      assert.strictEqual(result.label_status, "PENDING")
      assert.strictEqual(result.result, null)
      assert.deepStrictEqual(result.annotation_results.map((a: any) => [a.annotation_type, a.selected_choice.value]), [["llm_auto", "yes"]])
    }), 90_000)
})
