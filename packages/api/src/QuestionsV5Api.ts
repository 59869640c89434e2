import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { CreateQuestionV5, Id, NotFound, QuestionV5, QuestionV5ListQuery, V5List } from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

export class QuestionsV5Api extends HttpApiGroup.make("questionsV5")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v5/questions")
      .setPayload(CreateQuestionV5)
      .addSuccess(QuestionV5)
      .annotate(OpenApi.Summary, "Create a question (v5)")
      .annotate(
        OpenApi.Description,
        "Creates a question of a `question_type` with its `configuration`; the same question `/v4/questions` serves."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v5/questions/:question_id")
      .setPath(Schema.Struct({ question_id: Id }))
      .addSuccess(QuestionV5)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a question (v5)")
      .annotate(
        OpenApi.Description,
        "Answers the question in the v5 shape (created through either version); 404 when it is not in the caller's accounts."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v5/questions")
      .setUrlParams(QuestionV5ListQuery)
      .addSuccess(V5List(QuestionV5))
      .annotate(OpenApi.Summary, "List questions (v5)")
      .annotate(
        OpenApi.Description,
        "Lists the questions of the caller's accounts (`account_id` narrows to one), created through either version, with the v5 cursor."
      )
  )
  .annotate(OpenApi.Title, "Questions (v5)")
  .annotate(OpenApi.Description, "Questions in the v5 shape: the same questions as `/v4/questions`, one `configuration` per type.")
{}
