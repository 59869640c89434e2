import { ModelGroup, pageOf, V4Page } from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import { freshIdentity } from "../platform/Ids.js"
import { ModelGroupsRepo } from "./ModelGroupsRepo.js"
import type { ImplementGroup } from "../http/groups.js"
import { pageResponse, storedResponse } from "../http/storedResponses.js"

export const ModelGroupsHttp = (group: ImplementGroup) =>
  group("modelGroups", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* ModelGroupsRepo
    const listResponse = pageResponse(V4Page(ModelGroup))
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(payload.account_id)
          const [id, created_at] = yield* freshIdentity
          return yield* repo.insert(
            new ModelGroup({
              id,
              name: payload.name,
              description: payload.description ?? null,
              account_id,
              ...(yield* createdBy),
              created_at
            })
          )
        }))
      .handle("get", ({ path }) => Effect.flatMap(callerAccounts, (accounts) => Effect.map(repo.getText(path.model_group_id, accounts), storedResponse)))
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          Effect.map(repo.pageOfTexts({ accountIds, ...pageOf(urlParams) }), listResponse)))
  })
).pipe(Layer.provide(ModelGroupsRepo.Default))
