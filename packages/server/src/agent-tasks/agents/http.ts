import { SqlClient } from "@effect/sql"
import { AgentTasksDeleteResponse, Conflict, NotFound, RegisteredAgent } from "@platform-kit/schema"
import type { AcpType, RegisterAgent, RegisterAgentBuild } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import * as Crypto from "node:crypto"
import { accountsForRead, callerAccounts } from "../../auth/access.js"
import { SecretBox } from "../../credentials/SecretBox.js"
import { EventsRepo } from "../../events/EventsRepo.js"
import type { ImplementGroup } from "../../http/groups.js"
import { Ids, nowIso } from "../../platform/Ids.js"
import { AgentCalls } from "../rpc/acp.js"
import { workAccount } from "../access.js"
import { type AgentConnection, agentOf, AgentsRepo, type StoredAgent } from "./AgentsRepo.js"
import { MessagesRepo } from "../messages/MessagesRepo.js"
import { makeAgentRpc } from "../rpc/rpc.js"
import { TaskStreams } from "../streams.js"
import { TasksRepo } from "../tasks/TasksRepo.js"
import { HistoryRepo } from "../deployment-history/HistoryRepo.js"
import { DeploymentsRepo } from "../deployments/DeploymentsRepo.js"
import { deploymentNamed, makeRegistrations } from "../deployments/registration.js"

