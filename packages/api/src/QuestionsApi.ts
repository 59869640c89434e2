import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { CreateQuestion, Id, NotFound, Question, V4ListQuery, V4Page } from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

export class QuestionsApi extends HttpApiGroup.make("questions")
  .middleware(Authentication)
  .add(HttpApiEndpoint.post("create", "/v4/questions").setPayload(CreateQuestion).addSuccess(Question))
  .add(
    HttpApiEndpoint.get("get", "/v4/questions/:question_id")
      .setPath(Schema.Struct({ question_id: Id }))
      .addSuccess(Question)
      .addError(NotFound)
  )
  .add(HttpApiEndpoint.get("list", "/v4/questions").setUrlParams(V4ListQuery).addSuccess(V4Page(Question)))
  .annotate(OpenApi.Title, "Questions")
{}
