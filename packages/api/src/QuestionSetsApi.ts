import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  CreateQuestionSet,
  GenericDeleteResponse,
  Id,
  NotFound,
  QuestionSet,
  QuestionSetListItem,
  QuestionSetListQuery,
  QuestionSetWithQuestions,
  UpdateQuestionSet,
  V4Page
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const QuestionSetPath = Schema.Struct({ question_set_id: Id })

export class QuestionSetsApi extends HttpApiGroup.make("questionSets")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/question-sets")
      .setPayload(CreateQuestionSet)
      .addSuccess(QuestionSet)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Create a question set")
      .annotate(
        OpenApi.Description,
        "A named, ordered set of v4 questions of the account (`question_ids`; one not in the account is a 404 naming it, nothing written), with optional `instructions` and `question_id_to_config` (its keys among `question_ids`, else 422)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/question-sets/:question_set_id")
      .setPath(QuestionSetPath)
      .addSuccess(QuestionSetWithQuestions)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a question set")
      .annotate(OpenApi.Description, "The set, archived or not, with its `questions` in the order of its `question_ids`; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v4/question-sets/:question_set_id")
      .setPath(QuestionSetPath)
      .setPayload(UpdateQuestionSet)
      .addSuccess(QuestionSet)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update or restore a question set")
      .annotate(
        OpenApi.Description,
        "Changes the fields given (`name`, `instructions`, `question_ids`, checked as on create); `{\"restore\": true}` alone restores an archived set."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/question-sets")
      .setUrlParams(QuestionSetListQuery)
      .addSuccess(V4Page(QuestionSetListItem))
      .annotate(OpenApi.Summary, "List question sets")
      .annotate(
        OpenApi.Description,
        "The sets of the caller's accounts (`account_id` narrows to one), newest first, as a v4 page; archived ones with `include_archived=true`; `view=Questions` fills each set's `questions`."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/question-sets/:question_set_id")
      .setPath(QuestionSetPath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Archive a question set")
      .annotate(
        OpenApi.Description,
        "Archives the set (`archived_at` set; hidden from lists unless `include_archived`; restored by `PATCH {\"restore\": true}`); configs that name it still read it."
      )
  )
  .annotate(OpenApi.Title, "Question sets")
  .annotate(OpenApi.Description, "Question sets: the ordered questions an evaluation config asks of each test case result.")
{}
