/**
 * Model servers (`/v4/serving`): a stable name (and alias) for a deployment, whose backend can be
 * switched to another deployment and rolled back.
 */
import { HttpApiBuilder } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import {
  Conflict,
  ModelServer,
  ModelServerDeployment,
  ModelServerRollbackResponse,
  ModelServerUpdateBackendResponse,
  NotFound,
  pageOf
} from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../../auth/access.js"
import { storedResponse } from "../../http/storedResponses.js"
import { freshIdentity } from "../../platform/Ids.js"
import { ensureReference } from "../../sql/documents.js"
import { ModelDeploymentsRepo } from "../deployments/ModelDeploymentsRepo.js"
import { ModelServersRepo } from "./ModelServersRepo.js"

export const ServersHandlers = Effect.gen(function*() {
  const deployments = yield* ModelDeploymentsRepo
  const servers = yield* ModelServersRepo

  /** The server with `alias` in the `account_id` query's account, else the caller's accounts; else 404. */
  const serverByAlias = (alias: string, accountId: string | undefined) =>
    Effect.gen(function*() {
      const found = yield* servers.findByAlias(alias, yield* accountsForRead(accountId))
      return yield* Option.match(found, {
        onNone: () => Effect.fail(new NotFound({ detail: `Model server with alias ${alias} not found` })),
        onSome: Effect.succeed
      })
    })

  return {
    createServer: HttpApiBuilder.handler(PlatformApi, "models", "createServer", ({ payload }) =>
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
      })),
    getServerByAlias: HttpApiBuilder.handler(PlatformApi, "models", "getServerByAlias", ({ path, urlParams }) => serverByAlias(path.alias, urlParams.account_id)),
    getServerByAliasLegacy: HttpApiBuilder.handler(PlatformApi, "models", "getServerByAliasLegacy", ({ path, urlParams }) => serverByAlias(path.alias, urlParams.account_id)),
    getServer: HttpApiBuilder.handler(PlatformApi, "models", "getServer", ({ path }) =>
      Effect.flatMap(callerAccounts, (accounts) => Effect.map(servers.getText(path.model_server_id, accounts), storedResponse))),
    getServerDeployment: HttpApiBuilder.handler(PlatformApi, "models", "getServerDeployment", ({ path }) =>
      Effect.flatMap(callerAccounts, (accounts) =>
        Effect.map(servers.get(path.model_server_id, accounts), (server) => new ModelServerDeployment({ model_deployment_id: server.model_deployment_id })))),
    updateServerBackend: HttpApiBuilder.handler(PlatformApi, "models", "updateServerBackend", ({ path, payload }) =>
      Effect.gen(function*() {
        const accounts = yield* callerAccounts
        return yield* servers.transaction(Effect.gen(function*() {
          yield* servers.lock(path.model_server_id, accounts)
          const server = yield* servers.get(path.model_server_id, accounts)
          yield* ensureReference({
            table: "model_deployments",
            id: payload.new_model_deployment_id,
            accountIds: [server.account_id],
            label: "Model deployment"
          })
          const old = server.model_deployment_id
          const history = yield* servers.historyOf(server.model_server_id)
          const changed = payload.new_model_deployment_id !== old
          yield* servers.replaceBackend(
            new ModelServer({ ...server, model_deployment_id: payload.new_model_deployment_id }),
            changed ? [...history, old] : history
          )
          return new ModelServerUpdateBackendResponse({
            account_id: server.account_id,
            model_deployment_id: payload.new_model_deployment_id,
            model_server_id: server.model_server_id,
            name: server.name,
            new_model_deployment_id: payload.new_model_deployment_id,
            old_model_deployment_id: old,
            alias: server.alias
          })
        }))
      })),
    rollbackServer: HttpApiBuilder.handler(PlatformApi, "models", "rollbackServer", ({ path }) =>
      Effect.gen(function*() {
        const accounts = yield* callerAccounts
        return yield* servers.transaction(Effect.gen(function*() {
          yield* servers.lock(path.model_server_id, accounts)
          const server = yield* servers.get(path.model_server_id, accounts)
          const history = yield* servers.historyOf(server.model_server_id)
          const previous = history.at(-1)
          if (previous === undefined) {
            return yield* Effect.fail(
              new Conflict({ detail: `Model server ${server.model_server_id} has no earlier deployment to roll back to` })
            )
          }
          if (!(yield* deployments.findById(previous, [server.account_id])).pipe(Option.isSome)) {
            return yield* Effect.fail(
              new Conflict({ detail: `Model deployment ${previous}, which model server ${server.model_server_id} served before, no longer exists` })
            )
          }
          yield* servers.replaceBackend(new ModelServer({ ...server, model_deployment_id: previous }), history.slice(0, -1))
          return new ModelServerRollbackResponse({ from_deployment: server.model_deployment_id, rolled_back_to_deployment: previous })
        }))
      })),
    listServers: HttpApiBuilder.handler(PlatformApi, "models", "listServers", ({ urlParams }) =>
      Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
        servers.page({ accountIds, ...pageOf(urlParams) })))
  }
})
