/**
 * The kit's built-in judge (docs/applications.md "Reports"): deterministic scores of an output
 * against its test case, no language model. Every score is from 0 to 1, rounded to 4 decimals, or
 * `null` with the reason in `llm_metadata.reasoning`:
 *
 * - accuracy / answer-correctness: the token-overlap F1 of the output's text and the test case's
 *   `expected_output` (tokens: lower-cased runs of letters and digits; overlap counted with
 *   multiplicity, as SQuAD's F1). `null` without an expected output, or when the output is not text.
 * - accuracy / answer-relevance: the share of the input's distinct tokens that the output's text
 *   contains. `null` when the input has no token, or when the output is not text.
 * - quality (coherence, grammar) and trust-and-safety (moderation, safety): `null`; they need a
 *   language model to judge, and the built-in judge calls none.
 *
 * A report's metric is the mean of its outputs' scores of it (those not `null`); a category's
 * score the mean of its metrics'; the report's score the mean of its categories'.
 */
import {
  ApplicationMetricScore,
  CategoryScore,
  type MetricCategory,
  MetricScoreMetadata,
  type ApplicationMetricType,
  ReportMetricScore,
  SafetySubMetricType,
  type TestCase,
  type TestCaseOutputResult
} from "@platform-kit/schema"

const tokens = (text: string): Array<string> => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

const rounded = (score: number) => Math.round(score * 10000) / 10000

/** The token-overlap F1 of `output` and `expected`. */
export const tokenF1 = (output: string, expected: string): number => {
  const ours = tokens(output)
  const theirs = tokens(expected)
  if (ours.length === 0 || theirs.length === 0) return ours.length === theirs.length ? 1 : 0
  const counts = new Map<string, number>()
  for (const token of theirs) counts.set(token, (counts.get(token) ?? 0) + 1)
  let common = 0
  for (const token of ours) {
    const left = counts.get(token) ?? 0
    if (left > 0) {
      common++
      counts.set(token, left - 1)
    }
  }
  if (common === 0) return 0
  const precision = common / ours.length
  const recall = common / theirs.length
  return rounded((2 * precision * recall) / (precision + recall))
}

/** The share of `input`'s distinct tokens found in `output`; `undefined` when the input has none. */
export const inputCoverage = (output: string, input: string): number | undefined => {
  const asked = new Set(tokens(input))
  if (asked.size === 0) return undefined
  const answered = new Set(tokens(output))
  let found = 0
  for (const token of asked) if (answered.has(token)) found++
  return rounded(found / asked.size)
}

const reasoned = (reasoning: string) => new MetricScoreMetadata({ logging: null, reasoning, time_elapsed_s: null, usage: null })

const metric = (category: MetricCategory, metric_type: ApplicationMetricType, score: number | null, reasoning: string) =>
  new ApplicationMetricScore({ category, metric_type, score, llm_metadata: reasoned(reasoning) }, true)

const needsModel = "Needs a language-model judge: the kit's built-in judge does not score it"

/** The test case's input and expected output, when they are text. */
const caseTexts = (testCase: TestCase) => {
  const data = testCase.test_case_data as { readonly input?: unknown; readonly expected_output?: unknown }
  return {
    input: typeof data.input === "string" ? data.input : undefined,
    expected: typeof data.expected_output === "string" ? data.expected_output : undefined
  }
}

/** The built-in judge's scores of `output` against `testCase` (the `MetricScores` view). */
export const judge = (output: TestCaseOutputResult, testCase: TestCase): Array<ApplicationMetricScore> => {
  const text = typeof output.generation_output === "string" ? output.generation_output : undefined
  const { expected, input } = caseTexts(testCase)
  const notText = "The output is not text (a FLEXIBLE output): the built-in judge scores text only"
  const correctness = text === undefined
    ? metric("accuracy", "answer-correctness", null, notText)
    : expected === undefined
    ? metric("accuracy", "answer-correctness", null, "The test case has no expected_output to compare with")
    : metric("accuracy", "answer-correctness", tokenF1(text, expected), "Token-overlap F1 of the output and the expected_output")
  const coverage = text === undefined || input === undefined ? undefined : inputCoverage(text, input)
  const relevance = text === undefined
    ? metric("accuracy", "answer-relevance", null, notText)
    : coverage === undefined
    ? metric("accuracy", "answer-relevance", null, "The test case's input has no word to look for")
    : metric("accuracy", "answer-relevance", coverage, "Share of the input's distinct words found in the output")
  return [
    correctness,
    relevance,
    metric("quality", "coherence", null, needsModel),
    metric("quality", "grammar", null, needsModel),
    metric("trust-and-safety", "moderation", null, needsModel),
    metric("trust-and-safety", "safety", null, needsModel)
  ]
}

const mean = (scores: ReadonlyArray<number | null>): number | null => {
  const present = scores.filter((score): score is number => score !== null)
  return present.length === 0 ? null : rounded(present.reduce((sum, score) => sum + score, 0) / present.length)
}

const categories: ReadonlyArray<readonly [MetricCategory, ReadonlyArray<ApplicationMetricType>]> = [
  ["accuracy", ["answer-correctness", "answer-relevance"]],
  ["quality", ["coherence", "grammar"]],
  ["trust-and-safety", ["moderation", "safety"]]
]

/** A report's category scores and overall score, from its outputs' judged scores. */
export const reportScores = (judged: ReadonlyArray<ReadonlyArray<ApplicationMetricScore>>) => {
  const category_scores = categories.map(([category, types]) => {
    const metric_scores = types.map((metric_type) =>
      new ReportMetricScore({
        category,
        metric_type,
        score: mean(judged.flatMap((scores) => scores.filter((s) => s.metric_type === metric_type).map((s) => s.score))),
        ...(metric_type === "safety"
          ? { sub_metric_scores: SafetySubMetricType.literals.map((sub) => ({ category: "trust-and-safety" as const, metric_type: sub, score: null })) }
          : {})
      })
    )
    return new CategoryScore({ category, metric_scores, score: mean(metric_scores.map((m) => m.score)) }, true)
  })
  return { category_scores, score: mean(category_scores.map((c) => c.score)) }
}
