/**
 * What test case outputs are made of and answered as: a body's output as stored, and a stored
 * output with the fields its views add (shared by the batch, the reads and a report's job).
 */
import {
  type ApplicationVariant,
  ApplicationTestCaseOutput,
  ApplicationTestCaseOutputWithViews,
  ChunkExtraInfo,
  OutputChunk,
  StringExtraInfo,
  type TestCase,
  TestCaseOutputResult,
  type TestCaseOutputResultInput
} from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { TestCasesRepo } from "../../evaluation-datasets/TestCasesRepo.js"
import { isInputNode } from "../graph.js"
import type { ApplicationRunner, RunIdentity } from "../process/runner.js"
import { InteractionsRepo } from "../InteractionsRepo.js"
import { judge } from "../reports/judge.js"
import type { StoredTestCaseOutput } from "./OutputsRepo.js"

/** A body's output as answered: every field present, the extra info's `schema_type` set. */
export const resultOf = (input: TestCaseOutputResultInput): TestCaseOutputResult => {
  const extra = input.generation_extra_info
  return new TestCaseOutputResult({
    generation_output: input.generation_output,
    generation_extra_info: extra === undefined
      ? null
      : "chunks" in extra
      ? new ChunkExtraInfo({
        chunks: extra.chunks.map((chunk) => new OutputChunk({ text: chunk.text, metadata: chunk.metadata ?? null })),
        schema_type: "CHUNKS"
      }, true)
      : new StringExtraInfo({ info: extra.info, schema_type: "STRING" })
  }, true)
}

/** The text of a failure to process a test case: its `detail`, the graph's problems, or the value printed. */
export const failureReason = (error: unknown): string => {
  const failure = error as { readonly detail?: unknown; readonly errors?: ReadonlyArray<{ readonly message?: unknown }> }
  if (typeof failure?.detail === "string") return failure.detail
  if (Array.isArray(failure?.detail)) return failure.detail.map((issue: { msg?: unknown }) => String(issue.msg)).join("; ")
  if (failure?.errors !== undefined) return failure.errors.map((problem) => String(problem.message)).join("; ")
  return String(error)
}

/**
 * A test case processed through `variant` (a report's or a builder evaluation's): a V0 graph's
 * input nodes each take the input's text, an agent its inputs flat (an object input as it is);
 * the output as a test case output keeps it (the `output-text`, else the first text field, else
 * every field) and the interaction recorded, or why there is none.
 */
export const processTestCase = (
  runner: Pick<ApplicationRunner, "runVariant">,
  variant: ApplicationVariant,
  testCase: { readonly test_case_data: unknown },
  identity: RunIdentity
) =>
  Effect.gen(function*() {
    const data = testCase.test_case_data as { readonly input?: unknown }
    const input = typeof data.input === "string" ? data.input : JSON.stringify(data.input ?? null)
    const inputs = variant.version === "V0"
      ? Object.fromEntries(variant.configuration.nodes.filter(isInputNode).map((node) => [node.id, { "input-text": input }]))
      : data.input !== null && typeof data.input === "object" && !Array.isArray(data.input)
      ? { ...data.input }
      : { input }
    const answer = yield* runner.runVariant(variant, { inputs }, identity, { interaction_source: "EVALUATION" }).pipe(Effect.mapError(failureReason))
    const { application_interaction_id, session_data: _, ...fields } = answer
    const text = typeof fields["output-text"] === "string"
      ? fields["output-text"]
      : Object.values(fields).find((value): value is string => typeof value === "string")
    return {
      output: resultOf({ generation_output: text ?? (fields as Record<string, unknown>) }),
      interaction: typeof application_interaction_id === "string" ? application_interaction_id : null
    }
  })

/** The stored output as the batch answers it (no view fields). */
export const answered = (stored: StoredTestCaseOutput) =>
  new ApplicationTestCaseOutput({
    id: stored.id,
    account_id: stored.account_id,
    application_variant_id: stored.application_variant_id,
    evaluation_dataset_id: stored.evaluation_dataset_id,
    test_case_id: stored.test_case_id,
    schema_type: stored.schema_type,
    output: stored.output,
    metrics: stored.metrics,
    application_interaction_id: stored.application_interaction_id,
    application_test_case_output_group_id: stored.application_test_case_output_group_id,
    created_at: stored.created_at
  }, true)

export type OutputView = "MetricScores" | "TestCaseVersion" | "Trace"

/** The stored output with the fields of `views`. Needs `TestCasesRepo`, `InteractionsRepo`. */
export const withViews = (stored: StoredTestCaseOutput, views: ReadonlyArray<OutputView>) =>
  Effect.gen(function*() {
    const fields: Record<string, unknown> = {}
    if (views.includes("MetricScores") || views.includes("TestCaseVersion")) {
      const found = yield* Effect.flatMap(TestCasesRepo, (cases) => cases.findById(stored.test_case_id, [stored.account_id]))
      // a test case is never deleted; should it be, its output answers no version and no score
      if (Option.isSome(found)) {
        const testCase: TestCase = found.value
        if (views.includes("MetricScores")) fields.metric_scores = judge(stored.output, testCase)
        if (views.includes("TestCaseVersion")) fields.test_case_version = testCase
      } else if (views.includes("MetricScores")) fields.metric_scores = []
    }
    if (views.includes("Trace")) {
      const interaction = stored.application_interaction_id === null
        ? Option.none()
        : yield* Effect.flatMap(InteractionsRepo, (interactions) =>
          interactions.findById(stored.application_interaction_id!, [stored.account_id]))
      fields.interaction = Option.getOrNull(interaction)
      fields.trace_spans = stored.trace_spans
    }
    return new ApplicationTestCaseOutputWithViews({ ...answered(stored), ...fields }, true)
  })
