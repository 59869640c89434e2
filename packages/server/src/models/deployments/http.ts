/**
 * Model deployments (`/v4/models/{id}/deployments`, `/v4/model-deployments`): a model deployed with
 * its provider's parameters. One the kit provisions is created `PENDING`, and its lifecycle
 * (../workflow.ts) makes it `READY`; one with nothing to provision is `READY` when created.
 */
import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import {
  Conflict,
  GenericDeleteResponse,
  ModelDeployment,
  type ModelDeploymentListQuery,
  NotFound,
  pageOf,
  vendorConfigurationOf
} from "@platform-kit/schema"
import { Effect } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../../auth/access.js"
import { Lifecycles } from "../../engine/Lifecycles.js"
import { storedResponse } from "../../http/storedResponses.js"
import { freshIdentity, Ids } from "../../platform/Ids.js"
import { modelNotFound } from "../registry/http.js"
import { ModelInstancesRepo } from "../registry/ModelInstancesRepo.js"
import { ModelServersRepo } from "../servers/ModelServersRepo.js"
import { ModelDeploymentsRepo } from "./ModelDeploymentsRepo.js"
import { checkProviderParameters } from "./providerParameters.js"

/**
 * Whether a deployment has nothing to provision (docs/models.md "Providers"): its model runs at an
 * OpenAI-compatible API of its own or on the built-in provider (`provider` in its parameters) and
 * no self-hosted vendor (`LAUNCH`, `LLMENGINE`) is configured for it.
 */
const nothingToProvision = (
  parameters: Readonly<Record<string, unknown>> | null | undefined,
  vendorConfiguration: unknown
) => (parameters?.provider === "builtin" || parameters?.provider === "openai_compatible") && vendorConfiguration == null

const deploymentNotFound = (id: string) => new NotFound({ detail: `Model deployment ${id} not found` })

export const DeploymentsHandlers = Effect.gen(function*() {
  const models = yield* ModelInstancesRepo
  const deployments = yield* ModelDeploymentsRepo
  const servers = yield* ModelServersRepo
  const lifecycles = yield* Lifecycles

  /** A page of deployments in the caller's accounts (of one model when given), sorted by `sort_by` then newest first. */
  const listDeployments = (urlParams: ModelDeploymentListQuery, modelInstanceId?: string) =>
    Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
      deployments.pageSorted({ accountIds, ...pageOf(urlParams), sortBy: urlParams.sort_by ?? [], modelInstanceId }))

  /** The deployment `deploymentId` of model `modelId` in the caller's accounts; else 404. */
  const deploymentOfModel = (modelId: string, deploymentId: string) =>
    Effect.gen(function*() {
      const deployment = yield* deployments.get(deploymentId, yield* callerAccounts)
      if (deployment.model_instance_id !== modelId) return yield* Effect.fail(deploymentNotFound(deploymentId))
      return deployment
    })

  return {
    createDeployment: HttpApiBuilder.handler(PlatformApi, "models", "createDeployment", ({ path, payload }) =>
      Effect.gen(function*() {
        const account_id = yield* accountForWrite(payload.account_id)
        // a deployment is made of a model of its account (rows written before the registry
        // may name any model id: they stay readable)
        if (!(yield* models.exists(path.model_instance_id, [account_id]))) {
          return yield* Effect.fail(modelNotFound(path.model_instance_id))
        }
        yield* checkProviderParameters(payload.model_creation_parameters, account_id)
        const [id, created_at] = yield* freshIdentity
        const ready = nothingToProvision(payload.model_creation_parameters, payload.vendor_configuration)
        const created = yield* deployments.insert(
          new ModelDeployment({
            id,
            name: payload.name,
            status: ready ? "READY" : "PENDING",
            model_creation_parameters: payload.model_creation_parameters ?? null,
            model_endpoint_id: ready ? yield* Effect.flatMap(Ids, (ids) => ids.make) : null,
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
        if (!ready) yield* lifecycles.start({ workflow: "ModelDeployment", id, account_id })
        return created
      })),
    listInstanceDeployments: HttpApiBuilder.handler(PlatformApi, "models", "listInstanceDeployments", ({ path, urlParams }) =>
      Effect.gen(function*() {
        const page = yield* listDeployments(urlParams, path.model_instance_id)
        // a model of the caller's, or one its deployments name (written before the registry)
        if (page.total_item_count === 0 && !(yield* models.exists(path.model_instance_id, yield* callerAccounts))) {
          return yield* Effect.fail(modelNotFound(path.model_instance_id))
        }
        return page
      })),
    getInstanceDeployment: HttpApiBuilder.handler(PlatformApi, "models", "getInstanceDeployment", ({ path }) => deploymentOfModel(path.model_instance_id, path.model_deployment_id)),
    updateDeployment: HttpApiBuilder.handler(PlatformApi, "models", "updateDeployment", ({ path, payload }) =>
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
      }))),
    deleteDeployment: HttpApiBuilder.handler(PlatformApi, "models", "deleteDeployment", ({ path }) =>
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
      })),
    getDeployment: HttpApiBuilder.handler(PlatformApi, "models", "getDeployment", ({ path }) =>
      Effect.flatMap(callerAccounts, (accounts) => Effect.map(deployments.getText(path.model_deployment_id, accounts), storedResponse))),
    listDeployments: HttpApiBuilder.handler(PlatformApi, "models", "listDeployments", ({ urlParams }) => listDeployments(urlParams))
  }
})
