/**
 * `GET /v5/chat/completions/models` (docs/inference-v5.md "The catalogue"): what the caller may
 * name as `model`, from the kit's own records: `builtin`, each model server alias (available when
 * the deployment it serves is READY), each registered model with a READY deployment. Vendors:
 * `openai` for an OpenAI-compatible upstream, `launch` for what the kit runs itself.
 */
import { ValidationError, ValidationIssue } from "@platform-kit/schema"
import type { CompletionModelsQuery, ModelDefinition, ModelDeployment, ModelType } from "@platform-kit/schema"
import { Effect } from "effect"
import { accountsForRead } from "../../auth/access.js"
import type { ModelDeploymentsRepo } from "../deployments/ModelDeploymentsRepo.js"
import type { ModelInstancesRepo } from "../registry/ModelInstancesRepo.js"
import type { ModelServersRepo } from "../servers/ModelServersRepo.js"

const vendorOf = (deployment: ModelDeployment | undefined): ModelDefinition["model_vendor"] =>
  deployment?.model_creation_parameters?.provider === "openai_compatible" ? "openai" : "launch"

const typeOf = (type: ModelType | undefined): ModelDefinition["model_type"] =>
  type === "CHAT_COMPLETION" ? "chat_completion" : type === "COMPLETION" ? "completion" : "generic"

/**
 * `items` in `query`'s order, after `starting_after` / before `ending_before` (model names), `limit`
 * of them; a cursor that names no model of the list is a 422 on its field, as every v5 cursor.
 */
const pageOf = (items: ReadonlyArray<ModelDefinition>, query: typeof CompletionModelsQuery.Type) => {
  const sorted = [...items].sort((a, b) => a.model_name < b.model_name ? -1 : a.model_name > b.model_name ? 1 : 0)
  if (query.sort_order === "desc") sorted.reverse()
  const limit = query.limit ?? 100
  const field = query.ending_before !== undefined ? "ending_before" : "starting_after"
  const cursor = query.ending_before ?? query.starting_after
  const at = cursor === undefined ? -1 : sorted.findIndex((item) => item.model_name === cursor)
  if (cursor !== undefined && at < 0) {
    return Effect.fail(
      new ValidationError({ detail: [new ValidationIssue({ loc: ["query", field], msg: "No model with this name in the list", type: "value_error", input: cursor })] })
    )
  }
  if (query.ending_before !== undefined) return Effect.succeed(sorted.slice(Math.max(0, at - limit), at))
  return Effect.succeed(sorted.slice(at + 1, at + 1 + limit))
}

/** The repositories the catalogue reads. */
export interface CatalogueSources {
  readonly deployments: ModelDeploymentsRepo
  readonly models: ModelInstancesRepo
  readonly servers: ModelServersRepo
}

export const catalogue = (sources: CatalogueSources, query: typeof CompletionModelsQuery.Type) =>
  Effect.gen(function*() {
    const accounts = yield* accountsForRead()
    const deployments = yield* sources.deployments.findAll(accounts)
    const models = yield* sources.models.findAll(accounts)
    const servers = yield* sources.servers.findAll(accounts)
    const byId = new Map(deployments.map((deployment) => [deployment.id, deployment]))
    const typeById = new Map(models.map((model) => [model.id, model.model_type]))
    const ready = deployments.filter((deployment) => deployment.status === "READY")
    const items: Array<ModelDefinition> = [
      { model_name: "builtin", model_type: "chat_completion", model_vendor: "launch", model_availability: "available" },
      ...servers.flatMap((server) => {
        if (server.alias === null) return []
        const deployment = byId.get(server.model_deployment_id)
        return [{
          model_name: server.alias,
          model_type: typeOf(deployment === undefined ? undefined : typeById.get(deployment.model_instance_id)),
          model_vendor: vendorOf(deployment),
          model_availability: deployment?.status === "READY" ? "available" as const : "unavailable" as const
        }]
      }),
      ...models.flatMap((model) => {
        const deployment = ready.find((candidate) => candidate.model_instance_id === model.id)
        return deployment === undefined ? [] : [{
          model_name: model.name,
          model_type: typeOf(model.model_type),
          model_vendor: vendorOf(deployment),
          model_availability: "available" as const
        }]
      })
    ]
    // one entry per name (a server alias first, as the resolver looks there first)
    const unique = [...new Map(items.reverse().map((item) => [item.model_name, item])).values()]
    const filtered = query.model_vendor === undefined ? unique : unique.filter((item) => item.model_vendor === query.model_vendor)
    return { items: yield* pageOf(filtered, query), object: "list" as const }
  })
