/** v4 question sets (docs/questions.md "v4 question sets"). */
import { Schema } from "effect"
import { AuditFields, DateTimeString, Id, NonEmptyString, Nullable, OnlyWithView, Optional, QueryArray, QueryBoolean, V4PageQuery } from "./common.js"
import { Question } from "./questions.js"

/** How a question behaves in the set: `required` is `false` unless asked for. */
export class QuestionConfig extends Schema.Class<QuestionConfig>("QuestionConfig")({
  required: Schema.Boolean
}) {}

export const QuestionConfigInput = Schema.Struct({
  required: Optional(Schema.Boolean)
}).annotations({ identifier: "QuestionConfigInput" })

/**
 * A question set: named, ordered questions of the account. The set's `question_ids` are not a
 * field of the platform's answer (the questions are, with `view=Questions` or on a read by id);
 * `question_id_to_config` is `null` unless the create gave it.
 */
export class QuestionSet extends Schema.Class<QuestionSet>("QuestionSet")({
  id: Id,
  name: Schema.String,
  instructions: Nullable(Schema.String),
  question_id_to_config: Nullable(Schema.Record({ key: Schema.String, value: QuestionConfig })),
  /** `null` until archived (DELETE); `PATCH {restore: true}` sets it back to `null`. */
  archived_at: Nullable(DateTimeString),
  ...AuditFields
}) {}

/** A read by id: the set and its questions, in the order of its `question_ids`. */
export class QuestionSetWithQuestions extends Schema.Class<QuestionSetWithQuestions>("QuestionSetWithQuestions")({
  ...QuestionSet.fields,
  questions: Schema.Array(Question)
}) {}

/** A list item: `questions` only with `view=Questions`. */
export class QuestionSetListItem extends Schema.Class<QuestionSetListItem>("QuestionSetListItem")({
  ...QuestionSet.fields,
  questions: OnlyWithView(Schema.Array(Question))
}) {}

/** Ids listed once each: a question is in a set at most once. */
const QuestionIds = Schema.Array(Id).pipe(
  Schema.filter((ids) => {
    const seen = new Set<string>()
    for (const [index, id] of ids.entries()) {
      if (seen.has(id)) return { path: [index], message: `Question ${id} is listed twice` }
      seen.add(id)
    }
    return undefined
  })
)

/**
 * The create body. Every id of `question_ids` must be a v4 question of the set's account (404
 * naming it, checked by the server); every key of `question_id_to_config` must be one of
 * `question_ids` (422 at that key).
 */
export const CreateQuestionSet = Schema.Struct({
  account_id: Id,
  name: NonEmptyString,
  question_ids: QuestionIds,
  instructions: Optional(Schema.String),
  question_id_to_config: Optional(Schema.Record({ key: Schema.String, value: QuestionConfigInput }))
}).pipe(
  Schema.filter((body) => {
    const listed = new Set(body.question_ids)
    const stray = Object.keys(body.question_id_to_config ?? {}).find((id) => !listed.has(id))
    return stray === undefined
      ? undefined
      : { path: ["question_id_to_config", stray], message: `Question ${stray} is not one of question_ids` }
  })
).annotations({ identifier: "CreateQuestionSet" })
export type CreateQuestionSet = typeof CreateQuestionSet.Type

/**
 * A partial update (`restore` absent or `false`), or `{restore: true}` alone: the set is no longer
 * archived. There is no `question_id_to_config` here (only a create sets it); new `question_ids`
 * drop the configs of the questions they leave out.
 */
export const UpdateQuestionSet = Schema.Struct({
  restore: Optional(Schema.Boolean),
  name: Optional(NonEmptyString),
  instructions: Optional(Schema.String),
  question_ids: Optional(QuestionIds)
}).pipe(
  Schema.filter((update) => {
    if (update.restore !== true) return undefined
    const beside = (["name", "instructions", "question_ids"] as const).find((field) => update[field] !== undefined)
    return beside === undefined
      ? undefined
      : { path: [beside], message: "Not allowed with restore: true (a restore takes no other field)" }
  })
).annotations({ identifier: "UpdateQuestionSet" })
export type UpdateQuestionSet = typeof UpdateQuestionSet.Type

export const QuestionSetView = Schema.Literal("Questions").annotations({ identifier: "QuestionSetView" })

/** Query of the list: a v4 page, archived sets only with `include_archived=true`, `view=Questions`. */
export const QuestionSetListQuery = Schema.Struct({
  ...V4PageQuery,
  include_archived: Schema.optionalWith(QueryBoolean, { exact: true }),
  view: Schema.optionalWith(QueryArray(QuestionSetView), { exact: true })
})
