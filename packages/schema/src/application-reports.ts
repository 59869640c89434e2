/**
 * Application test case outputs and application variant reports (docs/applications.md "Test case
 * outputs", "Reports"): what a variant answered for each test case of an evaluation dataset, and
 * the report that produces those outputs on the platform and scores them.
 */
import { Schema } from "effect"
import { ApplicationInteraction } from "./applications.js"
import { AuditFields, DateTimeString, Id, JsonObject, Nullable, OnlyWithView, Optional, QueryArray, V4PageQuery } from "./common.js"
import { EvaluationDataset, TestCase } from "./evaluation-datasets.js"

// ---------------------------------------------------------------------------------------------
// Outputs: what a test case output carries

/** A chunk an output was drawn from, as a body gives it. */
export const OutputChunkInput = Schema.Struct({
  text: Schema.String,
  metadata: Optional(JsonObject)
}).annotations({ identifier: "OutputChunkInput" })
export type OutputChunkInput = typeof OutputChunkInput.Type

export const ChunkExtraInfoInput = Schema.Struct({
  chunks: Schema.Array(OutputChunkInput),
  schema_type: Optional(Schema.Literal("CHUNKS"))
}).annotations({ identifier: "ChunkExtraInfoInput" })
export type ChunkExtraInfoInput = typeof ChunkExtraInfoInput.Type

export const StringExtraInfoInput = Schema.Struct({
  info: Schema.String,
  schema_type: Optional(Schema.Literal("STRING"))
}).annotations({ identifier: "StringExtraInfoInput" })
export type StringExtraInfoInput = typeof StringExtraInfoInput.Type

/** An output as a batch item gives it: text (`ResultSchemaGeneration`) or any JSON object (`ResultSchemaFlexible`). */
export const TestCaseOutputResultInput = Schema.Struct({
  generation_output: Schema.Union(Schema.String, JsonObject),
  generation_extra_info: Optional(Schema.Union(ChunkExtraInfoInput, StringExtraInfoInput))
}).annotations({ identifier: "TestCaseOutputResultInput" })
export type TestCaseOutputResultInput = typeof TestCaseOutputResultInput.Type

export class OutputChunk extends Schema.Class<OutputChunk>("OutputChunk")({
  text: Schema.String,
  metadata: Nullable(JsonObject)
}) {}

export class ChunkExtraInfo extends Schema.Class<ChunkExtraInfo>("ChunkExtraInfo")({
  chunks: Schema.Array(OutputChunk),
  schema_type: Schema.Literal("CHUNKS")
}) {}

export class StringExtraInfo extends Schema.Class<StringExtraInfo>("StringExtraInfo")({
  info: Schema.String,
  schema_type: Schema.Literal("STRING")
}) {}

/** An output as answered: every field present, `generation_extra_info` `null` when none was given. */
export class TestCaseOutputResult extends Schema.Class<TestCaseOutputResult>("TestCaseOutputResult")({
  generation_output: Schema.Union(Schema.String, JsonObject),
  generation_extra_info: Nullable(Schema.Union(ChunkExtraInfo, StringExtraInfo))
}) {}

// ---------------------------------------------------------------------------------------------
// Metric scores (the kit's built-in judge: docs/applications.md "Reports")

export const MetricCategory = Schema.Literal("accuracy", "quality", "retrieval", "trust-and-safety").annotations({
  identifier: "MetricCategory"
})
export type MetricCategory = typeof MetricCategory.Type

export const SafetySubMetricType = Schema.Literal(
  "safety-bias-and-stereotyping",
  "safety-opinions-disputed-topics",
  "safety-unethical-harmful-activities",
  "safety-copyright-violations",
  "safety-harmful-content",
  "safety-privacy-violations"
).annotations({ identifier: "SafetySubMetricType" })

export const ApplicationMetricType = Schema.Literal(
  "answer-correctness",
  "answer-relevance",
  "faithfulness",
  "context-recall",
  "coherence",
  "grammar",
  "moderation",
  "safety",
  ...SafetySubMetricType.literals
).annotations({ identifier: "ApplicationMetricType" })
export type ApplicationMetricType = typeof ApplicationMetricType.Type

/** How a score was reached: the judge's reasoning; the language-model fields are `null` (the built-in judge calls none). */
export class MetricScoreMetadata extends Schema.Class<MetricScoreMetadata>("MetricScoreMetadata")({
  logging: Nullable(JsonObject),
  reasoning: Nullable(Schema.String),
  time_elapsed_s: Nullable(Schema.Int),
  usage: Nullable(Schema.Array(JsonObject))
}) {}

/** One metric of one output (`ApplicationMetricScore`): `score` from 0 to 1, `null` when the judge cannot score it (the reasoning says why). */
export class ApplicationMetricScore extends Schema.Class<ApplicationMetricScore>("ApplicationMetricScore")({
  category: MetricCategory,
  metric_type: ApplicationMetricType,
  score: Nullable(Schema.Number),
  llm_metadata: Nullable(MetricScoreMetadata)
}) {}

