/**
 * What a `model` string names (docs/models.md "Execution"), in this order: the built-in model
 * (`builtin`, `builtin/echo`); a model server's alias; a deployment's id; a registered model's id
 * or name (its newest READY deployment). Else 404; a deployment that is not READY, or a model
 * without one, is a 409. Used by the top-level inference endpoints and by evaluations' tasks.
 */
import { Conflict, type ModelDeployment, NotFound } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { ModelDeploymentsRepo } from "../deployments/ModelDeploymentsRepo.js"
import { ModelInstancesRepo } from "../registry/ModelInstancesRepo.js"
import { ModelServersRepo } from "../servers/ModelServersRepo.js"
import { builtinProvider } from "./builtinProvider.js"
import { ModelProviders } from "./ModelProviders.js"
import type { Provider } from "./Provider.js"

/** The names of the built-in model a `model` string may give. */
const builtinNames = new Set(["builtin", "builtin/echo"])

/** A provider, and the deployment it runs (none: the built-in model by name). */
export interface Resolved {
  readonly provider: Provider
  readonly deployment: ModelDeployment | undefined
}

export class ModelResolver extends Effect.Service<ModelResolver>()("@platform-kit/server/ModelResolver", {
  effect: Effect.gen(function*() {
    const deployments = yield* ModelDeploymentsRepo
    const models = yield* ModelInstancesRepo
    const servers = yield* ModelServersRepo
    const providers = yield* ModelProviders

    /** The provider of `deployment`, once it is READY (else 409). */
    const ofDeployment = (deployment: ModelDeployment): Effect.Effect<Resolved, Conflict> =>
      deployment.status === "READY"
        ? Effect.map(providers.forDeployment(deployment), (provider) => ({ provider, deployment }))
        : Effect.fail(new Conflict({ detail: `Model deployment ${deployment.id} is ${deployment.status}, not READY` }))

    /** What `model` names in `accounts` (the first is the one the built-in model runs for). */
    const resolve = (model: string, accounts: ReadonlyArray<string>): Effect.Effect<Resolved, NotFound | Conflict> =>
      Effect.gen(function*() {
        if (builtinNames.has(model)) return { provider: builtinProvider, deployment: undefined }
        const server = yield* servers.findByAlias(model, accounts)
        if (Option.isSome(server)) {
          return yield* ofDeployment(yield* deployments.get(server.value.model_deployment_id, [server.value.account_id]))
        }
        const deployment = yield* deployments.findById(model, accounts)
        if (Option.isSome(deployment)) return yield* ofDeployment(deployment.value)
        const registered = yield* models.findByIdOrName(model, accounts)
        if (Option.isSome(registered)) {
          const ready = yield* deployments.newestReadyOf(registered.value.id, [registered.value.account_id])
          if (Option.isNone(ready)) return yield* Effect.fail(new Conflict({ detail: `Model ${model} has no READY deployment` }))
          return yield* ofDeployment(ready.value)
        }
        return yield* Effect.fail(
          new NotFound({ detail: `Model ${model} not found: name a model server alias, a deployment id, a model's id or name, or builtin` })
        )
      })

    return { resolve, ofDeployment } as const
  }),
  dependencies: [ModelDeploymentsRepo.Default, ModelInstancesRepo.Default, ModelServersRepo.Default, ModelProviders.Default]
}) {}
