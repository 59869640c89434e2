/**
 * v5 questions (`/v5/questions`, docs/questions.md "v5 questions"): the same questions `/v4/questions`
 * serves, in the v5 shape — `name` for `title`, one `configuration` object per type, `created_by`
 * as an identity, always a `question_type` (the SDK parses a question by it).
 */
import { Schema } from "effect"
import { DateTimeString, Id, Identity, JsonObject, NonEmptyString, Nullable, Optional, V5PageQuery } from "./common.js"

const NonNegativeInt = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))

/**
 * The configurations whose every field is optional are strict about their keys (an unknown key is
 * a 422): a create without `question_type` is told apart by the keys of its `configuration`.
 */
const strict = { parseOptions: { onExcessProperty: "error" } } as const

// ---------------------------------------------------------------------------------------------
// Configurations, as a create sends them

export const CategoricalConfigurationInput = Schema.Struct({
  choices: Schema.NonEmptyArray(Schema.String),
  dropdown: Optional(Schema.Boolean),
  multi: Optional(Schema.Boolean)
}).annotations({ identifier: "CategoricalConfigurationInput" })

export const RatingConfigurationInput = Schema.Struct({
  max_label: Schema.String,
  min_label: Schema.String,
  /** The number of points of the scale: at least two (as a v4 rating's `scaleSteps`). */
  steps: Schema.Int.pipe(Schema.greaterThanOrEqualTo(2))
}).annotations({ identifier: "RatingConfigurationInput" })

export const NumberConfigurationInput = Schema.Struct({
  max: Optional(Schema.Number),
  min: Optional(Schema.Number)
}).pipe(
  Schema.filter((range) => range.min === undefined || range.max === undefined || range.min <= range.max || "min must not be greater than max"),
  Schema.annotations({ identifier: "NumberConfigurationInput", ...strict })
)

export const FreeTextConfigurationInput = Schema.Struct({
  max_length: Optional(NonNegativeInt),
  min_length: Optional(NonNegativeInt)
}).pipe(
  Schema.filter((range) =>
    range.min_length === undefined || range.max_length === undefined || range.min_length <= range.max_length ||
    "min_length must not be greater than max_length"
  ),
  Schema.annotations({ identifier: "FreeTextConfigurationInput", ...strict })
)

export const FormConfigurationInput = Schema.Struct({
  form_schema: JsonObject
}).annotations({ identifier: "FormConfigurationInput" })

export const TimestampConfigurationInput = Schema.Struct({
  multi: Optional(Schema.Boolean)
}).annotations({ identifier: "TimestampConfigurationInput", ...strict })

const common = {
  name: NonEmptyString,
  prompt: NonEmptyString,
  conditions: Optional(Schema.Array(JsonObject)),
  account_id: Optional(Id)
}

const identifierOf = (type: string) => `Create${type.replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase())}Question`

/** `question_type` absent (or null): the variant's own type, so a decoded create always names its type. */
const questionType = <T extends string>(type: T) =>
  Schema.optionalWith(Schema.Literal(type), { exact: true, nullable: true, default: () => type })

/** A create variant whose `configuration` is required. */
const variant = <T extends string, C extends Schema.Schema.Any>(type: T, configuration: C) =>
  Schema.Struct({ ...common, question_type: questionType(type), configuration }).annotations({ identifier: identifierOf(type) })

/** A create variant whose `configuration` may be left out. */
const optionalVariant = <T extends string, C extends Schema.Schema.All>(type: T, configuration: C) =>
  Schema.Struct({ ...common, question_type: questionType(type), configuration: Optional(configuration) }).annotations({
    identifier: identifierOf(type)
  })

/**
 * `POST /v5/questions`: six variants by `question_type`. Without `question_type` the first
 * variant whose `configuration` fits is taken (categorical, rating, form, free text, number,
 * timestamp): a body with neither is a free-text question.
 */
