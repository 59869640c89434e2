/**
 * The deployment history (docs/agent-tasks.md "Deployments"), agentex's: read-only, one agent's
 * at a time (by `agent_id` or `agent_name`, exactly one: a 422 otherwise, where agentex answers
 * 400).
 */
import { NotFound, ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { callerAccounts } from "../../auth/access.js"
import type { ImplementGroup } from "../../http/groups.js"
import { workAccount } from "../access.js"
import { AgentsRepo } from "../agents/AgentsRepo.js"
import { historyOf, HistoryRepo } from "./HistoryRepo.js"

const oneAgent = (msg: string, input: unknown) =>
  new ValidationError({ detail: [new ValidationIssue({ loc: ["query", "agent_id"], msg, type: "value_error", input })] })

export const DeploymentHistoryHttp = (group: ImplementGroup) =>
  group("deploymentHistory", (handlers) =>
  Effect.gen(function*() {
    const agents = yield* AgentsRepo
    const history = yield* HistoryRepo

    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function*() {
          const { agent_id, agent_name } = urlParams
          if (agent_id === undefined && agent_name === undefined) {
            return yield* Effect.fail(oneAgent("Either 'agent_id' or 'agent_name' must be provided to list deployment history.", null))
          }
          if (agent_id !== undefined && agent_name !== undefined) {
            return yield* Effect.fail(oneAgent("Only one of 'agent_id' or 'agent_name' should be provided to list deployment history.", agent_id))
          }
          // by id in every account of the caller, by name in the account the request works in (as the agents' reads)
          const agent = agent_id !== undefined
            ? yield* Effect.flatMap(callerAccounts, (accounts) => agents.getLive(agent_id, accounts))
            : yield* Effect.flatMap(workAccount, (account) => agents.findByName(agent_name!, account)).pipe(
              Effect.flatMap(Option.match({
                onNone: () => Effect.fail(new NotFound({ detail: `Agent ${agent_name} not found` })),
                onSome: Effect.succeed
              }))
            )
          const listed = yield* history.list({
            accountIds: [agent.account_id],
            agentId: agent.id,
            page: urlParams.page_number ?? 1,
            limit: urlParams.limit ?? 50,
            orderBy: urlParams.order_by ?? "deployment_timestamp",
            direction: urlParams.order_direction ?? "desc"
          })
          return listed.map(historyOf)
        }))
      .handle("get", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) =>
          history.get(path.deployment_history_id, accounts).pipe(
            Effect.mapError(() =>
              new NotFound({ detail: `Deployment not found: Item with id '${path.deployment_history_id}' does not exist.` })
            ),
            Effect.map(historyOf)
          )))
  })
).pipe(Layer.provide([AgentsRepo.Default, HistoryRepo.Default]))
