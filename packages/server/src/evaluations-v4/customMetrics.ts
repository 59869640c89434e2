/**
 * The custom metrics of a v4 evaluation's results (docs/evaluations.md "v4 metrics", "Custom
 * metrics"): each component of the evaluation's `metric_config` scores a result's output against
 * its test case, computed when the result is written with its output and stored with it (the
 * `CustomMetrics` view answers them as stored).
 *
 * A component compares two texts located by its `mappings`: `predictions` (default the result's
 * `test_case_output.generation_output`) against `references` (default the test case's
 * `test_case_data.expected_output`). The scorers are the kit's own, not copies: ROUGE is chunk
 * ranking's (../chunks/rouge.ts, with its `metric` and `score` params); BLEU, METEOR and the cosine
 * are the v5 evaluations' metric tasks' (../evaluations/metrics.ts: sentence BLEU-4 with NLTK's
 * smoothing method 1, METEOR's exact-match stage, the built-in embeddings), so one text scores the
 * same in both flows. A text that is not there, or not a string or number, leaves the component
 * out of the result's custom metrics (no score is made up).
 */
import type { MetricConfigInput } from "@platform-kit/schema"
import { CustomMetricValue, type MetricComponent, type MetricConfig, ValidationIssue } from "@platform-kit/schema"
import { Effect } from "effect"
import { rouge } from "../chunks/rouge.js"
import { computeMetric } from "../evaluations/metrics.js"

/** Where a mapping's path starts: the result's output, or the test case's data. */
export const mappingRoots = ["test_case_output", "test_case_data"] as const

/** The mapping keys a component takes, and what each maps to when not given. */
export const defaultMappings: Readonly<Record<"predictions" | "references", ReadonlyArray<string>>> = {
  predictions: ["test_case_output", "generation_output"],
  references: ["test_case_data", "expected_output"]
}

type Params = Readonly<Record<string, unknown>>

const rougeMetrics = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
const rougeScores = ["precision", "recall", "fmeasure"]

/** Each metric type's params (only ROUGE takes any): the value's check and what it must be (the 422's message). */
const paramRules: Readonly<Record<string, Readonly<Record<string, readonly [(value: unknown) => boolean, string]>>>> = {
  rouge: {
    metric: [(v) => typeof v === "string" && rougeMetrics.includes(v), `one of ${rougeMetrics.join(", ")}`],
    score: [(v) => typeof v === "string" && rougeScores.includes(v), `one of ${rougeScores.join(", ")}`]
  },
  bleu: {},
  meteor: {},
  cosine_similarity: {}
}

/**
 * What is wrong with a `metric_config` of a create body (none: it is stored): a mapping key other
 * than `predictions` / `references`, a path that is empty or starts elsewhere than a root of
 * `mappingRoots`, a param the component's type does not take or of the wrong value.
 */
export const metricConfigIssues = (config: typeof MetricConfigInput.Type): Array<ValidationIssue> =>
  config.components.flatMap((component, index) => {
    const at = ["body", "metric_config", "components", index]
    const issue = (loc: ReadonlyArray<string | number>, msg: string, input: unknown) =>
      new ValidationIssue({ loc: [...at, ...loc], msg, type: "value_error", input })
    const mappings = Object.entries(component.mappings ?? {}).flatMap(([key, path]) =>
      !Object.hasOwn(defaultMappings, key)
        ? [issue(["mappings", key], "A mapping key is predictions or references", key)]
        : path.length < 2 || !(mappingRoots as ReadonlyArray<string>).includes(path[0]!)
        ? [issue(["mappings", key], `A mapping is a path: ${mappingRoots.join(" or ")}, then the keys into it`, path)]
        : [])
    const rules = paramRules[component.type]!
    const params = Object.entries(component.params ?? {}).flatMap(([key, value]) => {
      // own keys only: a key such as `constructor` is not a rule
      const rule = Object.hasOwn(rules, key) ? rules[key] : undefined
      if (rule === undefined) {
        const known = Object.keys(rules)
        return [issue(["params", key], `A ${component.type} metric takes ${known.length === 0 ? "no params" : `the params ${known.join(", ")}`}`, key)]
      }
      return rule[0](value) ? [] : [issue(["params", key], `${key} is ${rule[1]}`, value)]
    })
    return [...mappings, ...params]
  })

/** The text at `path` (a mapping) of the result's output and its test case's data; none when not text. */
const textAt = (path: ReadonlyArray<string>, data: { readonly test_case_output: unknown; readonly test_case_data: unknown }) => {
  const at = (value: unknown, key: string) =>
    value !== null && typeof value === "object" && !Array.isArray(value) && Object.hasOwn(value, key)
      ? (value as Record<string, unknown>)[key]
      : undefined
  const value = path.reduce<unknown>(at, data)
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined
}

/** One component's score of `prediction` against `reference`, by its type and params. */
const scoreOf = (type: MetricComponent["type"], params: Params, reference: string, prediction: string): number => {
  if (type !== "rouge") return computeMetric(type, prediction, reference)
  // the defaults for values the create would refuse (a config stored before it checked them)
  const metric = rougeMetrics.includes(params.metric as string) ? params.metric as string : "rouge1"
  const score = rougeScores.includes(params.score as string) ? params.score as "precision" | "recall" | "fmeasure" : "fmeasure"
  return rouge(metric, reference, prediction)[score]
}

/**
 * The custom metrics of a result: one per component of `config` whose texts are there, in the
 * components' order, each with a fresh id (`makeId`).
 */
export const customMetricsOf = <E, R>(
  config: MetricConfig | null,
  data: { readonly test_case_output: unknown; readonly test_case_data: unknown },
  makeId: Effect.Effect<string, E, R>
): Effect.Effect<Array<CustomMetricValue>, E, R> =>
  Effect.map(
    Effect.forEach(config?.components ?? [], (component) =>
      Effect.map(makeId, (id) => {
        const mappings = { ...defaultMappings, ...(component.mappings ?? {}) }
        const prediction = textAt(mappings.predictions ?? defaultMappings.predictions, data)
        const reference = textAt(mappings.references ?? defaultMappings.references, data)
        if (prediction === undefined || reference === undefined) return []
        const output = scoreOf(component.type, (component.params ?? {}) as Params, reference, prediction)
        return [new CustomMetricValue({ id, name: component.name, output, type: component.type }, true)]
      })),
    (all) => all.flat()
  )
