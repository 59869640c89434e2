import { AutoEvaluationParameters, EvaluationConfig, GenericDeleteResponse, pageOf } from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import { freshIdentity } from "../platform/Ids.js"
import { ensureReference } from "../sql/documents.js"
import { EvaluationConfigsRepo } from "./EvaluationConfigsRepo.js"
import type { ImplementGroup } from "../http/groups.js"
import { storedResponse } from "../http/storedResponses.js"

export const EvaluationConfigsHttp = (group: ImplementGroup) =>
  group("evaluationConfigs", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* EvaluationConfigsRepo
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(payload.account_id)
          // the question set (and Studio project) must be the account's: 404 naming it, nothing written
          yield* ensureReference({ table: "question_sets", id: payload.question_set_id, accountIds: [account_id], label: "Question set" })
          if (payload.studio_project_id !== undefined) {
            yield* ensureReference({ table: "studio_projects", id: payload.studio_project_id, accountIds: [account_id], label: "Studio project" })
          }
          const [id, created_at] = yield* freshIdentity
          const parameters = payload.auto_evaluation_parameters
          return yield* repo.insert(
            new EvaluationConfig({
              id,
              evaluation_type: payload.evaluation_type,
              question_set_id: payload.question_set_id,
              studio_project_id: payload.studio_project_id ?? null,
              auto_evaluation_model: payload.auto_evaluation_model ?? null,
              auto_evaluation_parameters: parameters === undefined ? null : new AutoEvaluationParameters({
                temperature: parameters.temperature ?? null,
                batch_size: parameters.batch_size ?? null
              }),
              account_id,
              ...(yield* createdBy),
              created_at
            }, true)
          )
        }))
      .handle("get", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) => Effect.map(repo.getText(path.evaluation_config_id, accounts), storedResponse)))
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          repo.page({ accountIds, ...pageOf(urlParams) })))
      // gone for good: a v4 evaluation that names it keeps its `evaluation_config_id` and reads
      // `evaluation_config_expanded` as null (docs/evaluation-configs.md)
      .handle("delete", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) =>
          repo.transaction(Effect.gen(function*() {
            yield* repo.get(path.evaluation_config_id, accounts)
            yield* repo.remove(path.evaluation_config_id)
            return new GenericDeleteResponse({ count: 1, success: true })
          }))))
  })
).pipe(Layer.provide(EvaluationConfigsRepo.Default))
