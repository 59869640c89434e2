import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  ApplicationDeployment,
  ApplicationGraphInvalid,
  ApplicationInteraction,
  ApplicationValid,
  CreateApplicationDeployment,
  Id,
  MetricId,
  MetricQuery,
  NotFound,
  RecordInteraction,
  ScalarMetric,
  UpdateApplicationDeployment,
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
  )
  .add(
    HttpApiEndpoint.get("getDeployment", "/v4/application-deployments/:application_deployment_id")
      .setPath(Schema.Struct({ application_deployment_id: Id }))
      .addSuccess(ApplicationDeployment)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.patch("updateDeployment", "/v4/application-deployments/:application_deployment_id")
      .setPath(Schema.Struct({ application_deployment_id: Id }))
      .setPayload(UpdateApplicationDeployment)
      .addSuccess(ApplicationDeployment)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listDeployments", "/v4/application-deployments")
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(ApplicationDeployment))
  )
  .add(
    HttpApiEndpoint.post("validate", "/v4/applications/validate")
      .setPayload(ValidateApplication)
      .addSuccess(ApplicationValid)
      .addError(ApplicationGraphInvalid)
  )
  .add(
    HttpApiEndpoint.post("recordInteraction", "/v4/applications/:application_spec_id/interactions")
      .setPath(Schema.Struct({ application_spec_id: Id }))
      .setPayload(RecordInteraction)
      .addSuccess(ApplicationInteraction)
  )
  .add(
    HttpApiEndpoint.get("getInteraction", "/v4/applications/:application_spec_id/interactions/:interaction_id")
      .setPath(Schema.Struct({ application_spec_id: Id, interaction_id: Id }))
      .addSuccess(ApplicationInteraction)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listInteractions", "/v4/applications/:application_spec_id/interactions")
      .setPath(Schema.Struct({ application_spec_id: Id }))
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(ApplicationInteraction))
  )
  .add(
    HttpApiEndpoint.get("scalarMetric", "/v4/applications/:application_spec_id/metrics/scalar/:metric_id")
      .setPath(Schema.Struct({ application_spec_id: Id, metric_id: MetricId }))
      .setUrlParams(MetricQuery)
      .addSuccess(ScalarMetric)
  )
  .annotate(OpenApi.Title, "Applications")
{}
