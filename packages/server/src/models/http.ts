import {
  Conflict,
  GenericDeleteResponse,
  ModelDeployment,
  type ModelDeploymentListQuery,
  ModelServer,
  ModelServerRollbackResponse,
  ModelServerUpdateBackendResponse,
  NotFound,
  pageOf,
  StoredModelInstance,
  vendorConfigurationOf
} from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import { Lifecycles } from "../engine/Lifecycles.js"
import { freshIdentity } from "../platform/Ids.js"
import { ensureReference } from "../sql/documents.js"
import { ModelDeploymentsRepo } from "./ModelDeploymentsRepo.js"
import { ModelInstancesRepo } from "./ModelInstancesRepo.js"
import { ModelServersRepo } from "./ModelServersRepo.js"
import { ModelUsageRepo } from "./ModelUsageRepo.js"
import { usageStatistics } from "./usageStatistics.js"
import { checkProviderParameters } from "./providerParameters.js"
import { CredentialsRepo } from "../credentials/CredentialsRepo.js"
import type { ImplementGroup } from "../http/groups.js"
import { storedResponse } from "../http/storedResponses.js"

/** Status of a deployment when it is created; its lifecycle moves it to `READY` (models/workflow.ts). */
export const INITIAL_DEPLOYMENT_STATUS = "PENDING"

const deploymentNotFound = (id: string) => new NotFound({ detail: `Model deployment ${id} not found` })
const modelNotFound = (id: string) => new NotFound({ detail: `Model ${id} not found` })

