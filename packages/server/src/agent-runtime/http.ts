import { AgentRuntimeDeployment, cursorOf, Identity, V5List } from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdByIdentity } from "../auth/access.js"
import { Lifecycles } from "../engine/Lifecycles.js"
import { freshIdentity } from "../platform/Ids.js"
import { AgentRuntimeRepo } from "./AgentRuntimeRepo.js"
import { createdEvent } from "./deployEvents.js"
import type { ImplementGroup } from "../http/groups.js"
import { pageResponse, storedResponse } from "../http/storedResponses.js"


export const AgentRuntimeHttp = (group: ImplementGroup) =>
  group("agentRuntime", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* AgentRuntimeRepo
    const lifecycles = yield* Lifecycles
    const listResponse = pageResponse(V5List(AgentRuntimeDeployment))
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(payload.account_id)
          const [id, now] = yield* freshIdentity
          const created = yield* repo.insert(
            new AgentRuntimeDeployment({
              id,
              namespace: payload.namespace ?? null,
              manifest_file: payload.manifest_file ?? null,
              environment_config: payload.environment_config ?? null,
              status: "PENDING",
              account_id,
              build_id: payload.build_id,
              agent_name: payload.agent_name ?? null,
              helm_release_name: payload.helm_release_name ?? null,
              preview_label: payload.preview_label ?? null,
              created_at: now,
              // kept as the contract writes timestamps: UTC with a Z
              expires_at: payload.expires_at === undefined ? null : new Date(payload.expires_at).toISOString(),
              created_by: new Identity(yield* createdByIdentity),
              object: "agent_runtime_cloud_deploy",
              deploy_events: [createdEvent(payload, now)]
            }, true)
          )
          // PENDING → DEPLOYING → READY on the engine (agent-runtime/workflow.ts)
          yield* lifecycles.start({ workflow: "AgentRuntimeDeployment", id, account_id })
          return created
        }))
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          Effect.map(repo.cursorPageOfTexts({ accountIds, ...cursorOf(urlParams), where: repo.filters(urlParams) }), listResponse)))
      .handle("get", ({ path }) => Effect.flatMap(callerAccounts, (accounts) => Effect.map(repo.getText(path.deployment_id, accounts), storedResponse)))
      .handle("delete", ({ path }) => Effect.flatMap(callerAccounts, (accounts) => repo.remove(path.deployment_id, accounts)))
  })
).pipe(Layer.provide(AgentRuntimeRepo.Default))
