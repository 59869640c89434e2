import type { CreateQuestion } from "@platform-kit/schema"
import {
  CategoricalChoice,
  CharacterLimit,
  FreeTextOptions,
  NumberOptions,
  pageOf,
  Question
} from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import { freshIdentity } from "../platform/Ids.js"
import { requireChoices } from "./choices.js"
import { QuestionsRepo } from "./QuestionsRepo.js"
import type { ImplementGroup } from "../http/groups.js"
import { storedResponse } from "../http/storedResponses.js"

/** The stored fields of a create body: every option present, `null` where not given. */
const questionFields = (payload: CreateQuestion) => ({
  type: payload.type,
  title: payload.title,
  prompt: payload.prompt,
  choices: payload.choices?.map((choice) =>
    new CategoricalChoice({ label: choice.label, value: choice.value, audit_required: choice.audit_required ?? false })
  ) ?? null,
  ratingOptions: payload.ratingOptions ?? null,
  numberOptions: payload.numberOptions === undefined
    ? null
    : new NumberOptions({ min: payload.numberOptions.min ?? null, max: payload.numberOptions.max ?? null }),
  freeTextOptions: payload.freeTextOptions === undefined ? null : new FreeTextOptions({
    characterLimit: new CharacterLimit({
      min: payload.freeTextOptions.characterLimit.min ?? null,
      max: payload.freeTextOptions.characterLimit.max ?? null
    })
  }, true),
  // `allowMultiTimestamps` is request-only: for a timestamp question it stands in for `multi`
  multi: payload.multi ?? (payload.type === "timestamp" ? payload.allowMultiTimestamps : undefined) ?? null,
  dropdown: payload.dropdown ?? null,
  required: payload.required ?? null,
  conditions: payload.conditions ?? null,
  default: payload.default ?? null,
  form_schema: payload.form_schema ?? null
})

export const QuestionsHttp = (group: ImplementGroup) =>
  group("questions", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* QuestionsRepo
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          yield* requireChoices(payload)
          const account_id = yield* accountForWrite(payload.account_id)
          const [id, created_at] = yield* freshIdentity
          return yield* repo.insert(
            new Question({ id, ...questionFields(payload), account_id, ...(yield* createdBy), created_at }, true)
          )
        }))
      .handle("get", ({ path }) => Effect.flatMap(callerAccounts, (accounts) => Effect.map(repo.getText(path.question_id, accounts), storedResponse)))
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          repo.page({ accountIds, ...pageOf(urlParams) })))
  })
).pipe(Layer.provide(QuestionsRepo.Default))
