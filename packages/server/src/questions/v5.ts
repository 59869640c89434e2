/**
 * The `questionsV5` group (`/v5/questions`, docs/questions.md "v5 questions"): the questions of
 * `/v4/questions` (one table, one repository) in the v5 shape. A v5 create is stored as the v4
 * question it maps to without loss; a v4 question reads in the v5 shape as its projection
 * (`toV5`): what the v5 shape has no field for (`required`, `default`, a choice's `label` and
 * `audit_required`) is left out.
 */
import {
  CategoricalChoice,
  CategoricalConfiguration,
  CategoricalQuestionV5,
  CharacterLimit,
  cursorOf,
  FormConfiguration,
  FormQuestionV5,
  FreeTextConfiguration,
  FreeTextOptions,
  FreeTextQuestionV5,
  Identity,
  NumberConfiguration,
  NumberOptions,
  NumberQuestionV5,
  Question,
  RatingConfiguration,
  RatingOptions,
  RatingQuestionV5,
  TimestampConfiguration,
  TimestampQuestionV5
} from "@platform-kit/schema"
import type { CreateQuestionV5, QuestionV5 } from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import type { ImplementGroup } from "../http/groups.js"
import { freshIdentity } from "../platform/Ids.js"
import { QuestionsRepo } from "./QuestionsRepo.js"

/** The v4 question fields of a v5 create (every option `null` unless its type's configuration sets it). */
export const fromV5 = (payload: CreateQuestionV5) => {
  const none = {
    choices: null,
    ratingOptions: null,
    numberOptions: null,
    freeTextOptions: null,
    multi: null,
    dropdown: null,
    form_schema: null
  }
  const options = (() => {
    switch (payload.question_type) {
      case "categorical": {
        const c = payload.configuration
        return {
          ...none,
          choices: c.choices.map((choice) => new CategoricalChoice({ label: choice, value: choice, audit_required: false })),
          multi: c.multi ?? null,
          dropdown: c.dropdown ?? null
        }
      }
      case "rating": {
        const c = payload.configuration
        return { ...none, ratingOptions: new RatingOptions({ minLabel: c.min_label, maxLabel: c.max_label, scaleSteps: c.steps }) }
      }
      case "form":
        return { ...none, form_schema: payload.configuration.form_schema }
      case "number": {
        const c = payload.configuration
        return { ...none, numberOptions: c === undefined ? null : new NumberOptions({ min: c.min ?? null, max: c.max ?? null }) }
      }
      case "timestamp":
        return { ...none, multi: payload.configuration?.multi ?? null }
      case "free_text": {
        const c = payload.configuration
        return {
          ...none,
          freeTextOptions: c === undefined
            ? null
            : new FreeTextOptions({ characterLimit: new CharacterLimit({ min: c.min_length ?? null, max: c.max_length ?? null }) }, true)
        }
      }
    }
  })()
  return {
    type: payload.question_type,
    title: payload.name,
    prompt: payload.prompt,
    ...options,
    required: null,
    conditions: payload.conditions ?? null,
    default: null
  }
}

/**
 * A stored question in the v5 shape. A v4 rating question created without `ratingOptions` reads
 * as an empty scale (`""`, `""`, 0 steps) and a v4 form question without `form_schema` with `{}`:
 * the v5 shape requires both configurations.
 */
export const toV5 = (question: Question): QuestionV5 => {
  const common = {
    id: question.id,
    created_at: question.created_at,
    created_by: new Identity({ id: question.created_by_user_id, type: question.created_by_identity_type, object: "identity" }),
    name: question.title,
    prompt: question.prompt,
    conditions: question.conditions,
    object: "question" as const
  }
  switch (question.type) {
    case "categorical":
      return new CategoricalQuestionV5({
        ...common,
        question_type: "categorical",
        configuration: new CategoricalConfiguration({
          choices: (question.choices ?? []).map((choice) => choice.value),
          dropdown: question.dropdown,
          multi: question.multi
        })
      }, true)
    case "rating": {
      const options = question.ratingOptions
      return new RatingQuestionV5({
        ...common,
        question_type: "rating",
        configuration: new RatingConfiguration({
          min_label: options?.minLabel ?? "",
          max_label: options?.maxLabel ?? "",
          steps: options?.scaleSteps ?? 0
        })
      }, true)
    }
    case "number":
      return new NumberQuestionV5({
        ...common,
        question_type: "number",
        configuration: new NumberConfiguration({ min: question.numberOptions?.min ?? null, max: question.numberOptions?.max ?? null })
      }, true)
    case "free_text": {
      const limit = question.freeTextOptions?.characterLimit
      return new FreeTextQuestionV5({
        ...common,
        question_type: "free_text",
        configuration: new FreeTextConfiguration({ min_length: limit?.min ?? null, max_length: limit?.max ?? null })
      }, true)
    }
    case "form":
      return new FormQuestionV5({
        ...common,
        question_type: "form",
        configuration: new FormConfiguration({ form_schema: question.form_schema ?? {} })
      }, true)
    case "timestamp":
      return new TimestampQuestionV5({
        ...common,
        question_type: "timestamp",
        configuration: new TimestampConfiguration({ multi: question.multi })
      }, true)
  }
}

export const QuestionsV5Http = (group: ImplementGroup) =>
  group("questionsV5", (handlers) =>
    Effect.gen(function*() {
      const repo = yield* QuestionsRepo
      return handlers
        .handle("create", ({ payload }) =>
          Effect.gen(function*() {
            const account_id = yield* accountForWrite(payload.account_id)
            const [id, created_at] = yield* freshIdentity
            const question = yield* repo.insert(
              new Question({ id, ...fromV5(payload), account_id, ...(yield* createdBy), created_at }, true)
            )
            return toV5(question)
          }))
        .handle("get", ({ path }) =>
          Effect.flatMap(callerAccounts, (accounts) => Effect.map(repo.get(path.question_id, accounts), toV5)))
        .handle("list", ({ urlParams }) =>
          Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
            Effect.map(repo.cursorPage({ accountIds, ...cursorOf(urlParams) }), (page) => ({ ...page, items: page.items.map(toV5) }))))
    })
  ).pipe(Layer.provide(QuestionsRepo.Default))
