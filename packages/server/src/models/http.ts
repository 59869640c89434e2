import { PlatformApi } from "@platform-kit/api"
import { ModelDeployment, type ModelDeploymentListQuery, ModelServer, NotFound, pageOf, VendorConfiguration } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import { Lifecycles } from "../engine/Lifecycles.js"
import { freshIdentity } from "../platform/Ids.js"
import { ensureReference } from "../sql/documents.js"
import { ModelDeploymentsRepo } from "./ModelDeploymentsRepo.js"
import { ModelServersRepo } from "./ModelServersRepo.js"
import { group } from "../fast/implementations.js"
import { storedResponse } from "../http/storedResponses.js"

/** Status of a deployment when it is created; its lifecycle moves it to `READY` (models/workflow.ts). */
export const INITIAL_DEPLOYMENT_STATUS = "PENDING"

const deploymentNotFound = (id: string) => new NotFound({ detail: `Model deployment ${id} not found` })

export const ModelsLive = group(PlatformApi, "models", (handlers) =>
  Effect.gen(function*() {
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

    return handlers
      .handle("createDeployment", ({ path, payload }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(payload.account_id)
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
                : new VendorConfiguration(payload.vendor_configuration),
              account_id,
              ...(yield* createdBy),
              created_at
            })
          )
          // PENDING → READY, with an endpoint, on the engine (models/workflow.ts)
          yield* lifecycles.start({ workflow: "ModelDeployment", id, account_id })
          return created
        }))
      .handle("listInstanceDeployments", ({ path, urlParams }) =>
        listDeployments(urlParams, path.model_instance_id))
      .handle("getInstanceDeployment", ({ path }) =>
        Effect.gen(function*() {
          const deployment = yield* deployments.get(path.model_deployment_id, yield* callerAccounts)
          if (deployment.model_instance_id !== path.model_instance_id) {
            return yield* Effect.fail(deploymentNotFound(path.model_deployment_id))
          }
          return deployment
        }))
      .handle("getDeployment", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) => Effect.map(deployments.getText(path.model_deployment_id, accounts), storedResponse)))
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
      .handle("listServers", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          servers.page({ accountIds, ...pageOf(urlParams) })))
  })
).pipe(Layer.provide([ModelDeploymentsRepo.Default, ModelServersRepo.Default]))
