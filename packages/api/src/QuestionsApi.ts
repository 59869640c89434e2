import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./security.js"

export class QuestionsApi extends HttpApiGroup.make("questions")
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Questions")
{}
