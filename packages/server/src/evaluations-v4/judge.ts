/**
 * The judge of v4 evaluations (docs/evaluations.md "Builder evaluations and the judge"): the
 * answers of an `llm_auto` or `llm_benchmark` evaluation's config to each question of its question
 * set, per test case result. A question is answered by the model the config's
 * `auto_evaluation_model` names when the kit serves one by that name (a model server alias, a
 * deployment id, a registered model's id or name: models/inference/ModelResolver.ts), else by the
 * BUILT-IN JUDGE, which calls no model:
 *
 * - its score of an output is 1 when the output's text equals the expected output (trimmed, case
 *   ignored), else their token-overlap F1 (applications/reports/judge.ts); without an expected
 *   output, the share of the input's words the output contains; with neither, 0;
 * - categorical: the choice that score picks (numeric choice values: the nearest to the score on
 *   their range; yes/no-like values: the positive one from 0.5 up; else the choices in their order
 *   as best to worst); rating: 1 + the score over the scale's steps; number: the score on the
 *   question's range (0 to 1 without one); free_text: the reason in a sentence. Other question
 *   types (form, timestamp) are left unanswered.
 *
 * Answers go into the result's `result` (question id → value) and one `llm_auto` annotation
 * result per question with `llm_auto_eval_metadata` (tokens, seconds, reasoning; the built-in
 * judge's tokens are 0: it runs no model).
 */
import { SqlClient } from "@effect/sql"
import type { LabelStatus, Question, ResultAnswers, SelectedChoiceValue, TestCase } from "@platform-kit/schema"
import { Cause, Clock, Data, Effect, Either, Option } from "effect"
import { inputCoverage, tokenF1 } from "../applications/reports/judge.js"
import type { LifecycleEntity } from "../engine/Lifecycles.js"
import { TestCasesRepo } from "../evaluation-datasets/TestCasesRepo.js"
import { recorded, type UsageCaller } from "../models/inference/metered.js"
import { ModelResolver } from "../models/inference/ModelResolver.js"
import type { Provider } from "../models/inference/Provider.js"
import { ModelUsageRepo } from "../models/usage/ModelUsageRepo.js"
import { Ids } from "../platform/Ids.js"
import { QuestionSetsRepo } from "../question-sets/QuestionSetsRepo.js"
import { EvaluationsV4Repo, needsJudge } from "./EvaluationsV4Repo.js"
import { type JudgeAnswer, type StoredTestCaseResultV4, TestCaseResultsRepo } from "./TestCaseResultsRepo.js"
import { buildJobType, EvaluationJobsRepo, type JobStatus, judgeJobType, StoredEvaluationJob } from "./workflow.js"

/** What a question is answered with: the value `result` keeps, and the annotation's selected choice. */
export type AnswerValue = string | number | boolean | ReadonlyArray<string | number | boolean>
export type SelectedChoice =
  | { readonly label: string; readonly value: string; readonly audit_required: boolean }
  | ReadonlyArray<{ readonly label: string; readonly value: string; readonly audit_required: boolean }>
  | string
  | number

export interface Answer {
  readonly question_id: string
  readonly value: AnswerValue
  readonly selected_choice: SelectedChoice
  readonly reasoning: string
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly time_elapsed_s: number
}

/** What a question is judged on: the test case's input and expected output, and the output, as text. */
export interface Judged {
  readonly input: string | undefined
  readonly expected: string | undefined
  readonly output: string
}

/** The questions a judge answers (a form or timestamp question is for people). */
export const answerable = (question: Question) =>
  question.type === "categorical" || question.type === "rating" || question.type === "number" || question.type === "free_text"

/** A value as text: a string as it is, anything else as JSON. */
export const asText = (value: unknown): string | undefined =>
  value === undefined || value === null ? undefined : typeof value === "string" ? value : JSON.stringify(value)

const round4 = (n: number) => Math.round(n * 10000) / 10000

