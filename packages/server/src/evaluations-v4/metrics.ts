/**
 * The metrics of a v4 evaluation, computed from its stored results and annotation results when
 * asked (docs/evaluations.md "v4 metrics": the formulas). Percentages are from 0 to 100, and 0
 * when there is nothing to divide by. The archived results are left out.
 */
import {
  ContributorMetrics,
  EvaluationV4Metrics,
  HybridEvaluationMetrics,
  HybridQuestionInfo,
  type Question,
  type SelectedChoice,
  type SelectedChoiceValue
} from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { QuestionSetsRepo } from "../question-sets/QuestionSetsRepo.js"
import type { StoredEvaluationV4 } from "./EvaluationsV4Repo.js"
import type { StoredAnnotationResult, StoredTestCaseResultV4 } from "./TestCaseResultsRepo.js"
import { TestCaseResultsRepo } from "./TestCaseResultsRepo.js"

const percent = (part: number, whole: number) => whole === 0 ? 0 : (100 * part) / whole
const ratio = (part: number, whole: number) => whole === 0 ? 0 : part / whole
const labelled = (result: StoredTestCaseResultV4) => result.label_status === "COMPLETED"

/**
 * The evaluation's counts: results (`num_total_test_cases`), labelled ones (COMPLETED), flagged
 * ones (`audit_required`), by audit status of the labelled ones (none given counts as UNAUDITED);
 * the mean `time_spent_labeling_s` of the labelled ones that give it; labelled ones per day over
 * the UTC days from the first labelled result's `completed_at` to the last's (at least one).
 */
export const evaluationMetricsOf = (evaluation: StoredEvaluationV4, results: ReadonlyArray<StoredTestCaseResultV4>) => {
  const done = results.filter(labelled)
  const audit = (status: string) => done.filter((result) => (result.audit_status ?? "UNAUDITED") === status).length
  const timed = done.flatMap((result) => result.time_spent_labeling_s === null ? [] : [result.time_spent_labeling_s])
  const days = done.flatMap((result) => result.completed_at === null ? [] : [Math.floor(Date.parse(result.completed_at) / 86_400_000)])
  const span = days.length === 0 ? 0 : Math.max(...days) - Math.min(...days) + 1
  const [approved, fixed, unaudited] = [audit("APPROVED"), audit("FIXED"), audit("UNAUDITED")]
  return new EvaluationV4Metrics({
    evaluation_id: evaluation.id,
    avg_labeling_time_per_test_case: ratio(timed.reduce((a, b) => a + b, 0), timed.length),
    avg_num_test_cases_labeled_per_day: ratio(done.length, span),
    num_total_test_cases: results.length,
    num_test_cases_labeled: done.length,
    num_test_cases_flagged: results.filter((result) => result.audit_required === true).length,
    num_test_cases_approved: approved,
    num_test_cases_fixed: fixed,
    num_test_cases_unaudited: unaudited,
    percentage_test_cases_approved: percent(approved, done.length),
    percentage_test_cases_fixed: percent(fixed, done.length),
    percentage_test_cases_unaudited: percent(unaudited, done.length)
  }, true)
}

/**
 * One item per user who labelled a result (COMPLETED, `annotated_by_user_id`), by user id: how
 * many, how many of those auditors fixed (`audit_status` FIXED) and its percentage, the time spent
 * (`time_spent_labeling_s` summed) and its mean over the results labelled.
 */
export const contributorMetricsOf = (evaluation: StoredEvaluationV4, results: ReadonlyArray<StoredTestCaseResultV4>) => {
  const byUser = new Map<string, Array<StoredTestCaseResultV4>>()
  for (const result of results) {
    if (!labelled(result) || result.annotated_by_user_id === null) continue
    byUser.set(result.annotated_by_user_id, [...(byUser.get(result.annotated_by_user_id) ?? []), result])
  }
  return [...byUser.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([user, labelledBy]) => {
    const fixed = labelledBy.filter((result) => result.audit_status === "FIXED").length
    const time = labelledBy.reduce((sum, result) => sum + (result.time_spent_labeling_s ?? 0), 0)
    return new ContributorMetrics({
      evaluation_id: evaluation.id,
      annotated_by_user_id: user,
      total_num_test_cases_labeled: labelledBy.length,
      num_test_cases_fixed: fixed,
      percentage_test_cases_fixed: percent(fixed, labelledBy.length),
      total_time_spent_labeling_sec: time,
      avg_time_spent_labeling_sec: ratio(time, labelledBy.length)
    }, true)
  })
}

