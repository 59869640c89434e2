import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  ApplicationDeployment,
  ApplicationGraphInvalid,
  ApplicationSchemaQuery,
  ApplicationSchemas,
  BadGateway,
  Conflict,
  GatewayTimeout,
  ApplicationInteraction,
  ApplicationValid,
  CreateApplicationDeployment,
  Id,
  MetricId,
  MetricQuery,
  NotFound,
  ProcessApplicationGraph,
  ProcessApplicationVariant,
  ProcessResult,
  RecordInteraction,
  ScalarMetric,
  ApplicationDashboardId,
  Dashboard,
  TimeseriesData,
  UpdateApplicationDeployment,
  UpstreamBadRequest,
  UpstreamRateLimited,
  V4ListQuery,
  V4Page,
  ValidateApplication
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

export class ApplicationsApi extends HttpApiGroup.make("applications")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("createDeployment", "/v4/application-deployments")
      .setPayload(CreateApplicationDeployment)
      .addSuccess(ApplicationDeployment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Create an application deployment")
      .annotate(
        OpenApi.Description,
        "Creates an application deployment of a stored application variant of the account (404 otherwise), answered `PENDING`; its lifecycle then makes it `READY` (or `STOPPED` when created with `is_active: false`)."
      )
  )
  .add(
    HttpApiEndpoint.get("getDeployment", "/v4/application-deployments/:application_deployment_id")
      .setPath(Schema.Struct({ application_deployment_id: Id }))
      .addSuccess(ApplicationDeployment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an application deployment")
      .annotate(OpenApi.Description, "Answers the application deployment; 404 when it is missing or another account's.")
  )
  .add(
    HttpApiEndpoint.patch("updateDeployment", "/v4/application-deployments/:application_deployment_id")
      .setPath(Schema.Struct({ application_deployment_id: Id }))
      .setPayload(UpdateApplicationDeployment)
      .addSuccess(ApplicationDeployment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update an application deployment")
      .annotate(
        OpenApi.Description,
        "Changes `name` and/or `is_active`: `is_active: false` stops the deployment (`STOPPED`); `is_active: true` on a stopped or failed one deploys it again (`PENDING`)."
      )
  )
  .add(
    HttpApiEndpoint.get("listDeployments", "/v4/application-deployments")
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(ApplicationDeployment))
      .annotate(OpenApi.Summary, "List application deployments")
      .annotate(
        OpenApi.Description,
        "Lists the application deployments of the caller's accounts (`account_id` narrows to one), newest first, as a v4 page (`page`, `limit`)."
      )
  )
  .add(
    HttpApiEndpoint.post("validate", "/v4/applications/validate")
      .setPayload(ValidateApplication)
      .addSuccess(ApplicationValid)
      .addError(ApplicationGraphInvalid)
      .annotate(OpenApi.Summary, "Validate an application graph")
      .annotate(
        OpenApi.Description,
        "Checks an application graph's nodes and edges: answers `{\"valid\": true}`, or a 400 listing every problem found (no input node, duplicate node ids, edges to unknown nodes, cycles)."
      )
  )
  .add(
    HttpApiEndpoint.post("recordInteraction", "/v4/applications/:application_spec_id/interactions")
      .setPath(Schema.Struct({ application_spec_id: Id }))
      .setPayload(RecordInteraction)
      .addSuccess(ApplicationInteraction)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Record an application interaction")
      .annotate(
        OpenApi.Description,
        "Stores one usage record of the application spec (variant, start time, latency, tokens; optionally error, end user, node latencies, feedback). The spec id is kept as given when no spec has it (interactions predate stored specs); a spec of another account is a 404."
      )
  )
  .add(
    HttpApiEndpoint.get("getInteraction", "/v4/applications/:application_spec_id/interactions/:interaction_id")
      .setPath(Schema.Struct({ application_spec_id: Id, interaction_id: Id }))
      .addSuccess(ApplicationInteraction)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an application interaction")
      .annotate(
        OpenApi.Description,
        "Answers one interaction of the application spec; 404 when it is missing, another spec's or another account's."
      )
  )
  .add(
    HttpApiEndpoint.get("listInteractions", "/v4/applications/:application_spec_id/interactions")
      .setPath(Schema.Struct({ application_spec_id: Id }))
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(ApplicationInteraction))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List the interactions of an application")
      .annotate(
        OpenApi.Description,
        "Lists the interactions of the application spec in the caller's accounts (`account_id` narrows to one), newest first, as a v4 page (`page`, `limit`)."
      )
  )
  .add(
    HttpApiEndpoint.get("timeseriesMetric", "/v4/applications/:application_spec_id/metrics/timeseries/:metric_id")
      .setPath(Schema.Struct({ application_spec_id: Id, metric_id: MetricId }))
      .setUrlParams(MetricQuery)
      .addSuccess(TimeseriesData)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a metric of an application over time")
      .annotate(
        OpenApi.Description,
        "The metric of the scalar endpoint, computed per time bin over `[from_ts, to_ts]` (Unix seconds; default the 7 days up to now), at most 50 bins of a width chosen from the window (1 minute to whole days, aligned on UTC). `values` has one series per label (`all`, or one per variant, node or token kind, as docs/applications.md says) with a value per bin; `unit` as the scalar's."
      )
  )
  .add(
    // the path parameter is `application_dashboard_id` on this API (the SDK's `dashboard_id`; the wire is the same)
    HttpApiEndpoint.get("dashboard", "/v4/applications/:application_spec_id/dashboards/:application_dashboard_id")
      .setPath(Schema.Struct({ application_spec_id: Id, application_dashboard_id: ApplicationDashboardId }))
      .addSuccess(Dashboard)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an application dashboard")
      .annotate(
        OpenApi.Description,
        "The layout of one of the five dashboards of an application spec: its visualizations, each a metric of the timeseries and scalar endpoints with a chart type (`scalar`, `bar`, `stacked_bar`, `line`) and display metadata."
      )
  )
  .add(
    HttpApiEndpoint.get("scalarMetric", "/v4/applications/:application_spec_id/metrics/scalar/:metric_id")
      .setPath(Schema.Struct({ application_spec_id: Id, metric_id: MetricId }))
      .setUrlParams(MetricQuery)
      .addSuccess(ScalarMetric)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a scalar metric of an application")
      .annotate(
        OpenApi.Description,
        "Computes one metric (`total_requests`, `p95_latency`, `error_rate`, …) over the spec's interactions started in `[from_ts, to_ts]` (Unix seconds), of `variants` when given; answers `{value, unit}`, 0 when none match."
      )
  )
  .add(
    HttpApiEndpoint.post("process", "/v4/applications/:application_variant_id/process")
      .setPath(Schema.Struct({ application_variant_id: Id }))
      .setPayload(ProcessApplicationVariant)
      .addSuccess(ProcessResult)
      .addError(NotFound)
      .addError(Conflict)
      .addError(ApplicationGraphInvalid)
      .addError(UpstreamBadRequest)
      .addError(UpstreamRateLimited)
      .addError(BadGateway)
      .addError(GatewayTimeout)
      .annotate(OpenApi.Summary, "Process an application variant")
      .annotate(
        OpenApi.Description,
        "Runs the V0 variant's graph on `inputs` (`{input_node_id: {\"input-text\": …}}`), with `history` as prior turns and `overrides` narrowing knowledge-base nodes, and answers the output node's fields with `session_data` and the recorded interaction's `application_interaction_id`. The graph is checked whole before any node runs (400 listing every problem); a model upstream's failure answers its status naming the node, and is recorded on the interaction."
      )
  )
  .add(
    HttpApiEndpoint.post("processGraph", "/v4/applications/process")
      .setPayload(ProcessApplicationGraph)
      .addSuccess(ProcessResult)
      .addError(NotFound)
      .addError(Conflict)
      .addError(ApplicationGraphInvalid)
      .addError(UpstreamBadRequest)
      .addError(UpstreamRateLimited)
      .addError(BadGateway)
      .addError(GatewayTimeout)
      .annotate(OpenApi.Summary, "Process an unsaved application graph")
      .annotate(
        OpenApi.Description,
        "Runs the body's V0 graph (`nodes`, `edges`, `version`) as a variant's process would; nothing is recorded (`application_interaction_id` is null)."
      )
  )
  .add(
    HttpApiEndpoint.get("schemas", "/v4/application-schemas")
      .setUrlParams(ApplicationSchemaQuery)
      .addSuccess(ApplicationSchemas)
      .annotate(OpenApi.Summary, "List the node kinds the kit runs")
      .annotate(
        OpenApi.Description,
        "The node-schema registry of `version`: for V0, each node kind the kit's executor runs, by `application_node_schema_id`, with its configuration fields, inputs and outputs (`nodeSchema`) and tags; `{}` for AGENTS_SERVICE and OFFLINE."
      )
  )
  .annotate(OpenApi.Title, "Applications")
  .annotate(
    OpenApi.Description,
    "Application deployments, application graph validation, and the usage interactions, metrics (scalar and over time) and dashboards of application specs."
  )
{}
