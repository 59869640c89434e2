import { AgentTasksDeleteResponse, BadGateway, GatewayTimeout, NotFound, TaskListItem, TaskQueryResponse, TaskWithAgents } from "@platform-kit/schema"
import type { TaskStatus } from "@platform-kit/schema"
import { HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Option, Struct } from "effect"
import { accountsForRead, callerAccounts } from "../../auth/access.js"
import { SecretBox } from "../../credentials/SecretBox.js"
import { EventsRepo } from "../../events/EventsRepo.js"
import type { ImplementGroup } from "../../http/groups.js"
import { nowIso } from "../../platform/Ids.js"
import { workAccount } from "../access.js"
import { AgentCalls } from "../rpc/acp.js"
import { agentOf, AgentsRepo } from "../agents/AgentsRepo.js"
import { MessagesRepo } from "../messages/MessagesRepo.js"
import { deleteTask, moveTask } from "./moves.js"
import { makeAgentRpc } from "../rpc/rpc.js"
import { sseFrame, TaskStreams, taskFrame } from "../streams.js"
import { type StoredTask, taskOf, TasksRepo } from "./TasksRepo.js"

/** JSON-RPC's "method not found": what an agent answers to a query it does not know. */
const methodNotFound = -32601

export const TasksHttp = (group: ImplementGroup) =>
  group("tasks", (handlers) =>
  Effect.gen(function*() {
    const tasks = yield* TasksRepo
    const agents = yield* AgentsRepo
    const streams = yield* TaskStreams
    const rpc = yield* makeAgentRpc
    const provided = <A, E>(effect: Effect.Effect<A, E, TasksRepo | TaskStreams>) =>
      effect.pipe(Effect.provideService(TasksRepo, tasks), Effect.provideService(TaskStreams, streams))

    const byId = (id: string) => Effect.flatMap(callerAccounts, (accounts) => tasks.get(id, accounts))
    const byName = (name: string) =>
      Effect.flatMap(workAccount, (account) =>
        Effect.flatMap(
          tasks.findByName(name, account),
          Option.match({ onNone: () => Effect.fail(new NotFound({ detail: `Task ${name} not found` })), onSome: Effect.succeed })
        ))

    /** The agents of each task, when `relationships` asks for them. */
    const agentsOf = (found: ReadonlyArray<StoredTask>, relationships: ReadonlyArray<string> | undefined) =>
      Effect.gen(function*() {
        const wanted = relationships?.includes("agents") === true
        if (!wanted) return undefined
        const listed = yield* agents.byIds(found.map((task) => task.agent_id), [...new Set(found.map((task) => task.account_id))])
        const byId = new Map(listed.map((agent) => [agent.id, agentOf(agent)]))
        return (task: StoredTask) => byId.has(task.agent_id) ? [byId.get(task.agent_id)!] : []
      })

    const read = (task: StoredTask, relationships: ReadonlyArray<string> | undefined) =>
      Effect.map(agentsOf([task], relationships), (of) =>
        new TaskWithAgents({ ...taskOf(task), ...(of === undefined ? {} : { agents: of(task) }) }, true))

    const change = (task: StoredTask, payload: { readonly merge_params?: Record<string, unknown> | undefined; readonly task_metadata?: Record<string, unknown> | undefined }) =>
      tasks.transaction(
        Effect.gen(function*() {
          const current = yield* tasks.get(task.id, [task.account_id])
          const now = yield* nowIso
          const changed = yield* tasks.update({
            ...current,
            params: payload.merge_params === undefined ? current.params : { ...current.params, ...payload.merge_params },
            task_metadata: payload.task_metadata ?? current.task_metadata,
            updated_at: now
          })
          yield* streams.publish(changed, taskFrame(changed))
          return taskOf(changed)
        })
      )

    const remove = (task: StoredTask, named: string) =>
      Effect.map(provided(deleteTask(task)), () =>
        new AgentTasksDeleteResponse({ id: task.id, message: named === task.id ? `Task ${task.id} deleted successfully` : `Task '${named}' deleted successfully` }))

    const move = (to: TaskStatus) => ({ path, payload }: { readonly path: { readonly task_id: string }; readonly payload: { readonly reason?: string | null | undefined } }) =>
      Effect.flatMap(callerAccounts, (accounts) => Effect.map(provided(moveTask(path.task_id, accounts, to, payload.reason ?? null)), taskOf))

    /**
     * The task's frames as server-sent events (docs/agent-tasks.md "Streams"): `connected`, then
     * each frame with its number as `id:`, a `:ping` comment after 15 s without one.
     */
    const eventStream = (task: StoredTask, lastEventId: number | undefined) =>
      Effect.map(
        streams.follow(task.account_id, task.id, lastEventId, sseFrame(0, JSON.stringify({ type: "connected", taskId: task.id }))),
        (body) => HttpServerResponse.raw(body, { contentType: "text/event-stream", headers: { "cache-control": "no-cache", "x-accel-buffering": "no" } })
      )

    /** A query's failures as answers: the agent does not know it (404), failed (502), is slow (504). */
    const asked = (task: StoredTask, name: string) =>
      rpc.query(task, name).pipe(
        Effect.map((result) => new TaskQueryResponse({ task_id: task.id, query: name, result })),
        Effect.catchTags({
          RpcFailure: (failure) => Effect.fail(new NotFound({ detail: `Task ${task.id} has no workflow to query: ${failure.message}` })),
          AcpCallFailed: (failure) =>
            failure.code === methodNotFound
              ? Effect.fail(new NotFound({ detail: `The agent of task ${task.id} does not answer the query '${name}'` }))
              : failure.timedOut === true
              ? Effect.fail(new GatewayTimeout({ detail: `Query '${name}' of task ${task.id}: ${failure.message}` }))
              : Effect.fail(new BadGateway({ detail: `Query '${name}' of task ${task.id}: ${failure.message}` }))
        })
      )

    return handlers
      .handle("query", ({ path }) => Effect.flatMap(byId(path.task_id), (task) => asked(task, path.query_name)))
      .handle("stream", ({ headers, path, urlParams }) =>
        Effect.flatMap(byId(path.task_id), (task) => eventStream(task, headers["last-event-id"] ?? urlParams.last_event_id)))
      .handle("streamByName", ({ headers, path, urlParams }) =>
        Effect.flatMap(byName(path.task_name), (task) => eventStream(task, headers["last-event-id"] ?? urlParams.last_event_id)))
      .handle("list", ({ urlParams }) =>
        Effect.gen(function*() {
          const accountIds = yield* accountsForRead()
          let agentIds: ReadonlyArray<string> | undefined = urlParams.agent_id === undefined ? undefined : [urlParams.agent_id]
          if (urlParams.agent_name !== undefined) {
            const named = yield* Effect.forEach(accountIds, (account) => agents.findByName(urlParams.agent_name!, account, true))
            const ids = named.flatMap((agent) => Option.isSome(agent) ? [agent.value.id] : [])
            agentIds = agentIds === undefined ? ids : agentIds.filter((id) => ids.includes(id))
          }
          const listed = yield* tasks.list({
            accountIds,
            page: urlParams.page_number ?? 1,
            limit: urlParams.limit ?? 50,
            orderBy: urlParams.order_by ?? "created_at",
            direction: urlParams.order_direction ?? "desc",
            agentIds,
            status: urlParams.status,
            metadata: urlParams.task_metadata
          })
          const of = yield* agentsOf(listed, urlParams.relationships)
          return listed.map((task) =>
            new TaskListItem({ ...Struct.omit(taskOf(task), "params"), ...(of === undefined ? {} : { agents: of(task) }) }, true))
        }))
      .handle("get", ({ path, urlParams }) => Effect.flatMap(byId(path.task_id), (task) => read(task, urlParams.relationships)))
      .handle("getByName", ({ path, urlParams }) => Effect.flatMap(byName(path.task_name), (task) => read(task, urlParams.relationships)))
      .handle("update", ({ path, payload }) => Effect.flatMap(byId(path.task_id), (task) => change(task, payload)))
      .handle("updateByName", ({ path, payload }) => Effect.flatMap(byName(path.task_name), (task) => change(task, payload)))
      .handle("delete", ({ path }) => Effect.flatMap(byId(path.task_id), (task) => remove(task, task.id)))
      .handle("deleteByName", ({ path }) => Effect.flatMap(byName(path.task_name), (task) => remove(task, path.task_name)))
      .handle("cancel", move("CANCELED"))
      .handle("complete", move("COMPLETED"))
      .handle("fail", move("FAILED"))
      .handle("interrupt", move("INTERRUPTED"))
      .handle("terminate", move("TERMINATED"))
      .handle("timeout", move("TIMED_OUT"))
  })
).pipe(Layer.provide([TasksRepo.Default, AgentsRepo.Default, MessagesRepo.Default, EventsRepo.Default, AgentCalls.Default, SecretBox.Live, TaskStreams.Default]))