/** The built-in judge's score of the output (0 to 1), and why. */
export const builtinScore = ({ expected, input, output }: Judged): { readonly score: number; readonly why: string } => {
  if (expected !== undefined) {
    if (output.trim().toLowerCase() === expected.trim().toLowerCase()) {
      return { score: 1, why: "The output equals the expected output" }
    }
    const f1 = tokenF1(output, expected)
    return { score: f1, why: `Token-overlap F1 of the output and the expected output: ${f1}` }
  }
  const coverage = input === undefined ? undefined : inputCoverage(output, input)
  if (coverage !== undefined) {
    return { score: coverage, why: `No expected output; share of the input's words found in the output: ${coverage}` }
  }
  return { score: 0, why: "No expected output and no input words to compare the output with" }
}

const positive = new Set(["yes", "true", "correct", "pass", "passed", "good", "right", "accurate", "y", "1"])
const negative = new Set(["no", "false", "incorrect", "fail", "failed", "bad", "wrong", "inaccurate", "n", "0"])

type Choice = NonNullable<Question["choices"]>[number]

/** The choice a score (0 to 1) picks among `choices` (see the module's comment). */
export const choiceFor = (choices: ReadonlyArray<Choice>, score: number): Choice => {
  const numbers = choices.map((choice) => Number(choice.value))
  if (choices.length > 1 && numbers.every((n) => Number.isFinite(n) && choices.every((c) => c.value.trim() !== ""))) {
    const low = Math.min(...numbers)
    const high = Math.max(...numbers)
    const target = low + score * (high - low)
    let best = 0
    for (let i = 1; i < numbers.length; i++) if (Math.abs(numbers[i]! - target) < Math.abs(numbers[best]! - target)) best = i
    return choices[best]!
  }
  const word = (choice: Choice) => choice.value.trim().toLowerCase()
  const yes = choices.find((choice) => positive.has(word(choice)) || positive.has(choice.label.trim().toLowerCase()))
  const no = choices.find((choice) => negative.has(word(choice)) || negative.has(choice.label.trim().toLowerCase()))
  if (yes !== undefined && no !== undefined) return score >= 0.5 ? yes : no
  return choices[Math.round((1 - score) * (choices.length - 1))]!
}

/** The built-in judge's answer to `question` (an answerable one). */
export const builtinAnswer = (question: Question, judged: Judged): Answer => {
  const { score, why } = builtinScore(judged)
  const base = { question_id: question.id, prompt_tokens: 0, completion_tokens: 0, time_elapsed_s: 0 }
  const reasoning = `Built-in judge (no language model): ${why}.`
  switch (question.type) {
    case "categorical": {
      const choices = question.choices ?? []
      if (choices.length === 0) return { ...base, value: why, selected_choice: why, reasoning }
      const choice = choiceFor(choices, score)
      const selected = { label: choice.label, value: choice.value, audit_required: choice.audit_required }
      return question.multi === true
        ? { ...base, value: [choice.value], selected_choice: [selected], reasoning }
        : { ...base, value: choice.value, selected_choice: selected, reasoning }
    }
    case "rating": {
      const steps = question.ratingOptions?.scaleSteps ?? 5
      const rating = 1 + Math.round(score * (steps - 1))
      return { ...base, value: rating, selected_choice: rating, reasoning }
    }
    case "number": {
      const min = question.numberOptions?.min ?? null
      const max = question.numberOptions?.max ?? null
      const number = min !== null && max !== null ? round4(min + score * (max - min)) : round4(score)
      return { ...base, value: number, selected_choice: number, reasoning }
    }
    default:
      return { ...base, value: why, selected_choice: why, reasoning }
  }
}

// ---------------------------------------------------------------------------------------------
// A model as the judge

/** The prompt asking a model to answer `question` on `judged`: one JSON object back. */
export const judgePrompt = (question: Question, judged: Judged): string => {
  const lines = [
    "You are evaluating the output of an AI application for a test case.",
    `Question: ${question.title}`,
    question.prompt === "" ? "" : `Instructions: ${question.prompt}`,
    judged.input === undefined ? "" : `Input:\n${judged.input}`,
    judged.expected === undefined ? "" : `Expected output:\n${judged.expected}`,
    `Output:\n${judged.output}`
  ]
  const form = question.type === "categorical"
    ? `"answer" one of the values ${JSON.stringify((question.choices ?? []).map((choice) => choice.value))}`
    : question.type === "rating"
    ? `"answer" an integer from 1 to ${question.ratingOptions?.scaleSteps ?? 5}`
    : question.type === "number"
    ? `"answer" a number${question.numberOptions?.min != null && question.numberOptions?.max != null ? ` from ${question.numberOptions.min} to ${question.numberOptions.max}` : ""}`
    : `"answer" a short text`
  lines.push(`Reply with one JSON object only: {"answer": ..., "reasoning": "..."}, ${form}.`)
  return lines.filter((line) => line !== "").join("\n\n")
}

