/**
 * Span assessments (v5; docs/span-assessments.md). An assessment is a judgement of one span of a
 * trace: a comment, a rating, an approval, a rubric, metadata or an overwrite, of a span the
 * account stores (spans.ts).
 */
import { Schema } from "effect"
import { DateTimeString, Id, JsonObject, NonEmptyString, Nullable, Optional } from "./common.js"

export const SpanAssessmentType = Schema.Literal("comment", "rating", "approval", "rubric", "metadata", "overwrite")
  .annotations({ identifier: "SpanAssessmentType" })
export type SpanAssessmentType = typeof SpanAssessmentType.Type

/**
 * An approval. The spec shows only `approved`; `rejected` is its counterpart. Anything else is a
 * 422 (`literal_error`).
 */
export const SpanAssessmentApproval = Schema.Literal("approved", "rejected").annotations({
  identifier: "SpanAssessmentApproval"
})

export class SpanAssessment extends Schema.Class<SpanAssessment>("SpanAssessment")({
  assessment_id: Id,
  trace_id: Schema.String,
  span_id: Schema.String,
  /** The id of the identity (user or service account) whose key created the assessment. */
  created_by: Id,
  assessment_type: SpanAssessmentType,
  object: Schema.Literal("span.assessment"),
  comment: Nullable(Schema.String),
  rating: Nullable(Schema.Int),
  approval: Nullable(SpanAssessmentApproval),
  rubric: Nullable(JsonObject),
  metadata: Nullable(JsonObject),
  overwrite: Nullable(JsonObject),
  account_id: Id,
  created_at: DateTimeString,
  updated_at: DateTimeString
}) {}

/** The value fields of an assessment: for each type, the field that carries its value. */
export const SpanAssessmentValueFields = {
  comment: Schema.String,
  rating: Schema.Int,
  approval: SpanAssessmentApproval,
  rubric: JsonObject,
  metadata: JsonObject,
  overwrite: JsonObject
} as const

/**
 * The value field an assessment of `type` must carry; it has the type's own name (`comment` for a
 * comment, `rating` for a rating, …).
 */
export const valueFieldOf = (type: SpanAssessmentType): SpanAssessmentType => type

/** A create whose type's value field is absent (or `null`): a 422 `value_error` at that field. */
const valueOfTypeMissing = (type: SpanAssessmentType) => {
  const field = valueFieldOf(type)
  return { path: [field], message: `${field} is required for a ${type} assessment` }
}

/**
 * `POST /v5/span-assessments`. `trace_id`, `span_id` and `assessment_type` are required, and so is
 * the value field of the type (`comment` for `comment`, …). The other value fields are optional
 * and kept when given.
 */
export class CreateSpanAssessment extends Schema.Class<CreateSpanAssessment>("CreateSpanAssessment")(
  Schema.Struct({
    trace_id: NonEmptyString,
    span_id: NonEmptyString,
    assessment_type: SpanAssessmentType,
    comment: Optional(SpanAssessmentValueFields.comment),
    rating: Optional(SpanAssessmentValueFields.rating),
    approval: Optional(SpanAssessmentValueFields.approval),
    rubric: Optional(SpanAssessmentValueFields.rubric),
    metadata: Optional(SpanAssessmentValueFields.metadata),
    overwrite: Optional(SpanAssessmentValueFields.overwrite),
    account_id: Optional(Id)
  }).pipe(
    Schema.filter((body) =>
      body[valueFieldOf(body.assessment_type)] !== undefined ? undefined : valueOfTypeMissing(body.assessment_type)
    )
  )
) {}

/**
 * `PATCH /v5/span-assessments/{assessment_id}`: the value fields. Absent = unchanged; `null`
 * clears the field, except the value field of the assessment's own type (a 422).
 */
export class UpdateSpanAssessment extends Schema.Class<UpdateSpanAssessment>("UpdateSpanAssessment")({
  comment: Schema.optionalWith(Schema.NullOr(SpanAssessmentValueFields.comment), { exact: true }),
  rating: Schema.optionalWith(Schema.NullOr(SpanAssessmentValueFields.rating), { exact: true }),
  approval: Schema.optionalWith(Schema.NullOr(SpanAssessmentValueFields.approval), { exact: true }),
  rubric: Schema.optionalWith(Schema.NullOr(SpanAssessmentValueFields.rubric), { exact: true }),
  metadata: Schema.optionalWith(Schema.NullOr(SpanAssessmentValueFields.metadata), { exact: true }),
  overwrite: Schema.optionalWith(Schema.NullOr(SpanAssessmentValueFields.overwrite), { exact: true })
}) {}

const SpanAssessmentLimit = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 10000))

/** A list that names neither a span nor a trace: a 422 `value_error` at `["query","span_id"]`. */
const spanOrTraceMissing = { path: ["span_id"], message: "span_id or trace_id is required" }

/**
 * `GET /v5/span-assessments`: `span_id` and/or `trace_id` (at least one), `assessment_type`,
 * `account_id`, an optional `limit` (1–10000; absent: every match) and `sort_order` (`asc` |
 * `desc`, on `created_at`; default `desc`, newest first, as every v5 list).
 */
export const SpanAssessmentListQuery = Schema.Struct({
    span_id: Schema.optionalWith(NonEmptyString, { exact: true }),
    trace_id: Schema.optionalWith(NonEmptyString, { exact: true }),
    assessment_type: Schema.optionalWith(SpanAssessmentType, { exact: true }),
    account_id: Schema.optionalWith(Id, { exact: true }),
    limit: Schema.optionalWith(SpanAssessmentLimit, { exact: true }),
    sort_order: Schema.optionalWith(Schema.Literal("asc", "desc"), { exact: true })
  }).pipe(
    Schema.filter((query) =>
      query.span_id !== undefined || query.trace_id !== undefined ? undefined : spanOrTraceMissing
    )
  )

/** The list envelope of span assessments, as the platform answers it: `{items, object: "list"}`, not the v5 cursor one. */
export const SpanAssessmentList = Schema.Struct({
  items: Schema.Array(SpanAssessment),
  object: Schema.Literal("list")
}).annotations({ identifier: "SpanAssessmentList" })
