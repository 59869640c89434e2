/**
 * Agent deployments (docs/agent-tasks.md "Deployments"), agentex's: made `Pending`, `Ready` when
 * their ACP server registers naming them (registration.ts), previewed through the agent's RPC,
 * promoted to be the agent's route (one transaction: the agent's row locked, the production moved,
 * the history written for a new commit), soft-deleted. The cases agentex answers 400 or 500 are a 409 here.
 */
import { AgentTasksDeleteResponse, Conflict, NotFound } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { callerAccounts } from "../../auth/access.js"
import { SecretBox } from "../../credentials/SecretBox.js"
import { EventsRepo } from "../../events/EventsRepo.js"
import type { ImplementGroup } from "../../http/groups.js"
import { Ids, nowIso } from "../../platform/Ids.js"
import { AgentsRepo } from "../agents/AgentsRepo.js"
import { HistoryRepo } from "../deployment-history/HistoryRepo.js"
import { MessagesRepo } from "../messages/MessagesRepo.js"
import { AgentCalls } from "../rpc/acp.js"
import { makeAgentRpc } from "../rpc/rpc.js"
import { TaskStreams } from "../streams.js"
import { TasksRepo } from "../tasks/TasksRepo.js"
import { deploymentOf, DeploymentsRepo } from "./DeploymentsRepo.js"
import { makeRegistrations } from "./registration.js"

export const AgentDeploymentsHttp = (group: ImplementGroup) =>
  group("agentDeployments", (handlers) =>
  Effect.gen(function*() {
    const agents = yield* AgentsRepo
    const deployments = yield* DeploymentsRepo
    const ids = yield* Ids
    const rpc = yield* makeAgentRpc
    const registrations = yield* makeRegistrations

    /** The live agent `agentId` of the caller's accounts (row-locked inside a transaction), else 404. */
    const agentOf = (agentId: string) => Effect.flatMap(callerAccounts, (accounts) => agents.getLive(agentId, accounts))

    /** The agent and its deployment `id` (deleted ones too unless `live`), else 404 in agentex's words. */
    const deploymentOfAgent = (agentId: string, id: string, live = false) =>
      Effect.gen(function*() {
        const agent = yield* agentOf(agentId)
        const found = yield* deployments.find(id, agent.id, [agent.account_id])
        if (Option.isNone(found) || (live && found.value.expires_at !== null)) {
          return yield* Effect.fail(new NotFound({ detail: `Deployment ${id} not found for agent ${agentId}` }))
        }
        return { agent, deployment: found.value }
      })

    return handlers
      .handle("create", ({ path, payload }) =>
        Effect.gen(function*() {
          const agent = yield* agentOf(path.agent_id)
          const created = yield* deployments.insert({
            id: yield* ids.make,
            agent_id: agent.id,
            docker_image: payload.docker_image,
            is_production: false,
            status: "Pending",
            acp_url: null,
            created_at: yield* nowIso,
            expires_at: null,
            helm_release_name: payload.helm_release_name ?? null,
            promoted_at: null,
            registration_metadata: payload.registration_metadata ?? null,
            sgp_deploy_id: payload.sgp_deploy_id ?? null,
            account_id: agent.account_id
          }).pipe(Effect.orDie)
          return deploymentOf(created)
        }))
      .handle("list", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const agent = yield* agentOf(path.agent_id)
          const listed = yield* deployments.list({
            accountIds: [agent.account_id],
            agentId: agent.id,
            page: urlParams.page_number ?? 1,
            limit: urlParams.limit ?? 50,
            direction: urlParams.order_direction ?? "desc"
          })
          return listed.map(deploymentOf)
        }))
      .handle("get", ({ path }) =>
        Effect.map(deploymentOfAgent(path.agent_id, path.agent_deployment_id), ({ deployment }) => deploymentOf(deployment)))
      .handle("delete", ({ path }) =>
        deployments.transaction(Effect.gen(function*() {
          const { deployment } = yield* deploymentOfAgent(path.agent_id, path.agent_deployment_id)
          if (deployment.is_production) {
            return yield* Effect.fail(
              new Conflict({ detail: "Cannot delete the current production deployment. Promote a different deployment first." })
            )
          }
          // soft: the row stays (readable, previewable), out of the list; a second delete sets it again
          yield* deployments.update({ ...deployment, expires_at: yield* nowIso })
          return new AgentTasksDeleteResponse({ id: deployment.id, message: `Deployment '${deployment.id}' deleted successfully` })
        })))
      .handle("previewRpc", ({ path, payload }) =>
        Effect.gen(function*() {
          const { agent, deployment } = yield* deploymentOfAgent(path.agent_id, path.agent_deployment_id)
          if (deployment.acp_url === null) {
            return yield* Effect.fail(new Conflict({ detail: `Deployment ${deployment.id} does not have an ACP URL configured` }))
          }
          return yield* rpc.handle(agent, payload, deployment.id)
        }))
      .handle("promote", ({ path }) =>
        deployments.transaction(Effect.gen(function*() {
          // the agent's row locked first: promotes of one agent run one at a time
          const { agent, deployment } = yield* deploymentOfAgent(path.agent_id, path.agent_deployment_id, true)
          if (deployment.status !== "Ready") {
            return yield* Effect.fail(
              new Conflict({ detail: `Cannot promote deployment with status ${deployment.status}. Deployment must be in Ready status.` })
            )
          }
          const now = yield* nowIso
          const current = yield* deployments.production(agent.id, agent.account_id)
          const again = Option.isSome(current) && current.value.id === deployment.id
          if (Option.isSome(current) && !again) {
            yield* deployments.update({ ...current.value, is_production: false })
          }
          const promoted = yield* deployments.update({ ...deployment, is_production: true, promoted_at: now })
          yield* agents.update({
            ...agent,
            production_deployment_id: promoted.id,
            updated_at: now,
            // an agent known only by its build is running now, as agentex says
            ...(agent.status === "BuildOnly" ? { status: "Ready", status_reason: "Agent registered successfully.", registered_at: now } : {})
          })
          // an entry when it names a commit other than the latest entry's; none for the production one again
          if (!again) yield* registrations.recordPromotion(agent, promoted, now)
          return deploymentOf(promoted)
        })))
  })
).pipe(
  Layer.provide([
    AgentsRepo.Default,
    DeploymentsRepo.Default,
    HistoryRepo.Default,
    TasksRepo.Default,
    MessagesRepo.Default,
    EventsRepo.Default,
    AgentCalls.Default,
    SecretBox.Live,
    TaskStreams.Default
  ])
)
