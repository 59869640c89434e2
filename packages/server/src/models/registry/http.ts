/**
 * The model registry's endpoints (`/v4/models`): models registered in an account, each of a type,
 * maybe in a model group.
 */
import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { GenericDeleteResponse, NotFound, pageOf, StoredModelInstance, ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../../auth/access.js"
import { freshIdentity } from "../../platform/Ids.js"
import { ModelGroupsRepo } from "../../model-groups/ModelGroupsRepo.js"
import { checkParameters, templateDefaults } from "../templates/templateDefaults.js"
import { ModelTemplatesRepo } from "../templates/ModelTemplatesRepo.js"
import { ModelInstancesRepo } from "./ModelInstancesRepo.js"

export const modelNotFound = (id: string) => new NotFound({ detail: `Model ${id} not found` })

/** A create with neither `model_type` nor a template to take it from. */
const modelTypeMissing = new ValidationError({
  detail: [new ValidationIssue({ loc: ["body", "model_type"], msg: "Field required", type: "missing", input: null })]
})

export const RegistryHandlers = Effect.gen(function*() {
  const models = yield* ModelInstancesRepo
  const templates = yield* ModelTemplatesRepo
  const groups = yield* ModelGroupsRepo

  /**
   * The model group a model names, in its account (404 naming it when none), row-locked inside a
   * transaction: a group deleted at the same time never misses the model (model-groups/http.ts).
   */
  const ensureGroup = (id: string | null | undefined, accountId: string) =>
    id === null || id === undefined ? Effect.void : Effect.asVoid(groups.get(id, [accountId]))

  /** The model template `id` of the model's account, row-locked inside a transaction (404 naming it when none). */
  const templateOf = (id: string, accountId: string) => templates.get(id, [accountId])

  return {
    create: HttpApiBuilder.handler(PlatformApi, "models", "create", ({ payload }) =>
      Effect.gen(function*() {
        const templateId = payload.model_template_id
        if (payload.model_type === undefined && templateId === undefined) return yield* Effect.fail(modelTypeMissing)
        const account_id = yield* accountForWrite(payload.account_id)
        const [id, created_at] = yield* freshIdentity
        const audit = yield* createdBy
        // with a template or a group: read (and lock) them, and insert in the same transaction, so
        // that a delete of either never misses the model (ModelTemplatesRepo.removeUnused)
        const create = Effect.gen(function*() {
          yield* ensureGroup(payload.model_group_id, account_id)
          const typed = templateId === undefined
            ? { model_type: payload.model_type!, model_vendor: payload.model_vendor ?? null, model_creation_parameters: payload.model_creation_parameters ?? null }
            : yield* templateDefaults(yield* templateOf(templateId, account_id), payload)
          return yield* models.insert(
            new StoredModelInstance({
              id,
              name: payload.name,
              ...typed,
              base_model_id: payload.base_model_id ?? null,
              base_model_metadata: payload.base_model_metadata ?? null,
              description: payload.description ?? null,
              display_name: payload.display_name ?? null,
              model_card: payload.model_card ?? null,
              model_group_id: payload.model_group_id ?? null,
              model_template_id: templateId ?? null,
              training_data_card: payload.training_data_card ?? null,
              account_id,
              ...audit,
              created_at
            })
          )
        })
        const stored = yield* (templateId === undefined && payload.model_group_id == null ? create : models.transaction(create))
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
          const next = new StoredModelInstance({ ...current, ...payload })
          // a template named now (404 when not the account's), or new creation parameters of a
          // templated model: checked against the template's parameter schema (an update fills in
          // no defaults; a template id stored before templates were (none such) is not checked)
          if (payload.model_template_id !== undefined && payload.model_template_id !== null) {
            yield* checkParameters(yield* templateOf(payload.model_template_id, current.account_id), next.model_creation_parameters)
          } else if (payload.model_creation_parameters !== undefined && next.model_template_id !== null) {
            const template = yield* templates.findById(next.model_template_id, [current.account_id])
            if (Option.isSome(template)) yield* checkParameters(template.value, next.model_creation_parameters)
          }
          return yield* models.update(next)
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
