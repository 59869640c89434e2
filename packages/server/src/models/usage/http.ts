/** The usage statistics of a deployment and of a model (docs/models.md "Usage"). */
import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Effect, Option } from "effect"
import { callerAccounts } from "../../auth/access.js"
import { ModelDeploymentsRepo } from "../deployments/ModelDeploymentsRepo.js"
import { modelNotFound } from "../registry/http.js"
import { ModelInstancesRepo } from "../registry/ModelInstancesRepo.js"
import { usageStatistics } from "./usageStatistics.js"

export const UsageHandlers = Effect.gen(function*() {
  const models = yield* ModelInstancesRepo
  const deployments = yield* ModelDeploymentsRepo
  return {
    deploymentUsage: HttpApiBuilder.handler(PlatformApi, "models", "deploymentUsage", ({ path, urlParams }) =>
      Effect.gen(function*() {
        const deployment = yield* deployments.get(path.model_deployment_id, yield* callerAccounts)
        return yield* usageStatistics({ model_deployment_id: deployment.id }, deployment.created_at, urlParams)
      })),
    modelUsage: HttpApiBuilder.handler(PlatformApi, "models", "modelUsage", ({ path, urlParams }) =>
      Effect.gen(function*() {
        const model = yield* models.findByIdOrName(path.model_name, yield* callerAccounts)
        if (Option.isNone(model)) return yield* Effect.fail(modelNotFound(path.model_name))
        return yield* usageStatistics({ model_instance_id: model.value.id }, model.value.created_at, urlParams)
      }))
  }
})
