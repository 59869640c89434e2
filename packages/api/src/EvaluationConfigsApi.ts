import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./security.js"

export class EvaluationConfigsApi extends HttpApiGroup.make("evaluationConfigs")
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Evaluation configs")
{}