/** What an answer says, for comparing two: a choice by its value, several by their sorted values. */
const meaningOf = (choice: SelectedChoiceValue): string => {
  if (typeof choice === "string" || typeof choice === "number") return JSON.stringify(String(choice))
  if (Array.isArray(choice)) return JSON.stringify((choice as ReadonlyArray<SelectedChoice>).map((c) => String(c.value)).sort())
  return JSON.stringify(String((choice as SelectedChoice).value))
}

/**
 * Per question: the latest `llm_auto` and the latest `human` answer of each result. A result with
 * both is correct when they mean the same (same choice value(s), same text or number), else
 * wrong; one with only one of the two is inconclusive; a free-text question's pairs are counted
 * in `num_free_text`, not compared. `agreement_rate` = correct / (correct + wrong) × 100;
 * `total_time` and `total_tokens` add up the judge's `time_elapsed_s` and its prompt and
 * completion tokens for the question. The questions are the config's question set's, then any
 * other question answered.
 */
export const hybridMetricsOf = (
  annotations: ReadonlyArray<StoredAnnotationResult>,
  questions: ReadonlyArray<Question>
) => {
  const latest = new Map<string, { llm?: StoredAnnotationResult; human?: StoredAnnotationResult }>()
  const questionIds = [...questions.map((q) => q.id)]
  for (const annotation of annotations) {
    if (!questionIds.includes(annotation.question_id)) questionIds.push(annotation.question_id)
    const key = `${annotation.question_id}\u0000${annotation.test_case_result_lineage_id}`
    const pair = latest.get(key) ?? {}
    // `annotations` come in the order they were written: the last one of each kind holds
    latest.set(key, annotation.annotation_type === "llm_auto" ? { ...pair, llm: annotation } : { ...pair, human: annotation })
  }
  const byId = new Map(questions.map((q) => [q.id, q]))
  const all_question_info: Record<string, HybridQuestionInfo> = {}
  for (const questionId of questionIds) {
    const question = byId.get(questionId)
    const freeText = question?.type === "free_text"
    let [correct, wrong, inconclusive, free, time, tokens] = [0, 0, 0, 0, 0, 0]
    for (const [key, pair] of latest) {
      if (!key.startsWith(`${questionId}\u0000`)) continue
      const metadata = pair.llm?.llm_auto_eval_metadata
      if (metadata) {
        time += metadata.time_elapsed_s
        tokens += metadata.prompt_tokens + metadata.completion_tokens
      }
      if (pair.llm === undefined || pair.human === undefined) inconclusive++
      else if (freeText) free++
      else if (meaningOf(pair.llm.selected_choice) === meaningOf(pair.human.selected_choice)) correct++
      else wrong++
    }
    all_question_info[questionId] = new HybridQuestionInfo({
      question_title: question?.title ?? "",
      question_type: question?.type ?? "",
      evaluation_question: question?.prompt ?? "",
      is_conditional_question: (question?.conditions?.length ?? 0) > 0,
      choices: question?.choices?.map((choice) => ({ ...choice })) ?? null,
      agreement_rate: percent(correct, correct + wrong),
      num_correct: correct,
      num_wrong: wrong,
      num_inconclusive: inconclusive,
      num_free_text: free,
      total_time: time,
      total_tokens: tokens
    }, true)
  }
  return new HybridEvaluationMetrics({ all_question_info }, true)
}

/** The questions the hybrid metrics list first: those of the config's question set, if stored. */
export const configQuestions = (evaluation: StoredEvaluationV4, questionSetId: string | null) =>
  questionSetId === null
    ? Effect.succeed<ReadonlyArray<Question>>([])
    : Effect.flatMap(QuestionSetsRepo, (sets) =>
      Effect.map(Effect.option(sets.withQuestions(questionSetId, [evaluation.account_id])), (found) =>
        Option.match(found, { onNone: () => [], onSome: (set) => set.questions })))

/** The hybrid metrics of the evaluation, read from its annotation results. */
export const hybridMetrics = (evaluation: StoredEvaluationV4, questionSetId: string | null) =>
  Effect.gen(function*() {
    const repo = yield* TestCaseResultsRepo
    const annotations = yield* repo.annotationsOfEvaluation(evaluation)
    const fromSet = yield* configQuestions(evaluation, questionSetId)
    const others = [...new Set(annotations.map((a) => a.question_id))].filter((id) => !fromSet.some((q) => q.id === id))
    const more = yield* repo.questionsOf(others, evaluation.account_id)
    return hybridMetricsOf(annotations, [...fromSet, ...more.values()])
  })
