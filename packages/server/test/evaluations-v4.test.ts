import { assert, layer } from "@effect/vitest"
import { Clock, Effect, Option } from "effect"
import { SelectedChoice } from "@platform-kit/schema"
import { AnnotationTasks } from "../src/evaluations-v4/tasks.js"
import { TestCaseResultsRepo } from "../src/evaluations-v4/TestCaseResultsRepo.js"
import { issues, isoPattern as iso, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

type Caller = { readonly accountId: string; readonly identityId: string; readonly key: string }

/**
 * What an annotated evaluation needs, made through the API: a spec, a dataset with `cases` test
 * cases, a categorical question in a question set, and a `studio` config over it (people annotate).
 */
const fixture = (caller: Caller, cases = 3) =>
  Effect.gen(function*() {
    const post = (path: string, body: unknown) =>
      Effect.map(request("POST", path, { key: caller.key, body }), (response) => {
        assert.strictEqual(response.status, 200, `${path}: ${JSON.stringify(response.body)}`)
        return response.body
      })
    const spec = yield* post("/v4/application-specs", { account_id: caller.accountId, name: "app", description: "an app" })
    const dataset = yield* post("/v4/evaluation-datasets", { name: "d" })
    const testCases: Array<string> = []
    for (let i = 0; i < cases; i++) {
      testCases.push((yield* post(`/v4/evaluation-datasets/${dataset.id}/test-cases`, { test_case_data: { input: `q${i}` } })).id)
    }
    const question = yield* post("/v4/questions", {
      account_id: caller.accountId,
      type: "categorical",
      title: "Correct?",
      prompt: "Is the answer correct?",
      choices: [{ label: "Yes", value: "yes" }, { label: "No", value: "no", audit_required: true }]
    })
    const set = yield* post("/v4/question-sets", { account_id: caller.accountId, name: "qs", question_ids: [question.id] })
    const config = yield* post("/v4/evaluation-configs", { account_id: caller.accountId, evaluation_type: "studio", question_set_id: set.id })
    const evaluation = yield* post("/v4/evaluations", {
      account_id: caller.accountId,
      application_spec_id: spec.id,
      name: "eval",
      description: "checks",
      evaluation_config_id: config.id
    })
    const resultBody = (testCaseId: string, output = "an answer") => ({
      application_spec_id: spec.id,
      evaluation_dataset_version_num: "1",
      test_case_id: testCaseId,
      test_case_evaluation_data: { generation_output: output }
    })
    return { spec: spec.id, dataset: dataset.id, testCases, question: question.id, set: set.id, config: config.id, evaluation, resultBody, post }
  })

layer(TestServerLive)("v4 evaluations", (it) => {
  it.effect("the default flow: results posted, tasks claimed, answered, the evaluation completes, metrics", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { key } = caller
      const f = yield* fixture(caller)
      const evaluation = f.evaluation
      assert.match(evaluation.id, uuid)
      assert.match(evaluation.created_at, iso)
      assert.deepStrictEqual(evaluation, {
        id: evaluation.id,
        account_id: caller.accountId,
        application_spec_id: f.spec,
        application_variant_id: null,
        name: "eval",
        description: "checks",
        status: "PENDING",
        total_test_case_result_count: 0,
        completed_test_case_result_count: 0,
        completed_at: null,
        annotation_config: null,
        question_id_to_annotation_config: null,
        evaluation_config: null,
        evaluation_config_id: f.config,
        metric_config: null,
        tags: null,
        created_by_user_id: caller.identityId,
        created_by_identity_type: "user",
        created_at: evaluation.created_at,
        archived_at: null
      })
      const base = `/v4/evaluations/${evaluation.id}`

      // one result alone, two in a batch (a bare array in and out)
      const one = yield* request("POST", `${base}/test-case-results`, { key, body: f.resultBody(f.testCases[0]!) })
      assert.strictEqual(one.status, 200)
      assert.deepStrictEqual(one.body, {
        id: one.body.id,
        account_id: caller.accountId,
        evaluation_id: evaluation.id,
        evaluation_dataset_id: f.dataset,
        evaluation_dataset_version_num: "1",
        application_spec_id: f.spec,
        test_case_id: f.testCases[0],
        test_case_evaluation_data_schema: "GENERATION",
        test_case_evaluation_data: { generation_output: "an answer", generation_extra_info: null },
        label_status: "PENDING",
        result: null,
        annotated_by_user_id: null,
        application_test_case_output_id: null,
        audit_comment: null,
        audit_required: null,
        audit_status: null,
        time_spent_labeling_s: null,
        completed_at: null,
        archived_at: null,
        created_by_user_id: caller.identityId,
        created_at: one.body.created_at
      })
      const batch = yield* request("POST", `${base}/test-case-results/batch`, {
        key,
        body: [f.resultBody(f.testCases[1]!), f.resultBody(f.testCases[2]!, "another")]
      })
      assert.strictEqual(batch.status, 200)
      assert.isTrue(Array.isArray(batch.body))
      assert.deepStrictEqual(batch.body.map((r: any) => r.test_case_id), [f.testCases[1], f.testCases[2]])
      const counted = yield* request("GET", base, { key })
      assert.strictEqual(counted.body.total_test_case_result_count, 3)
      assert.strictEqual(counted.body.completed_test_case_result_count, 0)
      assert.strictEqual(counted.body.status, "PENDING")

      // a claim hands the oldest task; again: the same one; skip_current: the next one
      const claimed = yield* request("POST", `${base}/claim-task`, { key, body: {} })
      assert.strictEqual(claimed.status, 200)
      assert.strictEqual(claimed.body.task_entity_id, one.body.id)
      assert.strictEqual(claimed.body.task_entity_parent_id, evaluation.id)
      assert.strictEqual(claimed.body.task_type, "EVALUATION_ANNOTATION")
      assert.strictEqual(claimed.body.status, "PENDING")
      assert.strictEqual(claimed.body.assigned_to, caller.identityId)
      assert.match(claimed.body.assignment_expires_at, iso)
      const expiresIn = Date.parse(claimed.body.assignment_expires_at) - (yield* Clock.currentTimeMillis)
      assert.isTrue(expiresIn > 29 * 60_000 && expiresIn <= 30 * 60_000, `claim lasts 30 min: ${expiresIn}`)
      assert.strictEqual(claimed.body.task_entity.id, one.body.id)
      const again = yield* request("POST", `${base}/claim-task`, { key, body: {} })
      assert.strictEqual(again.body.id, claimed.body.id)
      // claimed again, the task keeps the assignment's end: a claim does not lengthen it
      assert.strictEqual(again.body.assignment_expires_at, claimed.body.assignment_expires_at)
      const skipped = yield* request("POST", `${base}/claim-task`, { key, body: { skip_current: true } })
      assert.strictEqual(skipped.body.task_entity_id, batch.body[0].id)

      // the Task view shows the assignee as a user
      const viewed = yield* request("GET", `${base}/test-case-results/${batch.body[0].id}?view=Task,AnnotationResults,TestCaseVersion`, { key })
      assert.strictEqual(viewed.status, 200)
      assert.strictEqual(viewed.body.task.id, skipped.body.id)
      assert.strictEqual(viewed.body.task.assigned_to.id, caller.identityId)
      assert.deepStrictEqual(viewed.body.annotation_results, [])
      assert.strictEqual(viewed.body.test_case_version.id, f.testCases[1])
      assert.isFalse("metrics" in viewed.body)

      // answering completes the result (version 2) and its task, and writes a human annotation result
      const answered = yield* request("PATCH", `${base}/test-case-results/${batch.body[0].id}`, {
        key,
        body: { result: { [f.question]: "no" }, time_spent_labeling_s: 30, audit_status: "FIXED" }
      })
      assert.strictEqual(answered.status, 200)
      assert.strictEqual(answered.body.label_status, "COMPLETED")
      assert.match(answered.body.completed_at, iso)
      assert.strictEqual(answered.body.annotated_by_user_id, caller.identityId)
      const afterAnswer = yield* request("GET", `${base}/test-case-results/${batch.body[0].id}?view=Task&view=AnnotationResults`, { key })
      assert.strictEqual(afterAnswer.body.task.status, "COMPLETED")
      assert.strictEqual(afterAnswer.body.annotation_results.length, 1)
      const [annotation] = afterAnswer.body.annotation_results
      assert.deepStrictEqual(annotation, {
        id: annotation.id,
        annotation_type: "human",
        question_id: f.question,
        selected_choice: { label: "No", value: "no", audit_required: true },
        test_case_result_lineage_id: batch.body[0].id,
        llm_auto_eval_metadata: null,
        created_at: annotation.created_at
      })

      // label_status PENDING keeps an answered result open
      const held = yield* request("PATCH", `${base}/test-case-results/${one.body.id}`, {
        key,
        body: { result: { [f.question]: "yes" }, label_status: "PENDING" }
      })
      assert.strictEqual(held.body.label_status, "PENDING")
      assert.strictEqual(held.body.completed_at, null)

      // history: version 1 as created, 2 as answered; the list of a version
      const v1 = yield* request("GET", `${base}/test-case-results/${batch.body[0].id}/history/1`, { key })
      assert.deepStrictEqual(v1.body, batch.body[0])
      const v2 = yield* request("GET", `${base}/test-case-results/${batch.body[0].id}/history/2`, { key })
      assert.deepStrictEqual(v2.body, answered.body)
      const v3 = yield* request("GET", `${base}/test-case-results/${batch.body[0].id}/history/3`, { key })
      assert.strictEqual(v3.status, 404)
      const listed2 = yield* request("GET", `${base}/test-case-results/history/2`, { key })
      assert.deepStrictEqual(listed2.body.items.map((r: any) => r.id).sort(), [one.body.id, batch.body[0].id].sort())
      assert.strictEqual(listed2.body.total_item_count, 2)

      // the rest answered: the evaluation completes; nothing is left to claim
      for (const id of [one.body.id, batch.body[1].id]) {
        const done = yield* request("PATCH", `${base}/test-case-results/${id}`, {
          key,
          body: { result: { [f.question]: "yes" }, time_spent_labeling_s: 10, audit_status: "APPROVED" }
        })
        assert.strictEqual(done.body.label_status, "COMPLETED")
      }
      const completed = yield* request("GET", `${base}?view=EvaluationConfig&view=EvaluationDatasets`, { key })
      assert.strictEqual(completed.body.status, "COMPLETED")
      assert.strictEqual(completed.body.completed_test_case_result_count, 3)
      assert.match(completed.body.completed_at, iso)
      assert.strictEqual(completed.body.evaluation_config_expanded.question_set.questions[0].id, f.question)
      assert.strictEqual(completed.body.evaluation_config_expanded.evaluation_type, "studio")
      assert.deepStrictEqual(completed.body.evaluation_datasets.map((d: any) => d.id), [f.dataset])
      assert.isFalse("application_spec" in completed.body)
      const none = yield* request("POST", `${base}/claim-task`, { key, body: {} })
      assert.strictEqual(none.status, 200)
      assert.strictEqual(none.body, null)

      // metrics from the stored results
      const metrics = yield* request("GET", `${base}/evaluation-metrics`, { key })
      assert.deepStrictEqual(metrics.body, {
        evaluation_id: evaluation.id,
        avg_labeling_time_per_test_case: 50 / 3,
        avg_num_test_cases_labeled_per_day: 3,
        num_total_test_cases: 3,
        num_test_cases_labeled: 3,
        num_test_cases_flagged: 0,
        num_test_cases_approved: 2,
        num_test_cases_fixed: 1,
        num_test_cases_unaudited: 0,
        percentage_test_cases_approved: 200 / 3,
        percentage_test_cases_fixed: 100 / 3,
        percentage_test_cases_unaudited: 0
      })
      const contributors = yield* request("GET", `${base}/contributor-metrics`, { key })
      assert.deepStrictEqual(contributors.body, {
        items: [{
          evaluation_id: evaluation.id,
          annotated_by_user_id: caller.identityId,
          total_num_test_cases_labeled: 3,
          num_test_cases_fixed: 1,
          percentage_test_cases_fixed: 100 / 3,
          total_time_spent_labeling_sec: 50,
          avg_time_spent_labeling_sec: 50 / 3
        }],
        total_item_count: 1,
        current_page: 1,
        items_per_page: 100
      })
      const mine = yield* request("GET", `${base}/contributor-metrics/${caller.identityId}`, { key })
      assert.deepStrictEqual(mine.body, contributors.body.items[0])
      const nobody = yield* request("GET", `${base}/contributor-metrics/someone-else`, { key })
      assert.strictEqual(nobody.status, 200)
      assert.strictEqual(nobody.body, null)
      // only people answered: every pair is inconclusive
      const hybrid = yield* request("GET", `${base}/hybrid-eval-metrics`, { key })
      assert.strictEqual(hybrid.body.all_question_info[f.question].num_inconclusive, 3)
      assert.strictEqual(hybrid.body.all_question_info[f.question].question_title, "Correct?")
      assert.strictEqual(hybrid.body.all_question_info[f.question].agreement_rate, 0)
    }))

  it.effect("concurrent claims never hand out the same task; a reassign moves it", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const f = yield* fixture(caller, 2)
      const base = `/v4/evaluations/${f.evaluation.id}`
      const batch = yield* request("POST", `${base}/test-case-results/batch`, { key: caller.key, body: f.testCases.map((id) => f.resultBody(id)) })
      assert.strictEqual(batch.status, 200)
      const others = yield* Effect.all([provision({ accountId: caller.accountId }), provision({ accountId: caller.accountId })], {
        concurrency: "unbounded"
      })
      const claimers = [caller, ...others]
      const claims = yield* Effect.forEach(claimers, (claimer) => request("POST", `${base}/claim-task`, { key: claimer.key, body: {} }), {
        concurrency: "unbounded"
      })
      const got = claims.filter((claim) => claim.body !== null)
      assert.strictEqual(got.length, 2)
      assert.strictEqual(new Set(got.map((claim) => claim.body.id)).size, 2)
      assert.strictEqual(claims.filter((claim) => claim.status === 200 && claim.body === null).length, 1)
      for (const claim of got) assert.include(claimers.map((c) => c.identityId), claim.body.assigned_to)

      // many claimers at once on the queue itself (the compare-and-set): each task to one of them
      const tasks = yield* AnnotationTasks
      const rows = Array.from({ length: 12 }, (_, i) => ({
        id: `task-${f.evaluation.id}-${i}`,
        account_id: caller.accountId,
        evaluation_id: `queue-${f.evaluation.id}`,
        test_case_result_id: `result-${f.evaluation.id}-${i}`,
        status: "PENDING" as const,
        priority: i % 3,
        assigned_to: null,
        assignment_expires_at: null,
        created_at: new Date(1_000 + i).toISOString(),
        position: i + 1
      }))
      yield* tasks.insertAll(rows)
      const won = yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => `user-${i}`),
        (userId) =>
          tasks.claim({ evaluationId: `queue-${f.evaluation.id}`, userId, skipCurrent: false, now: "2000-01-01T00:00:00.000Z", expiresAt: "2000-01-01T00:30:00.000Z" }),
        { concurrency: "unbounded" }
      )
      const taken = won.flatMap((claim) => Option.isSome(claim) ? [claim.value.id] : [])
      assert.strictEqual(taken.length, 12)
      assert.strictEqual(new Set(taken).size, 12)
      // an expired claim is free again; a live one is not
      const later = yield* tasks.claim({ evaluationId: `queue-${f.evaluation.id}`, userId: "late", skipCurrent: false, now: "2000-01-01T00:10:00.000Z", expiresAt: "2000-01-01T00:40:00.000Z" })
      assert.isTrue(Option.isNone(later))
      const afterExpiry = yield* tasks.claim({ evaluationId: `queue-${f.evaluation.id}`, userId: "late", skipCurrent: false, now: "2000-01-01T00:31:00.000Z", expiresAt: "2000-01-01T01:01:00.000Z" })
      // the first of the queue: highest priority, then oldest
      assert.strictEqual(Option.getOrThrow(afterExpiry).id, rows[2]!.id)

      // reassigned to the caller; to a stranger: 404; an unknown task: 404
      const task = got[0]!.body
      const moved = yield* request("PATCH", `${base}/tasks/${task.id}`, { key: caller.key, body: { assigned_to: caller.identityId } })
      assert.strictEqual(moved.status, 200)
      assert.strictEqual(moved.body.assigned_to, caller.identityId)
      const stranger = yield* provision()
      const foreign = yield* request("PATCH", `${base}/tasks/${task.id}`, { key: caller.key, body: { assigned_to: stranger.identityId } })
      assert.strictEqual(foreign.status, 404)
      const unknown = yield* request("PATCH", `${base}/tasks/no-such-task`, { key: caller.key, body: {} })
      assert.strictEqual(unknown.status, 404)
      // freed (no assigned_to): the next claim may take it
      const freed = yield* request("PATCH", `${base}/tasks/${got[1]!.body.id}`, { key: caller.key, body: { assigned_to: null } })
      assert.strictEqual(freed.body.assigned_to, null)
      assert.strictEqual(freed.body.assignment_expires_at, null)
      const mine = yield* request("POST", `${base}/claim-task`, { key: caller.key, body: {} })
      assert.strictEqual(mine.body.id, task.id)
    }).pipe(Effect.provide(AnnotationTasks.Default)))

  it.effect("an archived evaluation takes no result (409) until restored; delete and restore", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const f = yield* fixture(caller, 1)
      const base = `/v4/evaluations/${f.evaluation.id}`
      const deleted = yield* request("DELETE", base, { key: caller.key })
      assert.deepStrictEqual(deleted.body, { count: 1, success: true })
      const twice = yield* request("DELETE", base, { key: caller.key })
      assert.deepStrictEqual(twice.body, { count: 0, success: true })
      const rejected = yield* request("POST", `${base}/test-case-results`, { key: caller.key, body: f.resultBody(f.testCases[0]!) })
      assert.strictEqual(rejected.status, 409)
      const renamed = yield* request("PATCH", base, { key: caller.key, body: { name: "x" } })
      assert.strictEqual(renamed.status, 409)
      const listed = yield* request("GET", "/v4/evaluations", { key: caller.key })
      assert.deepStrictEqual(listed.body.items, [])
      const withArchived = yield* request("GET", "/v4/evaluations?include_archived=true", { key: caller.key })
      assert.strictEqual(withArchived.body.items.length, 1)
      assert.match(withArchived.body.items[0].archived_at, iso)
      const restoreAndMore = yield* request("PATCH", base, { key: caller.key, body: { restore: true, name: "x" } })
      assert.strictEqual(restoreAndMore.status, 422)
      assert.deepStrictEqual(issues(restoreAndMore), [{ loc: ["body", "name"], type: "extra_forbidden" }])
      const restored = yield* request("PATCH", base, { key: caller.key, body: { restore: true } })
      assert.strictEqual(restored.status, 200)
      assert.strictEqual(restored.body.archived_at, null)
      const accepted = yield* request("POST", `${base}/test-case-results`, { key: caller.key, body: f.resultBody(f.testCases[0]!) })
      assert.strictEqual(accepted.status, 200)
      // a studio evaluation cannot be made hybrid
      const hybrid = yield* request("PATCH", base, { key: caller.key, body: { evaluation_type: "llm_benchmark" } })
      assert.strictEqual(hybrid.status, 409)
    }))

  it.effect("another account's evaluation, test case or variant is a 404 and nothing is written; bad input is a 422", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const f = yield* fixture(caller, 1)
      const g = yield* fixture(other, 1)
      const base = `/v4/evaluations/${f.evaluation.id}`
      assert.strictEqual((yield* request("GET", base, { key: other.key })).status, 404)
      assert.strictEqual((yield* request("POST", `${base}/claim-task`, { key: other.key, body: {} })).status, 404)
      const foreignCase = yield* request("POST", `${base}/test-case-results`, { key: caller.key, body: f.resultBody(g.testCases[0]!) })
      assert.strictEqual(foreignCase.status, 404)
      const foreignInBatch = yield* request("POST", `${base}/test-case-results/batch`, {
        key: caller.key,
        body: [f.resultBody(f.testCases[0]!), f.resultBody(g.testCases[0]!)]
      })
      assert.strictEqual(foreignInBatch.status, 404)
      const none = yield* request("GET", `${base}/test-case-results`, { key: caller.key })
      assert.strictEqual(none.body.total_item_count, 0)
      const builder = yield* request("POST", "/v4/evaluations", {
        key: caller.key,
        body: {
          account_id: caller.accountId,
          type: "builder",
          application_spec_id: f.spec,
          application_variant_id: "someone-elses-variant",
          evaluation_dataset_id: f.dataset,
          name: "b",
          description: "b"
        }
      })
      assert.strictEqual(builder.status, 404)
      const listed = yield* request("GET", "/v4/evaluations", { key: caller.key })
      assert.strictEqual(listed.body.total_item_count, 1)

      const missing = yield* request("POST", "/v4/evaluations", { key: caller.key, body: { account_id: caller.accountId } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "application_spec_id"], type: "missing" },
        { loc: ["body", "description"], type: "missing" },
        { loc: ["body", "name"], type: "missing" }
      ])
      const builderWithout = yield* request("POST", "/v4/evaluations", {
        key: caller.key,
        body: { account_id: caller.accountId, type: "builder", application_spec_id: f.spec, application_variant_id: "v", name: "b", description: "b" }
      })
      assert.deepStrictEqual(issues(builderWithout), [{ loc: ["body", "evaluation_dataset_id"], type: "missing" }])
      const badResult = yield* request("POST", `${base}/test-case-results`, {
        key: caller.key,
        body: { ...f.resultBody(f.testCases[0]!), evaluation_dataset_version_num: 1, label_status: "DONE" }
      })
      assert.strictEqual(badResult.status, 422)
      assert.deepStrictEqual(issues(badResult).map((i: any) => i.loc), [["body", "evaluation_dataset_version_num"], ["body", "label_status"]])
      const objectOutput = yield* request("POST", `${base}/test-case-results`, {
        key: caller.key,
        body: { ...f.resultBody(f.testCases[0]!), test_case_evaluation_data: { generation_output: { a: 1 } } }
      })
      assert.deepStrictEqual(issues(objectOutput), [{ loc: ["body", "test_case_evaluation_data", "generation_output"], type: "value_error" }])
      const notArray = yield* request("POST", `${base}/test-case-results/batch`, { key: caller.key, body: { items: [] } })
      assert.strictEqual(notArray.status, 422)
      const tooMany = yield* request("POST", `${base}/test-case-results/batch`, {
        key: caller.key,
        body: Array.from({ length: 1001 }, () => f.resultBody(f.testCases[0]!))
      })
      assert.strictEqual(tooMany.status, 422)
      const badSort = yield* request("GET", "/v4/evaluations?sort_by=nope:asc", { key: caller.key })
      assert.strictEqual(badSort.status, 422)
      const sorted = yield* request("GET", "/v4/evaluations?sort_by=name:asc,tags:desc", { key: caller.key })
      assert.strictEqual(sorted.status, 200)
    }))
  it.effect("the judge's answers are llm_auto annotation results; hybrid metrics compare them with people's", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const f = yield* fixture(caller, 3)
      const human = yield* f.post("/v4/evaluation-configs", { account_id: caller.accountId, evaluation_type: "human", question_set_id: f.set })
      const evaluation = yield* f.post("/v4/evaluations", {
        account_id: caller.accountId,
        application_spec_id: f.spec,
        name: "hybrid",
        description: "people and the judge",
        evaluation_config_id: human.id
      })
      const base = `/v4/evaluations/${evaluation.id}`
      const batch = yield* request("POST", `${base}/test-case-results/batch`, { key: caller.key, body: f.testCases.map((id) => f.resultBody(id)) })
      const [a, b, c] = batch.body.map((r: any) => r.id as string)
      const repo = yield* TestCaseResultsRepo
      const judged = (choice: string) => [{
        question_id: f.question,
        selected_choice: new SelectedChoice({ label: choice, value: choice, audit_required: null }),
        prompt_tokens: 10,
        completion_tokens: 5,
        llm_reasoning: "because",
        time_elapsed_s: 2
      }]
      // the judge agrees on a, disagrees on b, and does not answer c; it sets a's label
      const recorded = yield* repo.recordJudgement(evaluation.id, caller.accountId, a!, judged("yes"), { result: { [f.question]: "yes" } })
      assert.deepStrictEqual(recorded.result, { [f.question]: "yes" })
      yield* repo.recordJudgement(evaluation.id, caller.accountId, b!, judged("yes"))
      for (const id of [a, b, c]) {
        const answered = yield* request("PATCH", `${base}/test-case-results/${id}`, { key: caller.key, body: { result: { [f.question]: id === b ? "no" : "yes" } } })
        assert.strictEqual(answered.status, 200)
      }
      const viewed = yield* request("GET", `${base}/test-case-results/${a}?view=AnnotationResults`, { key: caller.key })
      const [llm, person] = viewed.body.annotation_results
      assert.strictEqual(llm.annotation_type, "llm_auto")
      assert.deepStrictEqual(llm.selected_choice, { label: "yes", value: "yes", audit_required: null })
      assert.deepStrictEqual(llm.llm_auto_eval_metadata, {
        annotation_result_id: llm.id,
        prompt_tokens: 10,
        completion_tokens: 5,
        llm_reasoning: "because",
        time_elapsed_s: 2,
        cost: null
      })
      assert.strictEqual(person.annotation_type, "human")
      // the judge's write is a version of its own: created 1, judged 2, answered 3
      const v2 = yield* request("GET", `${base}/test-case-results/${a}/history/2`, { key: caller.key })
      assert.deepStrictEqual(v2.body.result, { [f.question]: "yes" })
      assert.strictEqual((yield* request("GET", `${base}/test-case-results/${a}/history/3`, { key: caller.key })).status, 200)

      const hybrid = yield* request("GET", `${base}/hybrid-eval-metrics`, { key: caller.key })
      assert.deepStrictEqual(hybrid.body, {
        all_question_info: {
          [f.question]: {
            question_title: "Correct?",
            question_type: "categorical",
            evaluation_question: "Is the answer correct?",
            is_conditional_question: false,
            choices: [{ label: "Yes", value: "yes", audit_required: false }, { label: "No", value: "no", audit_required: true }],
            agreement_rate: 50,
            num_correct: 1,
            num_wrong: 1,
            num_inconclusive: 1,
            num_free_text: 0,
            total_time: 4,
            total_tokens: 30
          }
        }
      })

      // a human evaluation (no results yet) can be made hybrid; the config view says so
      const other = yield* f.post("/v4/evaluations", {
        account_id: caller.accountId,
        application_spec_id: f.spec,
        name: "to hybrid",
        description: "d",
        evaluation_config_id: human.id
      })
      const made = yield* request("PATCH", `/v4/evaluations/${other.id}`, { key: caller.key, body: { evaluation_type: "llm_benchmark", tags: { a: 1 } } })
      assert.strictEqual(made.status, 200)
      assert.deepStrictEqual(made.body.tags, { a: 1 })
      const expanded = yield* request("GET", `/v4/evaluations/${other.id}?view=EvaluationConfig`, { key: caller.key })
      assert.strictEqual(expanded.body.evaluation_config_expanded.evaluation_type, "llm_benchmark")
    }).pipe(Effect.provide(TestCaseResultsRepo.Default)))
})
