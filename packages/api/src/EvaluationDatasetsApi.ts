import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./security.js"

export class EvaluationDatasetsApi extends HttpApiGroup.make("evaluationDatasets")
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Evaluation datasets")
{}