export const CreateQuestionV5 = Schema.Union(
  variant("categorical", CategoricalConfigurationInput),
  variant("rating", RatingConfigurationInput),
  variant("form", FormConfigurationInput),
  optionalVariant("free_text", FreeTextConfigurationInput),
  optionalVariant("number", NumberConfigurationInput),
  optionalVariant("timestamp", TimestampConfigurationInput)
).annotations({ identifier: "CreateQuestionV5" })
export type CreateQuestionV5 = typeof CreateQuestionV5.Type

// ---------------------------------------------------------------------------------------------
// Configurations and questions, as the answer carries them

export class CategoricalConfiguration extends Schema.Class<CategoricalConfiguration>("CategoricalConfiguration")({
  choices: Schema.Array(Schema.String),
  dropdown: Nullable(Schema.Boolean),
  multi: Nullable(Schema.Boolean)
}) {}

export class RatingConfiguration extends Schema.Class<RatingConfiguration>("RatingConfiguration")({
  max_label: Schema.String,
  min_label: Schema.String,
  steps: Schema.Int
}) {}

export class NumberConfiguration extends Schema.Class<NumberConfiguration>("NumberConfiguration")({
  max: Nullable(Schema.Number),
  min: Nullable(Schema.Number)
}) {}

export class FreeTextConfiguration extends Schema.Class<FreeTextConfiguration>("FreeTextConfiguration")({
  max_length: Nullable(NonNegativeInt),
  min_length: Nullable(NonNegativeInt)
}) {}

export class FormConfiguration extends Schema.Class<FormConfiguration>("FormConfiguration")({
  form_schema: JsonObject
}) {}

export class TimestampConfiguration extends Schema.Class<TimestampConfiguration>("TimestampConfiguration")({
  multi: Nullable(Schema.Boolean)
}) {}

const questionFields = {
  id: Id,
  created_at: DateTimeString,
  created_by: Identity,
  name: Schema.String,
  prompt: Schema.String,
  conditions: Nullable(Schema.Array(JsonObject)),
  object: Schema.Literal("question")
}

export class CategoricalQuestionV5 extends Schema.Class<CategoricalQuestionV5>("CategoricalQuestionV5")({
  ...questionFields,
  question_type: Schema.Literal("categorical"),
  configuration: CategoricalConfiguration
}) {}

export class RatingQuestionV5 extends Schema.Class<RatingQuestionV5>("RatingQuestionV5")({
  ...questionFields,
  question_type: Schema.Literal("rating"),
  configuration: RatingConfiguration
}) {}

export class NumberQuestionV5 extends Schema.Class<NumberQuestionV5>("NumberQuestionV5")({
  ...questionFields,
  question_type: Schema.Literal("number"),
  configuration: NumberConfiguration
}) {}

export class FreeTextQuestionV5 extends Schema.Class<FreeTextQuestionV5>("FreeTextQuestionV5")({
  ...questionFields,
  question_type: Schema.Literal("free_text"),
  configuration: FreeTextConfiguration
}) {}

export class FormQuestionV5 extends Schema.Class<FormQuestionV5>("FormQuestionV5")({
  ...questionFields,
  question_type: Schema.Literal("form"),
  configuration: FormConfiguration
}) {}

export class TimestampQuestionV5 extends Schema.Class<TimestampQuestionV5>("TimestampQuestionV5")({
  ...questionFields,
  question_type: Schema.Literal("timestamp"),
  configuration: TimestampConfiguration
}) {}

/** A question as `/v5/questions` answers it: one of six, by `question_type` (always present). */
export const QuestionV5 = Schema.Union(
  CategoricalQuestionV5,
  RatingQuestionV5,
  NumberQuestionV5,
  FreeTextQuestionV5,
  FormQuestionV5,
  TimestampQuestionV5
).annotations({ identifier: "QuestionV5" })
export type QuestionV5 = typeof QuestionV5.Type

/** `GET /v5/questions`: cursor page (sorted by `created_at`), `account_id`. */
export const QuestionV5ListQuery = Schema.Struct({
  ...V5PageQuery(["created_at"]),
  account_id: Schema.optionalWith(Id, { exact: true })
})
