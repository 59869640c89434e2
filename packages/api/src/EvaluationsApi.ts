import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./security.js"

export class EvaluationsApi extends HttpApiGroup.make("evaluations")
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Evaluations")
{}
