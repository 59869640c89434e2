import { Conflict } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { accountsForRead, callerAccounts } from "../../auth/access.js"
import type { ImplementGroup } from "../../http/groups.js"
import { Ids, nowIso } from "../../platform/Ids.js"
import { workAccount } from "../access.js"
import { stateOf, StatesRepo } from "./StatesRepo.js"
import { TasksRepo } from "../tasks/TasksRepo.js"

export const StatesHttp = (group: ImplementGroup) =>
  group("states", (handlers) =>
  Effect.gen(function*() {
    const states = yield* StatesRepo
    const tasks = yield* TasksRepo
    const ids = yield* Ids

    const byId = (id: string) => Effect.flatMap(callerAccounts, (accounts) => states.get(id, accounts))

    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const account = yield* workAccount
          const task = yield* tasks.get(payload.task_id, [account])
          // the agent is named as it names itself (as an event's agent_id): not looked up
          const agentId = payload.agent_id
          return yield* states.transaction(
            Effect.gen(function*() {
              if (Option.isSome(yield* states.findOf(task.id, agentId, account))) {
                return yield* Effect.fail(new Conflict({ detail: `Agent ${agentId} already has a state for task ${task.id}` }))
              }
              const id = yield* ids.make
              const now = yield* nowIso
              return stateOf(
                yield* states.insert({ id, task_id: task.id, agent_id: agentId, state: payload.state, created_at: now, updated_at: now, account_id: account })
              )
            })
          )
        }))
      .handle("get", ({ path }) => Effect.map(byId(path.state_id), stateOf))
      .handle("update", ({ path, payload }) =>
        Effect.gen(function*() {
          const accounts = yield* callerAccounts
          return yield* states.transaction(
            Effect.gen(function*() {
              const current = yield* states.get(path.state_id, accounts)
              const now = yield* nowIso
              return stateOf(yield* states.update({ ...current, state: payload.state, updated_at: now }))
            })
          )
        }))
      .handle("delete", ({ path }) =>
        Effect.gen(function*() {
          const state = yield* byId(path.state_id)
          yield* states.remove(state.id)
          return stateOf(state)
        }))
      .handle("list", ({ urlParams }) =>
        Effect.gen(function*() {
          const accountIds = yield* accountsForRead()
          const listed = yield* states.list({
            accountIds,
            page: urlParams.page_number ?? 1,
            limit: urlParams.limit ?? 50,
            orderBy: urlParams.order_by ?? "created_at",
            direction: urlParams.order_direction ?? "desc",
            taskId: urlParams.task_id,
            agentId: urlParams.agent_id
          })
          return listed.map(stateOf)
        }))
  })
).pipe(Layer.provide([StatesRepo.Default, TasksRepo.Default]))
