import { Question } from "@platform-kit/schema"
import { Effect } from "effect"
import { makeDocuments } from "../sql/documents.js"

export class QuestionsRepo extends Effect.Service<QuestionsRepo>()("@platform-kit/server/QuestionsRepo", {
  effect: makeDocuments({
    table: "questions",
    label: "Question",
    schema: Question,
    columns: (question) => ({ id: question.id, account_id: question.account_id, created_at: question.created_at })
  })
}) {}