export const AgentsHttp = (group: ImplementGroup) =>
  group("agents", (handlers) =>
  Effect.gen(function*() {
    const agents = yield* AgentsRepo
    const box = yield* SecretBox
    const ids = yield* Ids
    const sql = yield* SqlClient.SqlClient
    const rpc = yield* makeAgentRpc
    const registrations = yield* makeRegistrations

    const notFound = (what: string) => new NotFound({ detail: `Agent ${what} not found` })

    /**
     * Creates or updates the agent of `name` in the caller's account (or of `agent_id` there), as
     * a registration says: one transaction; `connection` makes the new ACP URL and key, sealed for
     * the agent or the deployment it is given (none for a build). A registration naming deployment
     * `deploymentId` of a live agent makes that deployment ready and leaves the agent as it is;
     * any other takes the agent out of its production deployment (deployments/registration.ts).
     */
    const upsert = (
      payload: RegisterAgent | RegisterAgentBuild,
      change: { readonly status: StoredAgent["status"]; readonly acpType: (before: StoredAgent | undefined) => AcpType },
      connection: ((sealedFor: string) => Effect.Effect<AgentConnection>) | undefined,
      deploymentId?: string | undefined
    ) =>
      Effect.gen(function*() {
        const account_id = yield* workAccount
        const wanted = "agent_id" in payload ? payload.agent_id : undefined
        return yield* agents.transaction(
          Effect.gen(function*() {
            let before = Option.getOrUndefined(yield* agents.findByName(payload.name, account_id, true))
            if (before === undefined && wanted !== undefined) {
              const taken = yield* Effect.orDie(sql<{ account_id: string }>`SELECT account_id FROM agents WHERE id = ${wanted}`)
              if (taken.length > 0 && taken[0]!.account_id !== account_id) {
                return yield* Effect.fail(new Conflict({ detail: `Agent id ${wanted} is taken` }))
              }
              before = Option.getOrUndefined(yield* agents.find(wanted, [account_id]))
            }
            if (before !== undefined) before = (yield* agents.locked(before.id, account_id)) ?? before
            const now = yield* nowIso
            const metadata = payload.registration_metadata ?? null
            if (connection !== undefined && deploymentId !== undefined && before !== undefined && before.status !== "Deleted") {
              // a deployment's ACP server: the agent's route changes only by a promote, as agentex
              yield* registrations.ready(before, deploymentId, metadata, connection, now)
              return before
            }
            const id = before?.id ?? wanted ?? (yield* ids.make)
            const agent: StoredAgent = {
              id,
              name: payload.name,
              description: payload.description,
              acp_type: change.acpType(before),
              status: change.status,
              status_reason: null,
              agent_input_type: payload.agent_input_type ?? before?.agent_input_type ?? null,
              registration_metadata: payload.registration_metadata ?? before?.registration_metadata ?? null,
              // a registration's own URL is the agent's route again; a build keeps it
              production_deployment_id: connection === undefined ? before?.production_deployment_id ?? null : null,
              registered_at: connection === undefined ? before?.registered_at ?? null : now,
              created_at: before?.created_at ?? now,
              updated_at: now,
              account_id
            }
            const made = connection === undefined ? undefined : yield* connection(id)
            if (before === undefined) yield* agents.insert(agent, made ?? { acpUrl: null, sealedKey: null })
            else yield* agents.update(agent, made)
            if (connection !== undefined) {
              if (before !== undefined) yield* registrations.leaveProduction(agent)
              if (deploymentId !== undefined) yield* registrations.ready(agent, deploymentId, metadata, connection, now)
              yield* registrations.recordBuild(agent, now)
            }
            return agent
          })
        ).pipe(
          // a registration of the same name (or deployment id) committed meanwhile (PostgreSQL): this one updates it
          Effect.retry({ times: 3, while: (error) => error._tag === "AgentNameTaken" || error._tag === "DeploymentIdTaken" }),
          Effect.catchTags({
            AgentNameTaken: (taken) => Effect.fail(new Conflict({ detail: `Agent ${taken.name} is being registered by another request` })),
            DeploymentIdTaken: (taken) => Effect.fail(new Conflict({ detail: `Deployment ${taken.id} is being registered by another request` }))
          })
        )
      })

    const remove = (agent: StoredAgent, named: string) =>
      Effect.gen(function*() {
        const now = yield* nowIso
        yield* agents.update({ ...agent, status: "Deleted", status_reason: "Agent deleted successfully", updated_at: now })
        return new AgentTasksDeleteResponse({ id: agent.id, message: `Agent '${named}' deleted successfully` })
      })

    const byId = (id: string) => Effect.flatMap(callerAccounts, (accounts) => agents.getLive(id, accounts))
    const byName = (name: string) =>
      Effect.flatMap(workAccount, (account) =>
        Effect.flatMap(agents.findByName(name, account), Option.match({ onNone: () => Effect.fail(notFound(name)), onSome: Effect.succeed })))

    return handlers
      .handle("register", ({ payload }) =>
        Effect.gen(function*() {
          const deploymentId = yield* deploymentNamed(payload.registration_metadata)
          // a new key per registration, answered once; the platform sends it to the agent on every call
          const key = Crypto.randomBytes(32).toString("hex")
          const agent = yield* upsert(
            payload,
            { status: "Ready", acpType: () => payload.acp_type },
            (sealedFor) => Effect.map(box.encrypt(key, sealedFor), (sealed) => ({ acpUrl: payload.acp_url, sealedKey: sealed, sealedFor })),
            deploymentId
          )
          return new RegisteredAgent({ ...agentOf(agent), agent_api_key: key })
        }))
      .handle("registerBuild", ({ payload }) =>
        Effect.map(upsert(payload, { status: "BuildOnly", acpType: (before) => before?.acp_type ?? "async" }, undefined), agentOf))
      .handle("list", ({ urlParams }) =>
        Effect.gen(function*() {
          const accountIds = yield* accountsForRead()
          const listed = yield* agents.list({
            accountIds,
            page: urlParams.page_number ?? 1,
            limit: urlParams.limit ?? 50,
            orderBy: urlParams.order_by ?? "created_at",
            direction: urlParams.order_direction ?? "desc",
            taskId: urlParams.task_id
          })
          return listed.map(agentOf)
        }))
      .handle("get", ({ path }) => Effect.map(byId(path.agent_id), agentOf))
      .handle("getByName", ({ path }) => Effect.map(byName(path.agent_name), agentOf))
      .handle("delete", ({ path }) => Effect.flatMap(byId(path.agent_id), (agent) => remove(agent, agent.id)))
      .handle("deleteByName", ({ path }) => Effect.flatMap(byName(path.agent_name), (agent) => remove(agent, agent.name)))
      .handle("rpc", ({ path, payload }) => Effect.flatMap(byId(path.agent_id), (agent) => rpc.handle(agent, payload)))
      .handle("rpcByName", ({ path, payload }) => Effect.flatMap(byName(path.agent_name), (agent) => rpc.handle(agent, payload)))
  })
).pipe(Layer.provide([AgentsRepo.Default, DeploymentsRepo.Default, HistoryRepo.Default, TasksRepo.Default, MessagesRepo.Default, EventsRepo.Default, AgentCalls.Default, SecretBox.Live, TaskStreams.Default]))
