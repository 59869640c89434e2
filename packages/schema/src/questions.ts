/** Evaluation questions (docs/questions.md). */
import { Schema } from "effect"
import { AuditFields, Id, JsonObject, NonEmptyString, Nullable, Optional } from "./common.js"

export const QuestionType = Schema.Literal("categorical", "free_text", "rating", "number", "form", "timestamp")
  .annotations({ identifier: "QuestionType" })
export type QuestionType = typeof QuestionType.Type

const NonNegativeInt = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))

/** `min <= max` when both are given: a `{min, max}` range a caller can send half of. */
const orderedRange = <A extends { readonly min?: number | undefined; readonly max?: number | undefined }>(range: A) =>
  range.min === undefined || range.max === undefined || range.min <= range.max || "min must not be greater than max"

// ---------------------------------------------------------------------------------------------
// Options, as the response carries them

/** One choice of a categorical question; `audit_required` is `false` unless asked for. */
export class CategoricalChoice extends Schema.Class<CategoricalChoice>("CategoricalChoice")({
  label: Schema.String,
  value: Schema.String,
  audit_required: Schema.Boolean
}) {}

/** Options of a rating question (all three are required when the object is sent). */
export class RatingOptions extends Schema.Class<RatingOptions>("RatingOptions")({
  minLabel: Schema.String,
  maxLabel: Schema.String,
  /** At least two steps: a scale needs two ends. */
  scaleSteps: Schema.Int.pipe(Schema.greaterThanOrEqualTo(2))
}) {}

export class NumberOptions extends Schema.Class<NumberOptions>("NumberOptions")({
  min: Nullable(Schema.Number),
  max: Nullable(Schema.Number)
}) {}

export class CharacterLimit extends Schema.Class<CharacterLimit>("CharacterLimit")({
  min: Nullable(NonNegativeInt),
  max: Nullable(NonNegativeInt)
}) {}

export class FreeTextOptions extends Schema.Class<FreeTextOptions>("FreeTextOptions")({
  characterLimit: CharacterLimit
}) {}

// ---------------------------------------------------------------------------------------------
// Options, as a create sends them

export const CategoricalChoiceInput = Schema.Struct({
  label: Schema.String,
  value: Schema.String,
  audit_required: Optional(Schema.Boolean)
}).annotations({ identifier: "CategoricalChoiceInput" })

export const NumberOptionsInput = Schema.Struct({
  min: Optional(Schema.Number),
  max: Optional(Schema.Number)
}).pipe(Schema.filter(orderedRange), Schema.annotations({ identifier: "NumberOptionsInput" }))

export const CharacterLimitInput = Schema.Struct({
  min: Optional(NonNegativeInt),
  max: Optional(NonNegativeInt)
}).pipe(Schema.filter(orderedRange), Schema.annotations({ identifier: "CharacterLimitInput" }))

export const FreeTextOptionsInput = Schema.Struct({
  characterLimit: CharacterLimitInput
}).annotations({ identifier: "FreeTextOptionsInput" })

// ---------------------------------------------------------------------------------------------

/**
 * A question. Every field of the platform's question is present; an option the question was
 * created without is `null`. `allowMultiTimestamps` is request-only: for a timestamp question it
 * sets `multi` when `multi` itself is not given.
 */
export class Question extends Schema.Class<Question>("Question")({
  id: Id,
  type: QuestionType,
  title: Schema.String,
  prompt: Schema.String,
  choices: Nullable(Schema.Array(CategoricalChoice)),
  ratingOptions: Nullable(RatingOptions),
  numberOptions: Nullable(NumberOptions),
  freeTextOptions: Nullable(FreeTextOptions),
  multi: Nullable(Schema.Boolean),
  dropdown: Nullable(Schema.Boolean),
  required: Nullable(Schema.Boolean),
  conditions: Nullable(Schema.Array(JsonObject)),
  default: Nullable(Schema.Unknown),
  form_schema: Nullable(JsonObject),
  ...AuditFields
}) {}

/**
 * The create body. A categorical question needs at least one choice; that rule spans two fields
 * and is checked by the server after the shape (422 at `["body","choices"]`).
 */
export class CreateQuestion extends Schema.Class<CreateQuestion>("CreateQuestion")({
  type: QuestionType,
  title: NonEmptyString,
  prompt: NonEmptyString,
  account_id: Id,
  choices: Optional(Schema.Array(CategoricalChoiceInput)),
  ratingOptions: Optional(RatingOptions),
  numberOptions: Optional(NumberOptionsInput),
  freeTextOptions: Optional(FreeTextOptionsInput),
  multi: Optional(Schema.Boolean),
  dropdown: Optional(Schema.Boolean),
  required: Optional(Schema.Boolean),
  conditions: Optional(Schema.Array(JsonObject)),
  default: Optional(Schema.Unknown),
  form_schema: Optional(JsonObject),
  allowMultiTimestamps: Optional(Schema.Boolean)
}) {}
