import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  ApplicationTestCaseOutput,
  ApplicationTestCaseOutputBatch,
  ApplicationTestCaseOutputListQuery,
  ApplicationTestCaseOutputQuery,
  ApplicationTestCaseOutputWithViews,
  ApplicationVariantReport,
  ApplicationVariantReportListQuery,
  ApplicationVariantReportQuery,
  ApplicationVariantReportWithViews,
  Conflict,
  CreateApplicationVariantReport,
  Id,
  NotFound,
  V4Page
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const OutputPath = Schema.Struct({ application_test_case_output_id: Id })
const ReportPath = Schema.Struct({ application_variant_report_id: Id })

const viewsOfOutputs =
  "`view` (comma-joined) adds fields: `MetricScores` → `metric_scores` (the kit's built-in judge, docs/applications.md \"Reports\"), `TestCaseVersion` → `test_case_version` (the test case), `Trace` → `interaction` (the recorded interaction, `null` when none) and `trace_spans`."

export class ApplicationTestCaseOutputsApi extends HttpApiGroup.make("applicationTestCaseOutputs")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("batch", "/v4/application-test-case-outputs/batch")
      .setPayload(ApplicationTestCaseOutputBatch)
      .addSuccess(Schema.Array(ApplicationTestCaseOutput))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Record test case outputs")
      .annotate(
        OpenApi.Description,
        "The body is a bare array of outputs, each of a variant and a test case of its `account_id` (else 404); answers the stored outputs as a bare array, in the body's order. Unless an item of a dataset sets `ignore_missing`, every test case of that dataset needs an output in the batch (else 422 naming those missing)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/application-test-case-outputs/:application_test_case_output_id")
      .setPath(OutputPath)
      .setUrlParams(ApplicationTestCaseOutputQuery)
      .addSuccess(ApplicationTestCaseOutputWithViews)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a test case output")
      .annotate(OpenApi.Description, `The output. ${viewsOfOutputs}`)
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/application-test-case-outputs")
      .setUrlParams(ApplicationTestCaseOutputListQuery)
      .addSuccess(V4Page(ApplicationTestCaseOutputWithViews))
      .annotate(OpenApi.Summary, "List test case outputs")
      .annotate(
        OpenApi.Description,
        `The outputs of the caller's accounts, newest first, narrowed by variant, report, dataset (and its version number), group. ${viewsOfOutputs}`
      )
  )
  .annotate(OpenApi.Title, "Application test case outputs")
  .annotate(OpenApi.Description, "What a variant answered for the test cases of evaluation datasets.")
{}

export class ApplicationVariantReportsApi extends HttpApiGroup.make("applicationVariantReports")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/application-variant-reports")
      .setPayload(CreateApplicationVariantReport)
      .addSuccess(ApplicationVariantReport)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Create an application variant report")
      .annotate(
        OpenApi.Description,
        "Answers at once with the report, unscored; its job (`view=AsyncJobs`) then processes the V0 variant over each test case of each dataset (all of the account, else 404; another version is a 409), stores one test case output per test case, and scores them with the kit's built-in judge: `Pending` → `Running` → `Completed` (or `Failed`, `job_metadata.reason` saying why)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/application-variant-reports/:application_variant_report_id")
      .setPath(ReportPath)
      .setUrlParams(ApplicationVariantReportQuery)
      .addSuccess(ApplicationVariantReportWithViews)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an application variant report")
      .annotate(OpenApi.Description, "The report and its scores (`null` until computed); `view=AsyncJobs` adds `async_jobs`, the job generating it.")
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/application-variant-reports")
      .setUrlParams(ApplicationVariantReportListQuery)
      .addSuccess(V4Page(ApplicationVariantReportWithViews))
      .annotate(OpenApi.Summary, "List application variant reports")
      .annotate(
        OpenApi.Description,
        "The reports of the caller's accounts, newest first, narrowed by spec or variant; `view=AsyncJobs` adds each one's `async_jobs`."
      )
  )
  .annotate(OpenApi.Title, "Application variant reports")
  .annotate(OpenApi.Description, "Report cards of application variants over evaluation datasets.")
{}