// ---------------------------------------------------------------------------------------------
// Test case outputs

export const TestCaseOutputSchemaType = Schema.Literal("GENERATION", "FLEXIBLE").annotations({ identifier: "TestCaseOutputSchemaType" })

/** A span of the trace of an output, as a batch item gives it (`BatchTraceSpan`). */
export const BatchTraceSpan = Schema.Struct({
  node_id: Schema.String,
  operation_input: JsonObject,
  operation_output: JsonObject,
  start_timestamp: DateTimeString,
  duration_ms: Optional(Schema.Int.pipe(Schema.nonNegative())),
  operation_expected: Optional(JsonObject),
  operation_metadata: Optional(JsonObject),
  operation_status: Optional(Schema.Literal("SUCCESS", "ERROR")),
  operation_type: Optional(Schema.Literal("COMPLETION", "RERANKING", "RETRIEVAL", "CUSTOM"))
}).annotations({ identifier: "BatchTraceSpan" })
export type BatchTraceSpan = typeof BatchTraceSpan.Type

/** A span as answered (`EvaluationTraceSpan`); `application_interaction_id` is `null` for an output recorded with no interaction. */
export class EvaluationTraceSpan extends Schema.Class<EvaluationTraceSpan>("EvaluationTraceSpan")({
  id: Id,
  application_interaction_id: Nullable(Id),
  node_id: Schema.String,
  operation_input: JsonObject,
  operation_output: JsonObject,
  operation_expected: Nullable(JsonObject),
  operation_metadata: Nullable(JsonObject),
  operation_status: Schema.Literal("SUCCESS", "ERROR"),
  operation_type: Schema.String,
  start_timestamp: DateTimeString,
  duration_ms: Schema.Int
}) {}

/** One item of `POST /v4/application-test-case-outputs/batch` (its body is an array of these). */
export const CreateApplicationTestCaseOutput = Schema.Struct({
    account_id: Id,
    application_variant_id: Id,
    evaluation_dataset_version_num: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
    test_case_id: Id,
    output: TestCaseOutputResultInput,
    ignore_missing: Optional(Schema.Boolean),
    metrics: Optional(Schema.Record({ key: Schema.String, value: Schema.Number })),
    trace_spans: Optional(Schema.Array(BatchTraceSpan))
}).annotations({ identifier: "CreateApplicationTestCaseOutput" })
export type CreateApplicationTestCaseOutput = typeof CreateApplicationTestCaseOutput.Type

export const ApplicationTestCaseOutputBatch = Schema.Array(CreateApplicationTestCaseOutput).pipe(Schema.minItems(1))

const TestCaseOutputFields = {
  id: Id,
  account_id: Id,
  application_variant_id: Id,
  evaluation_dataset_id: Id,
  test_case_id: Id,
  /** `GENERATION` when `output.generation_output` is text, `FLEXIBLE` when it is an object. */
  schema_type: TestCaseOutputSchemaType,
  output: TestCaseOutputResult,
  metrics: Nullable(Schema.Record({ key: Schema.String, value: Schema.Number })),
  /** The interaction the output's process recorded (outputs of a report); `null` for a batch's. */
  application_interaction_id: Nullable(Id),
  application_test_case_output_group_id: Nullable(Id),
  created_at: DateTimeString
} as const

/** A test case output (`ApplicationTestCaseOutput`), as the batch answers it. */
export class ApplicationTestCaseOutput extends Schema.Class<ApplicationTestCaseOutput>("ApplicationTestCaseOutput")(
  TestCaseOutputFields
) {}

/** A test case output with the fields its views add (retrieve, list). */
export class ApplicationTestCaseOutputWithViews
  extends Schema.Class<ApplicationTestCaseOutputWithViews>("ApplicationTestCaseOutputWithViews")({
    ...TestCaseOutputFields,
    /** `view=MetricScores`: the built-in judge's scores of the output against its test case. */
    metric_scores: OnlyWithView(Schema.Array(ApplicationMetricScore)),
    /** `view=TestCaseVersion`: the test case, as it is stored now. */
    test_case_version: OnlyWithView(TestCase),
    /** `view=Trace`: the interaction recorded for the output (`null` when none was). */
    interaction: OnlyWithView(Nullable(ApplicationInteraction)),
    /** `view=Trace`: the output's spans. */
    trace_spans: OnlyWithView(Schema.Array(EvaluationTraceSpan))
  })
{}

export const TestCaseOutputView = Schema.Literal("MetricScores", "TestCaseVersion", "Trace").annotations({
  identifier: "TestCaseOutputView"
})
const TestCaseOutputViews = Schema.optionalWith(QueryArray(TestCaseOutputView), { exact: true })

export const ApplicationTestCaseOutputQuery = Schema.Struct({ view: TestCaseOutputViews })

