/**
 * The model registry's endpoints (`/v4/models`): models registered in an account, each of a type,
 * maybe in a model group.
 */
import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { GenericDeleteResponse, NotFound, pageOf, StoredModelInstance } from "@platform-kit/schema"
import { Effect } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../../auth/access.js"
import { freshIdentity } from "../../platform/Ids.js"
import { ensureReference } from "../../sql/documents.js"
import { ModelInstancesRepo } from "./ModelInstancesRepo.js"

export const modelNotFound = (id: string) => new NotFound({ detail: `Model ${id} not found` })

/** A model group named by a model, in its account (404 naming it when none). */
const ensureGroup = (id: string | null | undefined, accountId: string) =>
  id === null || id === undefined
    ? Effect.void
    : ensureReference({ table: "model_groups", id, accountIds: [accountId], label: "Model group" })

export const RegistryHandlers = Effect.gen(function*() {
  const models = yield* ModelInstancesRepo
  return {
    create: HttpApiBuilder.handler(PlatformApi, "models", "create", ({ payload }) =>
      Effect.gen(function*() {
        const account_id = yield* accountForWrite(payload.account_id)
        yield* ensureGroup(payload.model_group_id, account_id)
        const [id, created_at] = yield* freshIdentity
        const stored = yield* models.insert(
          new StoredModelInstance({
            id,
            name: payload.name,
            model_type: payload.model_type,
            base_model_id: payload.base_model_id ?? null,
            base_model_metadata: payload.base_model_metadata ?? null,
            description: payload.description ?? null,
            display_name: payload.display_name ?? null,
            model_card: payload.model_card ?? null,
            model_creation_parameters: payload.model_creation_parameters ?? null,
            model_group_id: payload.model_group_id ?? null,
            model_template_id: payload.model_template_id ?? null,
            model_vendor: payload.model_vendor ?? null,
            training_data_card: payload.training_data_card ?? null,
            account_id,
            ...(yield* createdBy),
            created_at
          })
        )
        return yield* models.presentOne(stored, [])
      })),
    list: HttpApiBuilder.handler(PlatformApi, "models", "list", ({ urlParams }) =>
      Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
        models.pageSorted({
          accountIds,
          ...pageOf(urlParams),
          sortBy: urlParams.sort_by ?? [],
          modelGroupId: urlParams.model_group_id,
          modelType: urlParams.model_type,
          views: urlParams.view ?? []
        }))),
    get: HttpApiBuilder.handler(PlatformApi, "models", "get", ({ path, urlParams }) =>
      Effect.gen(function*() {
        const stored = yield* Effect.mapError(models.get(path.model_id, yield* callerAccounts), () => modelNotFound(path.model_id))
        return yield* models.presentOne(stored, urlParams.view ?? [])
      })),
    update: HttpApiBuilder.handler(PlatformApi, "models", "update", ({ path, payload }) =>
      Effect.gen(function*() {
        const accounts = yield* callerAccounts
        const updated = yield* models.transaction(Effect.gen(function*() {
          const current = yield* Effect.mapError(models.get(path.model_id, accounts), () => modelNotFound(path.model_id))
          yield* ensureGroup(payload.model_group_id, current.account_id)
          return yield* models.update(new StoredModelInstance({ ...current, ...payload }))
        }))
        return yield* models.presentOne(updated, [])
      })),
    delete: HttpApiBuilder.handler(PlatformApi, "models", "delete", ({ path }) =>
      Effect.gen(function*() {
        yield* models.remove(path.model_id, yield* callerAccounts).pipe(
          Effect.catchTag("NotFound", () => Effect.fail(modelNotFound(path.model_id)))
        )
        return new GenericDeleteResponse({ count: 1, success: true })
      }))
  }
})
