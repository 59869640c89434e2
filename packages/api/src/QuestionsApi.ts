import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { CreateQuestion, Id, NotFound, Question, V4ListQuery, V4Page } from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

export class QuestionsApi extends HttpApiGroup.make("questions")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/questions")
      .setPayload(CreateQuestion)
      .addSuccess(Question)
      .annotate(OpenApi.Summary, "Create a question")
      .annotate(
        OpenApi.Description,
        "Creates a question of a `type` (`categorical`, `free_text`, `rating`, `number`, `form`, `timestamp`) with its options; a categorical question needs at least one choice (422)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/questions/:question_id")
      .setPath(Schema.Struct({ question_id: Id }))
      .addSuccess(Question)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a question")
      .annotate(OpenApi.Description, "Answers the question; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/questions")
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(Question))
      .annotate(OpenApi.Summary, "List questions")
      .annotate(
        OpenApi.Description,
        "Lists the questions of the caller's accounts (`account_id` narrows to one), newest first, as a v4 page (`page`, `limit`)."
      )
  )
  .annotate(OpenApi.Title, "Questions")
  .annotate(
    OpenApi.Description,
    "Questions of six types (categorical, free text, rating, number, form, timestamp), with their answer options."
  )
{}
