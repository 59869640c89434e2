/**
 * The `models` group of the API, from its rooms: the registry (registry/), deployments
 * (deployments/), model servers (servers/) and usage statistics (usage/). Inference, a group of its
 * own, is in inference/.
 */
import { Effect, Layer } from "effect"
import { CredentialsRepo } from "../credentials/CredentialsRepo.js"
import type { ImplementGroup } from "../http/groups.js"
import { DeploymentsHandlers } from "./deployments/http.js"
import { ModelDeploymentsRepo } from "./deployments/ModelDeploymentsRepo.js"
import { RegistryHandlers } from "./registry/http.js"
import { ModelInstancesRepo } from "./registry/ModelInstancesRepo.js"
import { ModelTemplatesRepo } from "./templates/ModelTemplatesRepo.js"
import { ServersHandlers } from "./servers/http.js"
import { ModelServersRepo } from "./servers/ModelServersRepo.js"
import { UsageHandlers } from "./usage/http.js"
import { ModelUsageRepo } from "./usage/ModelUsageRepo.js"
import { ModelGroupsRepo } from "../model-groups/ModelGroupsRepo.js"

export const ModelsHttp = (group: ImplementGroup) =>
  group("models", (handlers) =>
    Effect.gen(function*() {
      const registry = yield* RegistryHandlers
      const deployments = yield* DeploymentsHandlers
      const servers = yield* ServersHandlers
      const usage = yield* UsageHandlers
      return handlers
        .handle("create", registry.create)
        .handle("list", registry.list)
        .handle("get", registry.get)
        .handle("update", registry.update)
        .handle("delete", registry.delete)
        .handle("createDeployment", deployments.createDeployment)
        .handle("listInstanceDeployments", deployments.listInstanceDeployments)
        .handle("getInstanceDeployment", deployments.getInstanceDeployment)
        .handle("updateDeployment", deployments.updateDeployment)
        .handle("deleteDeployment", deployments.deleteDeployment)
        .handle("getDeployment", deployments.getDeployment)
        .handle("deploymentUsage", usage.deploymentUsage)
        .handle("modelUsage", usage.modelUsage)
        .handle("listDeployments", deployments.listDeployments)
        .handle("createServer", servers.createServer)
        .handle("getServerByAlias", servers.getServerByAlias)
        .handle("getServerByAliasLegacy", servers.getServerByAliasLegacy)
        .handle("getServer", servers.getServer)
        .handle("getServerDeployment", servers.getServerDeployment)
        .handle("updateServerBackend", servers.updateServerBackend)
        .handle("rollbackServer", servers.rollbackServer)
        .handle("listServers", servers.listServers)
    })
  ).pipe(Layer.provide([ModelInstancesRepo.Default, ModelTemplatesRepo.Default, ModelGroupsRepo.Default, ModelDeploymentsRepo.Default, ModelServersRepo.Default, ModelUsageRepo.Default, CredentialsRepo.Default]))