/** The model's reply read as `{answer, reasoning}`: its JSON object, else the whole text as the answer. */
const replyOf = (text: string): { readonly answer: unknown; readonly reasoning: string } => {
  const start = text.indexOf("{")
  const end = text.lastIndexOf("}")
  if (start >= 0 && end > start) {
    try {
      const parsed = JSON.parse(text.slice(start, end + 1)) as Record<string, unknown>
      if (parsed !== null && typeof parsed === "object" && "answer" in parsed) {
        return { answer: parsed.answer, reasoning: typeof parsed.reasoning === "string" ? parsed.reasoning : "" }
      }
    } catch {
      // not JSON: the text is the answer
    }
  }
  return { answer: text.trim(), reasoning: "" }
}

/**
 * A model's reply as the answer to `question`; a string saying why when it cannot be one (a
 * categorical answer that is none of the choices, a rating or number that is not a number).
 */
export const modelAnswer = (
  question: Question,
  text: string,
  counts: { readonly prompt_tokens: number; readonly completion_tokens: number; readonly time_elapsed_s: number }
): Answer | string => {
  const { answer, reasoning } = replyOf(text)
  const base = { question_id: question.id, ...counts, reasoning: reasoning === "" ? text.trim() : reasoning }
  switch (question.type) {
    case "categorical": {
      const given = (Array.isArray(answer) ? answer : [answer]).map((value) => String(value).trim().toLowerCase())
      const picked = (question.choices ?? []).filter((choice) =>
        given.includes(choice.value.trim().toLowerCase()) || given.includes(choice.label.trim().toLowerCase()))
      if (picked.length === 0) return `The judge's answer ${JSON.stringify(answer)} to question ${question.id} is none of its choices`
      const selected = picked.map((choice) => ({ label: choice.label, value: choice.value, audit_required: choice.audit_required }))
      return question.multi === true
        ? { ...base, value: picked.map((choice) => choice.value), selected_choice: selected }
        : { ...base, value: picked[0]!.value, selected_choice: selected[0]! }
    }
    case "rating":
    case "number": {
      const number = typeof answer === "number" ? answer : Number(String(answer).trim())
      if (!Number.isFinite(number)) return `The judge's answer ${JSON.stringify(answer)} to question ${question.id} is not a number`
      return { ...base, value: number, selected_choice: number }
    }
    default: {
      const value = typeof answer === "string" ? answer : JSON.stringify(answer)
      return { ...base, value, selected_choice: value }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The judge's steps (./build.ts runs them on the engine)

/** What the judge's answers change in a result (llm_auto: its answers and COMPLETED; llm_benchmark: nothing). */
type JudgementUpdate = { readonly result?: ResultAnswers; readonly label_status?: LabelStatus }

/** Why a result could not be judged: kept in the judge job's `job_metadata.failures`. */
class JudgeFailed extends Data.TaggedError("JudgeFailed")<{ readonly reason: string }> {}

interface JudgeMetadata {
  readonly runs: number
  readonly model: string | null
  readonly failures: Readonly<Record<string, string>>
}

const judgeMetadataOf = (job: StoredEvaluationJob): JudgeMetadata => {
  const stored = (job.job_metadata ?? {}) as Partial<JudgeMetadata>
  return { runs: Number(stored.runs ?? 0), model: stored.model ?? null, failures: stored.failures ?? {} }
}

/** The first line of a cause, as a reason. */
export const reasonOfCause = (cause: Cause.Cause<unknown>) => Cause.pretty(cause).split("\n")[0] ?? "the step failed"

export class EvaluationJudging extends Effect.Service<EvaluationJudging>()("@platform-kit/server/EvaluationV4Judging", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const evaluations = yield* EvaluationsV4Repo
    const results = yield* TestCaseResultsRepo
    const questionSets = yield* QuestionSetsRepo
    const testCases = yield* TestCasesRepo
    const resolver = yield* ModelResolver
    const jobs = yield* EvaluationJobsRepo
    const ids = yield* Ids
    const usage = yield* ModelUsageRepo

    /**
     * The results of the evaluation still waiting for the judge, oldest first: not archived, not
     * FAILED, without an `llm_auto` answer, and not a failure of the judge already.
     */
    const waiting = (evaluationId: string, failures: Readonly<Record<string, string>>) =>
      Effect.map(
        sql<{ id: string }>`SELECT r.id FROM evaluation_v4_results r
          WHERE r.evaluation_id = ${evaluationId} AND r.archived_at IS NULL AND r.label_status <> 'FAILED'
          AND NOT EXISTS (SELECT 1 FROM evaluation_v4_annotation_results a
            WHERE a.test_case_result_id = r.id AND a.annotation_type = 'llm_auto')
          ORDER BY r.created_at, r.id`.pipe(Effect.orDie),
        (rows) => rows.map((row) => row.id).filter((id) => failures[id] === undefined)
      )

    /** The results among `resultIds` still waiting for the judge (as `waiting` says of each): one query. */
    const waitingAmong = (evaluationId: string, resultIds: ReadonlyArray<string>, failures: Readonly<Record<string, string>>) =>
      resultIds.length === 0
        ? Effect.succeed(new Set<string>() as ReadonlySet<string>)
        : Effect.map(
          sql<{ id: string }>`SELECT r.id FROM evaluation_v4_results r
            WHERE r.evaluation_id = ${evaluationId} AND r.id IN ${sql.in(resultIds)} AND r.archived_at IS NULL AND r.label_status <> 'FAILED'
            AND NOT EXISTS (SELECT 1 FROM evaluation_v4_annotation_results a
              WHERE a.test_case_result_id = r.id AND a.annotation_type = 'llm_auto')`.pipe(Effect.orDie),
          (rows): ReadonlySet<string> => new Set(rows.map((row) => row.id).filter((id) => failures[id] === undefined))
        )

    /** The judge's failures so far (result id → reason). */
    const failuresOf = (entity: LifecycleEntity) =>
      Effect.map(jobs.find(entity.id, entity.account_id, judgeJobType), (job) =>
        Option.match(job, { onNone: () => ({}), onSome: (j) => judgeMetadataOf(j).failures }))

    /** How many results of the evaluation have the judge's answers. */
    const judgedCount = (evaluationId: string) =>
      Effect.map(
        sql<{ n: number }>`SELECT COUNT(DISTINCT test_case_result_id) AS n FROM evaluation_v4_annotation_results
          WHERE evaluation_id = ${evaluationId} AND annotation_type = 'llm_auto'`.pipe(Effect.orDie),
        (rows) => Number(rows[0]?.n ?? 0)
      )

    /** The judge job with `metadata` and its progress recounted, as `status` (unchanged when absent). */
    const recounted = (job: StoredEvaluationJob, metadata: JudgeMetadata, status?: JobStatus) =>
      Effect.gen(function*() {
        const pending = (yield* waiting(job.evaluation_id, metadata.failures)).length
        const completed = yield* judgedCount(job.evaluation_id)
        return new StoredEvaluationJob({
          ...job,
          status: status ?? job.status,
          job_metadata: { ...metadata },
          progress: { completed, failed: Object.keys(metadata.failures).length, pending }
        }, true)
      })

    /**
     * The judge job with results no longer waiting: `completed` judged, the failed ones in
     * `metadata.failures`. Within a run the progress moves by each step's results (a recount reads
     * every result of the evaluation: once a result, a run of n results cost O(n²)); a run's start
     * and end recount it.
     */
    const advanced = (job: StoredEvaluationJob, metadata: JudgeMetadata, completed: number, failed: number) => {
      const progress = (job.progress ?? {}) as { completed?: number; pending?: number }
      return new StoredEvaluationJob({
        ...job,
        job_metadata: { ...metadata },
        progress: {
          completed: (progress.completed ?? 0) + completed,
          failed: Object.keys(metadata.failures).length,
          pending: Math.max(0, (progress.pending ?? 0) - completed - failed)
        }
      }, true)
    }

    const changeJob = (entity: LifecycleEntity, next: (job: StoredEvaluationJob) => Effect.Effect<StoredEvaluationJob>) =>
      jobs.change(entity.id, entity.account_id, judgeJobType, (found) =>
        Option.isNone(found) ? Effect.succeedNone : Effect.asSome(next(found.value)))

    /** The run `Running` (its job's progress recounted); answers the results waiting for the judge. */
    const start = (entity: LifecycleEntity) =>
      Effect.gen(function*() {
        const job = yield* jobs.find(entity.id, entity.account_id, judgeJobType)
        if (Option.isNone(job)) return [] as ReadonlyArray<string>
        const metadata = judgeMetadataOf(job.value)
        yield* changeJob(entity, (current) => recounted(current, judgeMetadataOf(current), "Running"))
        return yield* waiting(entity.id, metadata.failures)
      })

    /** The provider that answers as the judge: the config's model when the kit serves one by that name, else none (the built-in judge). */
    const judgeModel = (model: string | null, accountId: string, caller: UsageCaller) =>
      model === null
        ? Effect.succeed(Option.none<{ readonly provider: Provider; readonly name: string }>())
        : resolver.resolve(model, [accountId]).pipe(
          Effect.map(({ deployment, provider }) => Option.some({ provider: recorded({ ids, usage }, provider, deployment, caller), name: model })),
          Effect.catchTag("NotFound", () => Effect.succeedNone),
          Effect.catchTag("Conflict", (conflict) => Effect.fail(new JudgeFailed({ reason: `The judge model ${model}: ${conflict.detail}` })))
        )

    /**
     * The test cases the results were made for, as their dataset versions hold them (else as they
     * are now), by result id: one query per dataset version among them (one a step of a build's
     * results), one read a result for those no version holds.
     */
    const testCasesOf = (found: ReadonlyArray<StoredTestCaseResultV4>) =>
      Effect.gen(function*() {
        const byVersion = new Map<string, { datasetId: string; num: number; testCaseIds: Array<string> }>()
        for (const result of found) {
          const num = Number(result.evaluation_dataset_version_num)
          if (!Number.isInteger(num)) continue
          const key = `${result.evaluation_dataset_id} ${num}`
          const entry = byVersion.get(key) ?? { datasetId: result.evaluation_dataset_id, num, testCaseIds: [] }
          entry.testCaseIds.push(result.test_case_id)
          byVersion.set(key, entry)
        }
        const atVersions = new Map(yield* Effect.forEach(byVersion, ([key, { datasetId, num, testCaseIds }]) =>
          Effect.map(results.testCasesAt(datasetId, num, testCaseIds), (cases) => [key, cases] as const)))
        const byResult = new Map<string, Option.Option<TestCase>>()
        yield* Effect.forEach(found, (result) =>
          Effect.gen(function*() {
            const atVersion = atVersions.get(`${result.evaluation_dataset_id} ${Number(result.evaluation_dataset_version_num)}`)?.get(result.test_case_id)
            byResult.set(
              result.id,
              atVersion !== undefined ? Option.some(atVersion) : yield* testCases.findById(result.test_case_id, [result.account_id])
            )
          }), { discard: true })
        return byResult as ReadonlyMap<string, Option.Option<TestCase>>
      })

    /** The answers to every question, or why there are none (nothing is written until all are there). */
    const answersFor = (
      result: StoredTestCaseResultV4,
      testCase: Option.Option<TestCase>,
      questions: ReadonlyArray<Question>,
      judge: Option.Option<{ readonly provider: Provider; readonly name: string }>,
      temperature: number
    ) =>
      Effect.gen(function*() {
        const data: Record<string, unknown> = Option.match(testCase, { onNone: () => ({}), onSome: (found) => found.test_case_data as Record<string, unknown> })
        const judged: Judged = {
          input: asText(data.input),
          expected: asText(data.expected_output),
          output: asText(result.test_case_evaluation_data.generation_output) ?? ""
        }
        return yield* Effect.forEach(questions, (question) =>
          Option.match(judge, {
            onNone: () => Effect.succeed(builtinAnswer(question, judged)),
            onSome: ({ name, provider }) =>
              Effect.gen(function*() {
                const started = yield* Clock.currentTimeMillis
                const generation = yield* provider.chat([{ role: "user", content: judgePrompt(question, judged) }], { temperature }).pipe(
                  Effect.mapError((error) => new JudgeFailed({ reason: `The judge model ${name} failed: ${error.detail}` }))
                )
                const elapsed = (yield* Clock.currentTimeMillis) - started
                const answer = modelAnswer(question, generation.text, {
                  prompt_tokens: generation.prompt_tokens,
                  completion_tokens: generation.response_tokens,
                  time_elapsed_s: Math.round(elapsed / 1000)
                })
                return typeof answer === "string" ? yield* Effect.fail(new JudgeFailed({ reason: answer })) : answer
              })
          }))
      })

    /**
     * Writes a step's judgements in one transaction (the results' answers, or FAILED with the
     * judge's reason in `failures`), only of the results still waiting for the judge then (read
     * with the evaluation's row locked: a step run again, or two runs at once, write each once),
     * and moves the judge job's progress once.
     */
    const writeJudgements = (
      entity: LifecycleEntity,
      judged: ReadonlyArray<{ readonly resultId: string; readonly answers: ReadonlyArray<JudgeAnswer>; readonly update: JudgementUpdate }>,
      failed: ReadonlyArray<readonly [resultId: string, reason: string]>
    ) =>
      sql.withTransaction(Effect.gen(function*() {
        const failures = new Map(failed)
        const written = new Set(
          yield* results.recordJudgements(
            entity.id,
            entity.account_id,
            [...judged, ...failed.map(([resultId]) => ({ resultId, answers: [], update: { label_status: "FAILED" as const } }))],
            (resultIds) => Effect.flatMap(failuresOf(entity), (known) => waitingAmong(entity.id, resultIds, known))
          )
        )
        if (written.size === 0) return
        yield* changeJob(entity, (job) => {
          const metadata = judgeMetadataOf(job)
          const newly = Object.fromEntries([...failures].filter(([resultId]) => written.has(resultId)))
          return Effect.succeed(advanced(
            job,
            { ...metadata, failures: { ...metadata.failures, ...newly } },
            judged.filter(({ resultId }) => written.has(resultId)).length,
            Object.keys(newly).length
          ))
        })
      })).pipe(Effect.catchTags({ NotFound: () => Effect.void, Conflict: () => Effect.void }), Effect.orDie)

    /**
     * Judges a step's results, those still waiting for the judge (one query; none when the
     * evaluation is not judged by a model): the evaluation, its question set, the judge model and
     * the results' test cases read once; every answer of every result first (a result whose answers
     * fail, its model's call or reply, fails alone), then all of them in one transaction
     * (`writeJudgements`; llm_auto: each result COMPLETED with its answers in `result`;
     * llm_benchmark: the annotation results only, the result left to people).
     */
    const judgeResults = (entity: LifecycleEntity, resultIds: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const found = yield* Effect.option(evaluations.withConfig(entity.id, [entity.account_id]))
        if (Option.isNone(found)) return
        const { config, evaluation, evaluationType } = found.value
        if (evaluation.archived_at !== null || !needsJudge(evaluationType) || Option.isNone(config)) return
        const open = yield* waitingAmong(evaluation.id, resultIds, yield* failuresOf(entity))
        if (open.size === 0) return
        const stored = yield* results.findNarrowed([evaluation.account_id], [sql`evaluation_id = ${evaluation.id}`, sql.in("id", [...open])])
        const byId = new Map(stored.map((result) => [result.id, result]))
        const todo = resultIds.flatMap((id) => open.has(id) && byId.has(id) ? [byId.get(id)!] : [])
        const judgeOf = yield* Effect.gen(function*() {
          const set = yield* questionSets.withQuestions(config.value.question_set_id, [evaluation.account_id]).pipe(
            Effect.mapError(() => new JudgeFailed({ reason: `Question set ${config.value.question_set_id} of the evaluation config not found` }))
          )
          const caller = { account_id: evaluation.account_id, caller_id: evaluation.created_by_user_id, caller_type: evaluation.created_by_identity_type }
          const judge = yield* judgeModel(config.value.auto_evaluation_model, evaluation.account_id, caller)
          const temperature = config.value.auto_evaluation_parameters?.temperature ?? 0
          return { questions: set.questions.filter(answerable), judge, temperature } as const
        }).pipe(Effect.either)
        const cases = yield* testCasesOf(todo)
        const judged: Array<{ resultId: string; answers: ReadonlyArray<JudgeAnswer>; update: JudgementUpdate }> = []
        const failed: Array<readonly [string, string]> = []
        yield* Effect.forEach(todo, (result) =>
          Effect.gen(function*() {
            if (Either.isLeft(judgeOf)) return failed.push([result.id, judgeOf.left.reason])
            const { judge, questions, temperature } = judgeOf.right
            const answered = yield* Effect.either(answersFor(result, cases.get(result.id) ?? Option.none(), questions, judge, temperature))
            if (Either.isLeft(answered)) return failed.push([result.id, answered.left.reason])
            const answers = answered.right
            return judged.push({
              resultId: result.id,
              answers: answers.map((answer) => ({
                question_id: answer.question_id,
                selected_choice: answer.selected_choice as SelectedChoiceValue,
                prompt_tokens: answer.prompt_tokens,
                completion_tokens: answer.completion_tokens,
                llm_reasoning: answer.reasoning,
                time_elapsed_s: answer.time_elapsed_s
              })),
              update: evaluationType === "llm_auto"
                ? { result: Object.fromEntries(answers.map((answer) => [answer.question_id, answer.value])) as ResultAnswers, label_status: "COMPLETED" }
                : {}
            })
          }), { discard: true })
        yield* writeJudgements(entity, judged, failed)
      })

    /** A step that kept failing (`retried`): its results still waiting recorded as the judge's failures. */
    const resultsFailed = (entity: LifecycleEntity, resultIds: ReadonlyArray<string>, cause: Cause.Cause<unknown>) =>
      Effect.gen(function*() {
        const open = yield* waitingAmong(entity.id, resultIds, yield* failuresOf(entity))
        const reason = reasonOfCause(cause)
        yield* writeJudgements(entity, [], resultIds.filter((id) => open.has(id)).map((id) => [id, reason] as const))
      })

    /**
     * The end of run `entity.run`: the job `Completed`, or `Failed` when a result failed; left to a
     * later run when there is one. A builder evaluation whose build failed stays FAILED.
     */
    const finish = (entity: LifecycleEntity) =>
      Effect.gen(function*() {
        yield* changeJob(entity, (job) => {
          const metadata = judgeMetadataOf(job)
          if (metadata.runs > (entity.run ?? 0)) return Effect.succeed(job)
          return recounted(job, metadata, Object.keys(metadata.failures).length > 0 ? "Failed" : "Completed")
        })
        const build = yield* jobs.find(entity.id, entity.account_id, buildJobType)
        if (Option.isSome(build) && build.value.status === "Failed") {
          yield* evaluations.setStatus(entity.id, entity.account_id, "FAILED").pipe(Effect.catchTag("NotFound", () => Effect.void))
        }
      })

    /** The run stopped on an error: its job `Failed` with the reason. */
    const giveUp = (entity: LifecycleEntity, cause: Cause.Cause<unknown>) =>
      Effect.orDie(changeJob(entity, (job) => {
        const metadata = judgeMetadataOf(job)
        return Effect.succeed(new StoredEvaluationJob({ ...job, status: "Failed", job_metadata: { ...metadata, reason: reasonOfCause(cause) } }, true))
      }))

    return { start, judgeResults, resultsFailed, finish, giveUp, waiting } as const
  })
}) {}
