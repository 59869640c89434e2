import { PlatformApi } from "@platform-kit/api"
import type { Statement } from "@effect/sql"
import { ModelDeployment, type ModelDeploymentListQuery, ModelServer, NotFound, pageOf, VendorConfiguration } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import { freshIdentity } from "../platform/Ids.js"
import { ensureReference } from "../sql/documents.js"
import { deploymentOrderBy } from "./deploymentOrder.js"
import { ModelDeploymentsRepo } from "./ModelDeploymentsRepo.js"
import { ModelServersRepo } from "./ModelServersRepo.js"
import { group } from "../http/group.js"

/** Status of a deployment when it is created; nothing here moves it further. */
export const INITIAL_DEPLOYMENT_STATUS = "PENDING"

const deploymentNotFound = (id: string) => new NotFound({ detail: `Model deployment ${id} not found` })

export const ModelsLive = group(PlatformApi, "models", (handlers) =>
  Effect.gen(function*() {
    const deployments = yield* ModelDeploymentsRepo
    const servers = yield* ModelServersRepo

    /** A page of deployments in the caller's accounts, sorted by `sort_by` then newest first. */
    const listDeployments = (urlParams: ModelDeploymentListQuery, where: ReadonlyArray<Statement.Fragment> = []) =>
      Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
        deployments.page({
          accountIds,
          ...pageOf(urlParams),
          where,
          orderBy: deploymentOrderBy(deployments.sql, urlParams.sort_by ?? [])
        }))

    return handlers
      .handle("createDeployment", ({ path, payload }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(payload.account_id)
          const [id, created_at] = yield* freshIdentity
          return yield* deployments.insert(
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
        }))
      .handle("listInstanceDeployments", ({ path, urlParams }) =>
        listDeployments(urlParams, [deployments.sql`model_instance_id = ${path.model_instance_id}`]))
      .handle("getInstanceDeployment", ({ path }) =>
        Effect.gen(function*() {
          const deployment = yield* deployments.get(path.model_deployment_id, yield* callerAccounts)
          if (deployment.model_instance_id !== path.model_instance_id) {
            return yield* Effect.fail(deploymentNotFound(path.model_deployment_id))
          }
          return deployment
        }))
      .handle("getDeployment", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) => deployments.getResponse(path.model_deployment_id, accounts)))
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
      .handle("getServerByAlias", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const found = yield* servers.findByAlias(path.alias, yield* accountsForRead(urlParams.account_id))
          return yield* Option.match(found, {
            onNone: () => Effect.fail(new NotFound({ detail: `Model server with alias ${path.alias} not found` })),
            onSome: Effect.succeed
          })
        }))
      .handle("getServer", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) => servers.getResponse(path.model_server_id, accounts)))
      .handle("listServers", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          servers.page({ accountIds, ...pageOf(urlParams) })))
  })
).pipe(Layer.provide([ModelDeploymentsRepo.Default, ModelServersRepo.Default]))
