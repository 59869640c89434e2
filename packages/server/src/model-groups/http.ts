import { GenericDeleteResponse, ModelGroup, NotFound, pageOf, StoredModelInstance, V4Page } from "@platform-kit/schema"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import { freshIdentity } from "../platform/Ids.js"
import { ModelInstancesRepo } from "../models/registry/ModelInstancesRepo.js"
import { ModelUsageRepo } from "../models/usage/ModelUsageRepo.js"
import { usageStatistics } from "../models/usage/usageStatistics.js"
import { ModelGroupsRepo } from "./ModelGroupsRepo.js"
import type { ImplementGroup } from "../http/groups.js"
import { pageResponse, storedResponse } from "../http/storedResponses.js"

export const ModelGroupsHttp = (group: ImplementGroup) =>
  group("modelGroups", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* ModelGroupsRepo
    const models = yield* ModelInstancesRepo
    const sql = yield* SqlClient.SqlClient
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
      .handle("update", ({ path, payload }) =>
        Effect.gen(function*() {
          const accounts = yield* callerAccounts
          return yield* repo.transaction(
            Effect.flatMap(repo.get(path.model_group_id, accounts), (current) => repo.update(new ModelGroup({ ...current, ...payload })))
          )
        }))
      // the group's models stay, out of any group (docs/models.md "Model groups")
      .handle("delete", ({ path }) =>
        Effect.gen(function*() {
          const accounts = yield* callerAccounts
          yield* repo.transaction(Effect.gen(function*() {
            const group = yield* repo.get(path.model_group_id, accounts)
            const members = yield* models.findNarrowed([group.account_id], [sql`model_group_id = ${group.id}`])
            for (const model of members) yield* models.update(new StoredModelInstance({ ...model, model_group_id: null }))
            yield* repo.remove(group.id)
          }))
          return new GenericDeleteResponse({ count: 1, success: true })
        }))
      .handle("addModel", ({ path }) =>
        Effect.gen(function*() {
          const accounts = yield* callerAccounts
          const updated = yield* repo.transaction(Effect.gen(function*() {
            const group = yield* repo.get(path.model_group_id, accounts)
            const model = yield* models.get(path.model_instance_id, [group.account_id]).pipe(
              Effect.mapError(() => new NotFound({ detail: `Model ${path.model_instance_id} not found` }))
            )
            return yield* models.update(new StoredModelInstance({ ...model, model_group_id: group.id }))
          }))
          return yield* models.presentOne(updated, [])
        }))
      .handle("usage", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const group = yield* repo.get(path.model_group_id, yield* callerAccounts)
          return yield* usageStatistics({ model_group_id: group.id }, group.created_at, urlParams)
        }))
  })
).pipe(Layer.provide([ModelGroupsRepo.Default, ModelInstancesRepo.Default, ModelUsageRepo.Default]))
