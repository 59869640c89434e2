/**
 * v4 question sets (docs/questions.md "v4 question sets"): stored documents holding their ordered
 * `question_ids` (v4 questions of the set's account, checked on every write: 404 naming the first
 * one missing, nothing written); archived in place by DELETE, restored by `PATCH {restore: true}`.
 */
import {
  GenericDeleteResponse,
  pageOf,
  QuestionConfig,
  QuestionSetListItem
} from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import type { ImplementGroup } from "../http/groups.js"
import { freshIdentity } from "../platform/Ids.js"
import { questionSetOf, QuestionSetsRepo } from "./QuestionSetsRepo.js"

export const QuestionSetsHttp = (group: ImplementGroup) =>
  group("questionSets", (handlers) =>
    Effect.gen(function*() {
      const repo = yield* QuestionSetsRepo
      return handlers
        .handle("create", ({ payload }) =>
          Effect.gen(function*() {
            const account_id = yield* accountForWrite(payload.account_id)
            yield* repo.questionsOf(payload.question_ids, [account_id])
            const [id, created_at] = yield* freshIdentity
            const configs = payload.question_id_to_config
            const stored = yield* repo.insert({
              id,
              name: payload.name,
              instructions: payload.instructions ?? null,
              question_id_to_config: configs === undefined ? null : Object.fromEntries(
                Object.entries(configs).map(([questionId, config]) => [
                  questionId,
                  new QuestionConfig({ required: config.required ?? false }, true)
                ])
              ),
              archived_at: null,
              question_ids: payload.question_ids,
              account_id,
              ...(yield* createdBy),
              created_at
            })
            return questionSetOf(stored)
          }))
        .handle("get", ({ path }) => Effect.flatMap(callerAccounts, (accounts) => repo.withQuestions(path.question_set_id, accounts)))
        .handle("update", ({ path, payload }) =>
          Effect.gen(function*() {
            const accounts = yield* callerAccounts
            return yield* repo.transaction(Effect.gen(function*() {
              const current = yield* repo.get(path.question_set_id, accounts)
              if (payload.restore === true) return questionSetOf(yield* repo.update({ ...current, archived_at: null }))
              const question_ids = payload.question_ids ?? current.question_ids
              if (payload.question_ids !== undefined) yield* repo.questionsOf(question_ids, [current.account_id])
              // a question the new list leaves out takes its config with it
              const configs = current.question_id_to_config
              const question_id_to_config = configs === null
                ? null
                : Object.fromEntries(Object.entries(configs).filter(([questionId]) => question_ids.includes(questionId)))
              return questionSetOf(
                yield* repo.update({
                  ...current,
                  name: payload.name ?? current.name,
                  instructions: payload.instructions ?? current.instructions,
                  question_ids,
                  question_id_to_config
                })
              )
            }))
          }))
        .handle("list", ({ urlParams }) =>
          Effect.gen(function*() {
            const accountIds = yield* accountsForRead(urlParams.account_id)
            const page = yield* repo.page({ accountIds, ...pageOf(urlParams), where: repo.unlessArchived(urlParams.include_archived) })
            if (urlParams.view?.includes("Questions") !== true) {
              return { ...page, items: page.items.map((stored) => new QuestionSetListItem({ ...questionSetOf(stored) }, true)) }
            }
            const questions = yield* repo.questionsOfSets(page.items)
            const items = page.items.map((stored, i) => new QuestionSetListItem({ ...questionSetOf(stored), questions: questions[i]! }, true))
            return { ...page, items }
          }))
        // archived in place: reads still answer it, lists hide it, `restore` brings it back
        .handle("delete", ({ path }) =>
          Effect.gen(function*() {
            const accounts = yield* callerAccounts
            const [, now] = yield* freshIdentity
            yield* repo.transaction(Effect.gen(function*() {
              const set = yield* repo.get(path.question_set_id, accounts)
              if (set.archived_at === null) yield* repo.update({ ...set, archived_at: now })
            }))
            return new GenericDeleteResponse({ count: 1, success: true })
          }))
    })
  ).pipe(Layer.provide(QuestionSetsRepo.Default))