export const ApplicationTestCaseOutputListQuery = Schema.Struct({
  ...V4PageQuery,
  application_test_case_output_group_id: Schema.optionalWith(Id, { exact: true }),
  application_variant_id: Schema.optionalWith(Id, { exact: true }),
  application_variant_report_id: Schema.optionalWith(Id, { exact: true }),
  evaluation_dataset_id: Schema.optionalWith(Id, { exact: true }),
  evaluation_dataset_version_num: Schema.optionalWith(
    Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1)),
    { exact: true }
  ),
  view: TestCaseOutputViews
})

// ---------------------------------------------------------------------------------------------
// Variant reports

export const ReportStatus = Schema.Literal("Pending", "Running", "Completed", "Failed", "Canceled").annotations({
  identifier: "ReportStatus"
})
export type ReportStatus = typeof ReportStatus.Type

/** A metric of a report: the mean of the outputs' scores of it (`null` when no output has one). */
export class ReportMetricScore extends Schema.Class<ReportMetricScore>("ReportMetricScore")({
  category: MetricCategory,
  metric_type: ApplicationMetricType,
  score: Nullable(Schema.Number),
  /** `safety` only: its six sub-metrics. */
  sub_metric_scores: Schema.optionalWith(
    Schema.Array(Schema.Struct({ category: Schema.Literal("trust-and-safety"), metric_type: SafetySubMetricType, score: Nullable(Schema.Number) })),
    { exact: true }
  )
}) {}

/** A category of a report: its metrics, and their mean (`null` when none has a score). */
export class CategoryScore extends Schema.Class<CategoryScore>("CategoryScore")({
  category: MetricCategory,
  metric_scores: Schema.Array(ReportMetricScore),
  score: Nullable(Schema.Number)
}) {}

/** A dataset of a report and how far its outputs are. */
export class ReportDataset extends Schema.Class<ReportDataset>("ReportDataset")({
  evaluation_dataset: EvaluationDataset,
  evaluation_dataset_version_num: Schema.Int,
  generation_status: ReportStatus,
  /** How many of its test cases have an output the report scored; `null` until scored. */
  scored_test_case_count: Nullable(Schema.Int)
}) {}

export class ReportAsyncJobProgress extends Schema.Class<ReportAsyncJobProgress>("ReportAsyncJobProgress")({
  completed: Schema.Int,
  failed: Schema.Int,
  pending: Schema.Int
}) {}

/** The job generating a report. `job_metadata.reason` says why a `Failed` job failed. */
export class ReportAsyncJob extends Schema.Class<ReportAsyncJob>("ReportAsyncJob")({
  id: Id,
  job_type: Schema.Literal("application-variant-report-generation"),
  status: ReportStatus,
  job_metadata: Nullable(JsonObject),
  progress: Nullable(ReportAsyncJobProgress),
  created_at: DateTimeString,
  updated_at: DateTimeString
}) {}

const ReportFields = {
  id: Id,
  application_spec_id: Id,
  application_variant_id: Id,
  evaluation_datasets: Schema.Array(ReportDataset),
  /** `null` until the report's job has scored the outputs. */
  category_scores: Nullable(Schema.Array(CategoryScore)),
  /** The mean of the category scores that have one; `null` until scored or when none has. */
  score: Nullable(Schema.Number),
  ...AuditFields,
  updated_at: DateTimeString
} as const

/** A report (`ApplicationVariantWithScores`), as its create answers it. */
export class ApplicationVariantReport extends Schema.Class<ApplicationVariantReport>("ApplicationVariantReport")(ReportFields) {}

/** A report with its views (`ApplicationVariantWithScoresAndViews`): `async_jobs` with `view=AsyncJobs`. */
export class ApplicationVariantReportWithViews
  extends Schema.Class<ApplicationVariantReportWithViews>("ApplicationVariantReportWithViews")({
    ...ReportFields,
    async_jobs: OnlyWithView(Schema.Array(ReportAsyncJob))
  })
{}

export class CreateApplicationVariantReport extends Schema.Class<CreateApplicationVariantReport>("CreateApplicationVariantReport")({
  application_variant_id: Id,
  evaluation_dataset_ids: Schema.Array(Id).pipe(Schema.minItems(1)),
  account_id: Optional(Id),
  application_test_case_output_group_ids: Optional(Schema.Array(Id))
}) {}

export const ReportView = Schema.Literal("AsyncJobs").annotations({ identifier: "ReportView" })
const ReportViews = Schema.optionalWith(QueryArray(ReportView), { exact: true })

export const ApplicationVariantReportQuery = Schema.Struct({ view: ReportViews })

export const ApplicationVariantReportListQuery = Schema.Struct({
  ...V4PageQuery,
  application_spec_id: Schema.optionalWith(Id, { exact: true }),
  application_variant_id: Schema.optionalWith(Id, { exact: true }),
  view: ReportViews
})