export const ModelsHttp = (group: ImplementGroup) =>
  group("models", (handlers) =>
  Effect.gen(function*() {
    const models = yield* ModelInstancesRepo
    const deployments = yield* ModelDeploymentsRepo
    const servers = yield* ModelServersRepo
    const lifecycles = yield* Lifecycles

    /** A page of deployments in the caller's accounts (of one model when given), sorted by `sort_by` then newest first. */
    const listDeployments = (urlParams: ModelDeploymentListQuery, modelInstanceId?: string) =>
      Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
        deployments.pageSorted({ accountIds, ...pageOf(urlParams), sortBy: urlParams.sort_by ?? [], modelInstanceId }))

    /** The server with `alias` in the `account_id` query's account, else the caller's accounts; else 404. */
    const serverByAlias = (alias: string, accountId: string | undefined) =>
      Effect.gen(function*() {
        const found = yield* servers.findByAlias(alias, yield* accountsForRead(accountId))
        return yield* Option.match(found, {
          onNone: () => Effect.fail(new NotFound({ detail: `Model server with alias ${alias} not found` })),
          onSome: Effect.succeed
        })
      })

    /** A model group named by a model, in its account (404 naming it when none). */
    const ensureGroup = (id: string | null | undefined, accountId: string) =>
      id === null || id === undefined
        ? Effect.void
        : ensureReference({ table: "model_groups", id, accountIds: [accountId], label: "Model group" })

    /** The deployment `deploymentId` of model `modelId` in the caller's accounts; else 404. */
    const deploymentOfModel = (modelId: string, deploymentId: string) =>
      Effect.gen(function*() {
        const deployment = yield* deployments.get(deploymentId, yield* callerAccounts)
        if (deployment.model_instance_id !== modelId) return yield* Effect.fail(deploymentNotFound(deploymentId))
        return deployment
      })

    return handlers
      .handle("create", ({ payload }) =>
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
        }))
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          models.pageSorted({
            accountIds,
            ...pageOf(urlParams),
            sortBy: urlParams.sort_by ?? [],
            modelGroupId: urlParams.model_group_id,
            modelType: urlParams.model_type,
            views: urlParams.view ?? []
          })))
      .handle("get", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const stored = yield* Effect.mapError(models.get(path.model_id, yield* callerAccounts), () => modelNotFound(path.model_id))
          return yield* models.presentOne(stored, urlParams.view ?? [])
        }))
      .handle("update", ({ path, payload }) =>
        Effect.gen(function*() {
          const accounts = yield* callerAccounts
          const updated = yield* models.transaction(Effect.gen(function*() {
            const current = yield* Effect.mapError(models.get(path.model_id, accounts), () => modelNotFound(path.model_id))
            yield* ensureGroup(payload.model_group_id, current.account_id)
            return yield* models.update(new StoredModelInstance({ ...current, ...payload }))
          }))
          return yield* models.presentOne(updated, [])
        }))
      .handle("delete", ({ path }) =>
        Effect.gen(function*() {
          yield* models.remove(path.model_id, yield* callerAccounts).pipe(
            Effect.catchTag("NotFound", () => Effect.fail(modelNotFound(path.model_id)))
          )
          return new GenericDeleteResponse({ count: 1, success: true })
        }))
      .handle("createDeployment", ({ path, payload }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(payload.account_id)
          // a deployment is made of a model of its account (rows written before the registry
          // may name any model id: they stay readable)
          if (!(yield* models.exists(path.model_instance_id, [account_id]))) {
            return yield* Effect.fail(modelNotFound(path.model_instance_id))
          }
          yield* checkProviderParameters(payload.model_creation_parameters, account_id)
          const [id, created_at] = yield* freshIdentity
          const created = yield* deployments.insert(
            new ModelDeployment({
              id,
              name: payload.name,
              status: INITIAL_DEPLOYMENT_STATUS,
              model_creation_parameters: payload.model_creation_parameters ?? null,
              model_endpoint_id: null,
              model_instance_id: path.model_instance_id,
              deployment_metadata: payload.deployment_metadata ?? null,
              vendor_configuration: payload.vendor_configuration === undefined
                ? null
                : vendorConfigurationOf(payload.vendor_configuration),
              account_id,
              ...(yield* createdBy),
              created_at
            }, true)
          )
          // PENDING → READY, with an endpoint, on the engine (models/workflow.ts)
          yield* lifecycles.start({ workflow: "ModelDeployment", id, account_id })
          return created
        }))
      .handle("listInstanceDeployments", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const page = yield* listDeployments(urlParams, path.model_instance_id)
          // a model of the caller's, or one its deployments name (written before the registry)
          if (page.total_item_count === 0 && !(yield* models.exists(path.model_instance_id, yield* callerAccounts))) {
            return yield* Effect.fail(modelNotFound(path.model_instance_id))
          }
          return page
        }))
      .handle("getInstanceDeployment", ({ path }) => deploymentOfModel(path.model_instance_id, path.model_deployment_id))
      .handle("updateDeployment", ({ path, payload }) =>
        deployments.transaction(Effect.gen(function*() {
          const current = yield* deploymentOfModel(path.model_instance_id, path.model_deployment_id)
          yield* checkProviderParameters(payload.model_creation_parameters, current.account_id)
          const { vendor_configuration, ...rest } = payload
          return yield* deployments.update(
            new ModelDeployment({
              ...current,
              ...rest,
              ...(vendor_configuration === undefined ? {} : { vendor_configuration: vendorConfigurationOf(vendor_configuration) })
            }, true)
          )
        })))
      .handle("deleteDeployment", ({ path }) =>
        Effect.gen(function*() {
          yield* deployments.transaction(Effect.gen(function*() {
            const deployment = yield* deploymentOfModel(path.model_instance_id, path.model_deployment_id)
            const serving = yield* servers.servingCount(deployment.id)
            if (serving > 0) {
              return yield* Effect.fail(
                new Conflict({ detail: `Model deployment ${deployment.id} is served by ${serving} model server${serving === 1 ? "" : "s"}` })
              )
            }
            yield* deployments.remove(deployment.id)
          }))
          return new GenericDeleteResponse({ count: 1, success: true })
        }))
      .handle("getDeployment", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) => Effect.map(deployments.getText(path.model_deployment_id, accounts), storedResponse)))
      .handle("deploymentUsage", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const deployment = yield* deployments.get(path.model_deployment_id, yield* callerAccounts)
          return yield* usageStatistics({ model_deployment_id: deployment.id }, deployment.created_at, urlParams)
        }))
      .handle("modelUsage", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const model = yield* models.findByIdOrName(path.model_name, yield* callerAccounts)
          if (Option.isNone(model)) return yield* Effect.fail(modelNotFound(path.model_name))
          return yield* usageStatistics({ model_instance_id: model.value.id }, model.value.created_at, urlParams)
        }))
      .handle("listDeployments", ({ urlParams }) => listDeployments(urlParams))
      .handle("createServer", ({ payload }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(payload.account_id)
          yield* ensureReference({
            table: "model_deployments",
            id: payload.model_deployment_id,
            accountIds: [account_id],
            label: "Model deployment"
          })
          const [model_server_id, created_at] = yield* freshIdentity
          return yield* servers.insert(
            new ModelServer({
              model_server_id,
              name: payload.name,
              account_id,
              model_deployment_id: payload.model_deployment_id,
              alias: payload.alias ?? null,
              ...(yield* createdBy),
              created_at
            })
          )
        }))
      .handle("getServerByAlias", ({ path, urlParams }) => serverByAlias(path.alias, urlParams.account_id))
      .handle("getServerByAliasLegacy", ({ path, urlParams }) => serverByAlias(path.alias, urlParams.account_id))
      .handle("getServer", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) => Effect.map(servers.getText(path.model_server_id, accounts), storedResponse)))
      .handle("updateServerBackend", ({ path, payload }) =>
        Effect.gen(function*() {
          const accounts = yield* callerAccounts
          return yield* servers.transaction(Effect.gen(function*() {
            yield* servers.lock(path.model_server_id, accounts)
            const server = yield* servers.get(path.model_server_id, accounts)
            yield* ensureReference({
              table: "model_deployments",
              id: payload.new_model_deployment_id,
              accountIds: [server.account_id],
              label: "Model deployment"
            })
            const old = server.model_deployment_id
            const history = yield* servers.historyOf(server.model_server_id)
            const changed = payload.new_model_deployment_id !== old
            yield* servers.replaceBackend(
              new ModelServer({ ...server, model_deployment_id: payload.new_model_deployment_id }),
              changed ? [...history, old] : history
            )
            return new ModelServerUpdateBackendResponse({
              account_id: server.account_id,
              model_deployment_id: payload.new_model_deployment_id,
              model_server_id: server.model_server_id,
              name: server.name,
              new_model_deployment_id: payload.new_model_deployment_id,
              old_model_deployment_id: old,
              alias: server.alias
            })
          }))
        }))
      .handle("rollbackServer", ({ path }) =>
        Effect.gen(function*() {
          const accounts = yield* callerAccounts
          return yield* servers.transaction(Effect.gen(function*() {
            yield* servers.lock(path.model_server_id, accounts)
            const server = yield* servers.get(path.model_server_id, accounts)
            const history = yield* servers.historyOf(server.model_server_id)
            const previous = history.at(-1)
            if (previous === undefined) {
              return yield* Effect.fail(
                new Conflict({ detail: `Model server ${server.model_server_id} has no earlier deployment to roll back to` })
              )
            }
            if (!(yield* deployments.findById(previous, [server.account_id])).pipe(Option.isSome)) {
              return yield* Effect.fail(
                new Conflict({ detail: `Model deployment ${previous}, which model server ${server.model_server_id} served before, no longer exists` })
              )
            }
            yield* servers.replaceBackend(new ModelServer({ ...server, model_deployment_id: previous }), history.slice(0, -1))
            return new ModelServerRollbackResponse({ from_deployment: server.model_deployment_id, rolled_back_to_deployment: previous })
          }))
        }))
      .handle("listServers", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          servers.page({ accountIds, ...pageOf(urlParams) })))
  })
).pipe(Layer.provide([ModelInstancesRepo.Default, ModelDeploymentsRepo.Default, ModelServersRepo.Default, ModelUsageRepo.Default, CredentialsRepo.Default]))
