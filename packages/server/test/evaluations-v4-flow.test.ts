/**
 * The v4 evaluation workflow end to end through the typed client (docs/evaluations.md "v4
 * evaluations"): a question and its question set, a hybrid (`llm_benchmark`) config, a dataset
 * of test cases published as version 1, an application variant (input → the built-in model →
 * output), a builder evaluation of the variant over the dataset; the build and the built-in judge
 * run on the engine; people claim and answer every task; the evaluation completes and its
 * metrics say who answered what and how the people agreed with the judge.
 */
import { assert, layer } from "@effect/vitest"
import { GenerationTestCaseDataInput } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { eventually, provision, TestServerLive } from "../src/testing.js"
import { completionApp } from "./support/applications.js"

layer(TestServerLive, { timeout: 90_000 })("the v4 evaluation workflow", (it) => {
  it.effect("dataset → publish → builder evaluation → model judge → people claim and answer → metrics, through the typed client", () =>
    Effect.gen(function*() {
      const { accountId, client } = yield* provision()
      const question = yield* client.questions.create({
        payload: {
          account_id: accountId,
          type: "categorical",
          title: "Correct?",
          prompt: "Is the answer correct?",
          choices: [{ label: "Yes", value: "yes" }, { label: "No", value: "no" }]
        }
      })
      const set = yield* client.questionSets.create({ payload: { account_id: accountId, name: "correctness", question_ids: [question.id] } })
      const config = yield* client.evaluationConfigs.create({ payload: { account_id: accountId, evaluation_type: "llm_benchmark", question_set_id: set.id } })

      const dataset = yield* client.evaluationDatasets.create({ payload: { account_id: accountId, name: "echoes", schema_type: "GENERATION" } })
      // the built-in model echoes its prompt: the first two answers are right, the third is not
      yield* client.evaluationDatasets.batchTestCases({
        path: { evaluation_dataset_id: dataset.id },
        payload: [
          { test_case_data: new GenerationTestCaseDataInput({ input: "the sky is blue", expected_output: "the sky is blue" }) },
          { test_case_data: new GenerationTestCaseDataInput({ input: "water is wet", expected_output: "water is wet" }) },
          { test_case_data: new GenerationTestCaseDataInput({ input: "cats bark", expected_output: "dogs bark at night" }) }
        ]
      })
      const published = yield* client.evaluationDatasets.publish({ path: { evaluation_dataset_id: dataset.id }, urlParams: {} })
      assert.isTrue(published.success)

      const spec = yield* client.applicationSpecs.create({ payload: { account_id: accountId, name: "echo app", description: "echoes" } })
      const variant = yield* client.applicationVariants.create({
        payload: {
          account_id: accountId,
          application_spec_id: spec.id,
          name: "v0",
          version: "V0",
          configuration: completionApp()
        }
      })
      const created = yield* client.evaluationsV4.create({
        payload: {
          account_id: accountId,
          type: "builder",
          name: "echo quality",
          description: "is the echo right",
          application_spec_id: spec.id,
          application_variant_id: variant.id,
          evaluation_dataset_id: dataset.id,
          evaluation_config_id: config.id
        }
      })
      assert.strictEqual(created.status, "PENDING")
      const path = { evaluation_v4_id: created.id }

      // the poller: the build and the judge end; the results wait for people (hybrid)
      const built = yield* eventually(
        Effect.map(client.evaluationsV4.get({ path, urlParams: { view: ["AsyncJobs"] } }), (evaluation) => {
          const jobs = evaluation.async_jobs ?? []
          return jobs.length === 2 && jobs.every((job) => job.status === "Completed") ? Option.some(evaluation) : Option.none()
        }),
        60_000
      )
      assert.isTrue(Option.isSome(built), "the build and the judge completed")
      const evaluation = Option.getOrThrow(built)
      assert.deepStrictEqual([evaluation.status, evaluation.total_test_case_result_count, evaluation.completed_test_case_result_count], ["PENDING", 3, 0])

      // people: each claim hands out a task no one else holds, answered through its result
      const answered: Array<string> = []
      for (let claim = yield* client.evaluationsV4.claimTask({ path, payload: {} }); claim !== null; claim = yield* client.evaluationsV4.claimTask({ path, payload: {} })) {
        assert.notInclude(answered, claim.task_entity_id)
        const result = yield* client.evaluationsV4.getResult({ path: { ...path, test_case_result_id: claim.task_entity_id }, urlParams: {} })
        const output = (result.test_case_evaluation_data as { generation_output: string }).generation_output
        assert.isTrue(["the sky is blue", "water is wet", "cats bark"].some((input) => output.includes(input)), output)
        // a person says every echo is right (the judge said the third was not)
        yield* client.evaluationsV4.updateResult({
          path: { ...path, test_case_result_id: claim.task_entity_id },
          payload: { result: { [question.id]: "yes" }, time_spent_labeling_s: 10 }
        })
        answered.push(claim.task_entity_id)
      }
      assert.strictEqual(answered.length, 3)
      const done = yield* client.evaluationsV4.get({ path, urlParams: {} })
      assert.deepStrictEqual([done.status, done.completed_test_case_result_count], ["COMPLETED", 3])
      assert.isNotNull(done.completed_at)

      const metrics = yield* client.evaluationsV4.evaluationMetrics({ path })
      assert.deepStrictEqual([metrics.num_total_test_cases, metrics.num_test_cases_labeled], [3, 3])
      const contributors = yield* client.evaluationsV4.listContributorMetrics({ path, urlParams: {} })
      assert.strictEqual(contributors.items.length, 1)
      assert.deepStrictEqual([contributors.items[0]!.total_num_test_cases_labeled, contributors.items[0]!.total_time_spent_labeling_sec], [3, 30])
      // the judge said yes to the two right echoes and no to the wrong one; the people said yes to all three
      const hybrid = yield* client.evaluationsV4.hybridMetrics({ path })
      const info = hybrid.all_question_info[question.id]!
      assert.deepStrictEqual([info.num_correct, info.num_wrong, info.num_inconclusive], [2, 1, 0])
    }))
})
