/** Evaluation configs (docs/evaluation-configs.md). */
import { Schema } from "effect"
import { AuditFields, Id, NonEmptyString, Nullable, Optional } from "./common.js"

/**
 * Who answers the questions: people in Studio (`studio`) or here (`human`), the judge model
 * (`llm_auto`), or both (`llm_benchmark`).
 */
export const EvaluationType = Schema.Literal("studio", "llm_auto", "human", "llm_benchmark").annotations({ identifier: "EvaluationType" })

/** Sampling temperature of the auto-evaluation model: 0 to 2, as chat completion APIs take it. */
const Temperature = Schema.Number.pipe(Schema.between(0, 2))
const BatchSize = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))

/** The auto-evaluation parameters; one not given is `null`. */
export class AutoEvaluationParameters extends Schema.Class<AutoEvaluationParameters>("AutoEvaluationParameters")({
  temperature: Nullable(Temperature),
  batch_size: Nullable(BatchSize)
}) {}

export const AutoEvaluationParametersInput = Schema.Struct({
  temperature: Optional(Temperature),
  batch_size: Optional(BatchSize)
}).annotations({ identifier: "AutoEvaluationParametersInput" })

/**
 * An evaluation config. A create names a question set (and optionally a Studio project) of the
 * config's account (404 otherwise); a config written before question sets were stored keeps the
 * id it was given.
 */
export class EvaluationConfig extends Schema.Class<EvaluationConfig>("EvaluationConfig")({
  id: Id,
  evaluation_type: EvaluationType,
  question_set_id: Id,
  studio_project_id: Nullable(Id),
  auto_evaluation_model: Nullable(Schema.String),
  auto_evaluation_parameters: Nullable(AutoEvaluationParameters),
  ...AuditFields
}) {}

export class CreateEvaluationConfig extends Schema.Class<CreateEvaluationConfig>("CreateEvaluationConfig")({
  evaluation_type: EvaluationType,
  question_set_id: NonEmptyString,
  account_id: Id,
  studio_project_id: Optional(NonEmptyString),
  auto_evaluation_model: Optional(NonEmptyString),
  auto_evaluation_parameters: Optional(AutoEvaluationParametersInput)
}) {}
