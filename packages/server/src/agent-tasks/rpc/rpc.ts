/**
 * The JSON-RPC endpoint of an agent (docs/agent-tasks.md "RPC"), as the agentex server answers
 * it: a method's parameters checked (error -32602), the task it names found or made, the call
 * forwarded to the agent's ACP server (acp.ts) where agentex forwards it, and what the agent
 * answers stored. Always HTTP 200: a failure is the response's `error` (-32603 but for bad
 * parameters). `message/send` with `stream: true` answers NDJSON, one response per update.
 * A call goes where the agent's route says (its production deployment, else its registration:
 * AgentsRepo.connection), or to the deployment `via` names (a preview, docs/agent-tasks.md
 * "Deployments").
 */
import { HttpServerResponse } from "@effect/platform"
import {
  AgentRpcError,
  completeContent,
  AgentRpcResponse,
  TaskEvent,
  type Task,
  EventSendParams,
  MessageSendParams,
  TaskCreateParams,
  TaskMoveParams
} from "@platform-kit/schema"
import type { AgentRpcRequest, EventContent, TaskMessageContent, TaskMessageUpdate } from "@platform-kit/schema"
import { Data, Effect, Option, ParseResult, Redacted, Schema, Stream, Struct } from "effect"
import * as Crypto from "node:crypto"
import { SecretBox } from "../../credentials/SecretBox.js"
import { EventsRepo, storedContent } from "../../events/EventsRepo.js"
import { Ids, nowIso } from "../../platform/Ids.js"
import { annotateRecordedSpan, recordedSpan } from "../../spans/tracer.js"
import { AccumulationError, contentOf, fold, type Piece } from "./accumulate.js"
import { AgentCalls } from "./acp.js"
import { agentOf, AgentsRepo, type StoredAgent } from "../agents/AgentsRepo.js"
import { messageOf, MessagesRepo, type StoredMessage } from "../messages/MessagesRepo.js"
import { makeSendLease } from "./sendLease.js"
import { messageFrame, TaskStreams, taskFrame } from "../streams.js"
import { isFinal, type StoredTask, taskOf, TasksRepo } from "../tasks/TasksRepo.js"

/** The deployment a call goes to instead of the agent's route (a preview), or none. */
type Via = string | undefined

/** A failure answered as the response's `error`. */
export class RpcFailure extends Data.TaggedError("RpcFailure")<{ readonly code: number; readonly message: string }> {}

const invalid = (message: string) => new RpcFailure({ code: -32602, message: `Invalid parameters: ${message}` })
const failed = (message: string) => new RpcFailure({ code: -32603, message })

const paramsOf = <A, I>(schema: Schema.Schema<A, I>, params: unknown) =>
  Schema.decodeUnknown(schema)(params, { onExcessProperty: "ignore" }).pipe(
    Effect.mapError((error) => invalid(ParseResult.TreeFormatter.formatErrorSync(error)))
  )

/** The methods each kind of agent takes (agentex's allow-list). */
const allowed: Record<StoredAgent["acp_type"], ReadonlyArray<AgentRpcRequest["method"]>> = {
  sync: ["message/send", "task/create", "task/interrupt"],
  async: ["task/create", "task/cancel", "task/interrupt", "event/send"],
  agentic: ["task/create", "task/cancel", "task/interrupt", "event/send"]
}

const encodeResponse = Schema.encodeSync(AgentRpcResponse)

export const makeAgentRpc = Effect.gen(function*() {
  const agents = yield* AgentsRepo
  const tasks = yield* TasksRepo
  const messages = yield* MessagesRepo
  const events = yield* EventsRepo
  const calls = yield* AgentCalls
  const box = yield* SecretBox
  const ids = yield* Ids
  const streams = yield* TaskStreams
  const sendLease = yield* makeSendLease

  /** What the agent is sent as itself and as its task (the agentex entities). */
  const wire = (agent: StoredAgent, task: StoredTask) => ({ agent: agentOf(agent), task: taskOf(task) })

  const targetOf = (agent: StoredAgent, via: Via) =>
    Effect.gen(function*() {
      const connection = yield* agents.connection(agent.id, via)
      if (connection.acpUrl === null) {
        return yield* Effect.fail(
          failed(via === undefined ? `Agent ${agent.name} has no ACP server (status ${agent.status})` : `Deployment ${via} has no ACP server`)
        )
      }
      const key = connection.sealedKey === null
        ? undefined
        : Redacted.make(yield* box.decrypt(connection.sealedKey, connection.sealedFor ?? agent.id))
      return { acpUrl: connection.acpUrl, key, requestId: Crypto.randomUUID() }
    })

  const forward = (agent: StoredAgent, via: Via, method: AgentRpcRequest["method"], task: StoredTask, params: unknown) =>
    Effect.flatMap(targetOf(agent, via), (target) =>
      calls.call(target, method, params, `${method}-${task.id}`).pipe(
        Effect.mapError((error) => failed(`The agent's ACP server failed: ${error.message}`))
      ))

  /** Writes a change of `task`, with its `task_updated` frame. */
  const update = (task: StoredTask, change: Partial<StoredTask>) =>
    Effect.flatMap(nowIso, (now) =>
      Effect.tap(tasks.update({ ...task, ...change, updated_at: now }), (updated) => streams.publish(updated, taskFrame(updated))))

  /** A new task of `agent`, `RUNNING`; its name taken meanwhile (a concurrent create): `TaskNameTaken`. */
  const newTask = (agent: StoredAgent, name: string | null, params: Record<string, unknown> | null, metadata: Record<string, unknown> | null) =>
    Effect.gen(function*() {
      const id = yield* ids.make
      const now = yield* nowIso
      yield* annotateRecordedSpan({ task_id: id })
      return yield* tasks.create({
        id,
        name,
        status: "RUNNING",
        status_reason: "Task created",
        params,
        task_metadata: metadata,
        created_at: now,
        updated_at: now,
        cleaned_at: null,
        account_id: agent.account_id,
        agent_id: agent.id
      })
    })

  /** The task a call names (`task_id`, else `task_name`) of `agent`; none named: none. */
  const named = (agent: StoredAgent, ref: { readonly task_id?: string | undefined; readonly task_name?: string | undefined }) =>
    Effect.gen(function*() {
      const found = ref.task_id !== undefined
        ? yield* tasks.findById(ref.task_id, [agent.account_id])
        : ref.task_name !== undefined
        ? yield* tasks.findByName(ref.task_name, agent.account_id)
        : Option.none()
      if (Option.isSome(found) && found.value.agent_id !== agent.id) {
        return yield* Effect.fail(invalid(`task ${found.value.id} is not a task of agent ${agent.name}`))
      }
      if (Option.isSome(found)) yield* annotateRecordedSpan({ task_id: found.value.id })
      return found
    })

  const required = (agent: StoredAgent, ref: { readonly task_id?: string | undefined; readonly task_name?: string | undefined }) =>
    Effect.flatMap(named(agent, ref), (found) =>
      Option.match(found, {
        onNone: () =>
          Effect.fail(
            ref.task_id === undefined && ref.task_name === undefined
              ? invalid("task_id or task_name is required")
              : invalid(`task ${ref.task_id ?? ref.task_name} not found`)
          ),
        onSome: Effect.succeed
      }))

  /** A task a message or an event goes to: not final; an interrupted one runs again. */
  const resumed = (task: StoredTask) =>
    isFinal(task.status)
      ? Effect.fail(invalid(`task ${task.id} is ${task.status}`))
      : task.status === "INTERRUPTED"
      ? update(task, { status: "RUNNING", status_reason: "Task resumed" })
      : Effect.succeed(task)

  /** Stores a message of `task`; after `after` (a millisecond later at least), so a conversation lists in order. */
  const storeMessage = (task: StoredTask, content: TaskMessageContent, streaming: StoredMessage["streaming_status"], after?: string) =>
    Effect.gen(function*() {
      const id = yield* ids.make
      const clock = yield* nowIso
      const now = after === undefined || clock > after ? clock : new Date(Date.parse(after) + 1).toISOString()
      return yield* messages.insert({
        id,
        task_id: task.id,
        content,
        streaming_status: streaming,
        created_at: now,
        updated_at: now,
        account_id: task.account_id
      })
    })

  /** A message of the caller's, stored with its frame. */
  const storeAsked = (task: StoredTask, content: TaskMessageContent, streaming: StoredMessage["streaming_status"]) =>
    Effect.tap(storeMessage(task, content, streaming), (message) => streams.publish(task, messageFrame(message)))

  const taskCreate = (agent: StoredAgent, via: Via, params: unknown): Effect.Effect<Task, RpcFailure> =>
    Effect.gen(function*() {
      const given = yield* paramsOf(TaskCreateParams, params)
      const existing = given.name === undefined ? Option.none() : yield* named(agent, { task_name: given.name })
      if (Option.isSome(existing)) {
        // get-or-create: the existing task, its params overwritten when given
        return taskOf(given.params === undefined ? existing.value : yield* update(existing.value, { params: given.params }))
      }
      const made = yield* newTask(agent, given.name ?? null, given.params ?? null, given.task_metadata ?? null).pipe(
        Effect.map(Option.some),
        Effect.catchTag("TaskNameTaken", () => Effect.succeedNone)
      )
      // made by a concurrent create of the same name: got, as any existing one
      if (Option.isNone(made)) return yield* taskCreate(agent, via, params)
      const task = made.value
      if (agent.acp_type !== "sync") {
        yield* forward(agent, via, "task/create", task, { ...wire(agent, task), params: given.params ?? null }).pipe(
          Effect.tapError((error) => update(task, { status: "FAILED", status_reason: error.message }))
        )
      }
      return taskOf(task)
    })

  const eventSend = (agent: StoredAgent, via: Via, params: unknown) =>
    Effect.gen(function*() {
      const given = yield* paramsOf(EventSendParams, params)
      const task = yield* Effect.flatMap(required(agent, given), resumed)
      const [id, created_at] = [yield* ids.make, yield* nowIso]
      const content: EventContent = given.content === undefined ? { type: "data", data: {} } : storedContent(given.content)
      const event = yield* events.append({ id, account_id: task.account_id, task_id: task.id, agent_id: agent.id, created_at, content })
      const answered = new TaskEvent(Struct.omit(event, "account_id"), true)
      yield* forward(agent, via, "event/send", task, { ...wire(agent, task), event: answered, request: null })
      return answered
    })

  const taskCancel = (agent: StoredAgent, via: Via, params: unknown) =>
    Effect.gen(function*() {
      const task = yield* Effect.flatMap(paramsOf(TaskMoveParams, params), (ref) => required(agent, ref))
      yield* forward(agent, via, "task/cancel", task, wire(agent, task))
      const now = yield* tasks.transaction(Effect.flatMap(tasks.get(task.id, [task.account_id]), (current) =>
        isFinal(current.status) ? Effect.succeed(current) : update(current, { status: "CANCELED", status_reason: "Task canceled by user" })
      ))
      return taskOf(now)
    }).pipe(Effect.catchTag("NotFound", (error) => Effect.fail(failed(error.detail))))

  const taskInterrupt = (agent: StoredAgent, via: Via, params: unknown) =>
    Effect.gen(function*() {
      const task = yield* Effect.flatMap(paramsOf(TaskMoveParams, params), (ref) => required(agent, ref))
      yield* forward(agent, via, "task/interrupt", task, wire(agent, task))
      // the agent records the interruption itself (POST /tasks/{id}/interrupt), as with agentex
      return taskOf(yield* tasks.get(task.id, [task.account_id]))
    }).pipe(Effect.catchTag("NotFound", (error) => Effect.fail(failed(error.detail))))

  /** The task a `message/send` goes to: the named one, else one made by name or anonymously. */
  const messageTask = (agent: StoredAgent, given: typeof MessageSendParams.Type): Effect.Effect<StoredTask, RpcFailure> =>
    Effect.gen(function*() {
      const found = yield* named(agent, given)
      if (Option.isSome(found)) {
        const task = yield* resumed(found.value)
        return given.task_params === undefined ? task : yield* update(task, { params: given.task_params })
      }
      if (given.task_id !== undefined) return yield* Effect.fail(invalid(`task ${given.task_id} not found`))
      return yield* newTask(agent, given.task_name ?? null, given.task_params ?? null, null).pipe(
        // made by a concurrent call naming it: that one
        Effect.catchTag("TaskNameTaken", () => messageTask(agent, given))
      )
    })

  /** A piece's content so far (joining its deltas can fail: pieces that do not make JSON). */
  const contentNow = (piece: Piece) =>
    Effect.try({ try: () => contentOf(piece), catch: (error) => failed(error instanceof AccumulationError ? error.message : String(error)) })

  /**
   * The agent's answer to a message, folded into messages, each stored when it starts (in
   * progress) or when it is finished (done); `emit` passes every update on with the stored message
   * it belongs to. A failure of the agent fails the task.
   */
  const converse = (
    agent: StoredAgent,
    via: Via,
    task: StoredTask,
    content: TaskMessageContent,
    asked: StoredMessage,
    passOn: (update: TaskMessageUpdate) => Effect.Effect<void>
  ) =>
    Effect.gen(function*() {
      // every update goes to the task's stream too
      const emit = (update: TaskMessageUpdate) => Effect.zipRight(streams.publish(task, update), passOn(update))
      // each message the answer makes is stored after the one before (the question first)
      let last = asked.created_at
      const store = (made: TaskMessageContent, streaming: StoredMessage["streaming_status"]) =>
        Effect.tap(storeMessage(task, made, streaming, last), (message) => Effect.sync(() => (last = message.created_at)))
      const target = yield* targetOf(agent, via)
      const pieces = new Map<number, Piece>()
      const stored = new Map<number, StoredMessage>()
      const finish = (piece: Piece) =>
        Effect.gen(function*() {
          const made = yield* contentNow(piece)
          const before = stored.get(piece.index)
          if (made === undefined) return before
          const now = yield* nowIso
          const message = before === undefined
            ? yield* store(made, "DONE")
            : yield* messages.update({ ...before, content: made, streaming_status: "DONE", updated_at: now })
          stored.set(piece.index, message)
          return message
        })
      yield* calls.send(target, { ...wire(agent, task), content, stream: true }, `message/send-${task.id}`).pipe(
        Stream.mapError((error) => failed(`The agent's ACP server failed: ${error.message}`)),
        Stream.runForEach((update) =>
          Effect.gen(function*() {
            const { piece, taken } = fold(pieces, update)
            if (!taken) return
            let parent = stored.get(piece.index)
            if (parent === undefined && (update.type === "start" || update.type === "delta")) {
              const initial = update.type === "start" ? update.content : yield* contentNow(piece)
              if (initial !== undefined) {
                parent = yield* store(initial, "IN_PROGRESS")
                stored.set(piece.index, parent)
                // a message begun by a delta is announced by a start, as agentex does
                if (update.type === "delta") {
                  yield* emit({ type: "start", index: piece.index, content: initial, parent_task_message: messageOf(parent) })
                }
              }
            }
            if (update.type === "full" || update.type === "done") parent = yield* finish(piece)
            yield* emit({ ...update, index: piece.index, parent_task_message: parent === undefined ? null : messageOf(parent) })
          })
        )
      )
      // pieces the agent left open are finished as they stand, and said to be done
      for (const piece of pieces.values()) {
        if (piece.done || piece.full !== undefined) continue
        const message = yield* finish(piece)
        if (message !== undefined) yield* emit({ type: "done", index: piece.index, parent_task_message: messageOf(message) })
      }
      return [...stored.entries()].sort(([a], [b]) => a - b).map(([, message]) => message)
    }).pipe(
      Effect.tapError((error) =>
        error.code === -32603 ? Effect.ignore(update(task, { status: "FAILED", status_reason: error.message })) : Effect.void
      )
    )

  /**
   * `message/send` to a sync agent (docs/agent-tasks.md "RPC"): the caller's message stored, then
   * the agent's answer, after any other send to the task (sendLease.ts); each update of the answer
   * handed to `passOn`. Answers the task and the messages the agent made.
   */
  const send = (
    agent: StoredAgent,
    given: typeof MessageSendParams.Type,
    passOn: (update: TaskMessageUpdate) => Effect.Effect<void> = () => Effect.void,
    via: Via = undefined
  ) =>
    Effect.flatMap(messageTask(agent, given), (task) =>
      Effect.map(exchange(agent, via, task, given, passOn), (messages) => ({ task, messages })))

  /** The caller's message stored in `task`, then the agent's answer, after any other send to the task (sendLease.ts). */
  const exchange = (
    agent: StoredAgent,
    via: Via,
    task: StoredTask,
    given: typeof MessageSendParams.Type,
    passOn: (update: TaskMessageUpdate) => Effect.Effect<void>
  ) => {
    const content = completeContent(given.content)
    return sendLease.exclusive(task.id, Effect.flatMap(
      storeAsked(task, content, given.stream === true ? "DONE" : null),
      (asked) => converse(agent, via, task, content, asked, passOn)
    ))
  }

  const respond = (request: AgentRpcRequest, outcome: Effect.Effect<unknown, RpcFailure>) =>
    Effect.match(outcome, {
      onFailure: (error) =>
        new AgentRpcResponse({ jsonrpc: "2.0", id: request.id ?? null, result: null, error: new AgentRpcError({ code: error.code, message: error.message, data: null }) }, true),
      onSuccess: (result) => new AgentRpcResponse({ jsonrpc: "2.0", id: request.id ?? null, result: result as any, error: null }, true)
    })

  const line = (request: AgentRpcRequest, result: unknown, error: RpcFailure | null) =>
    JSON.stringify(encodeResponse(new AgentRpcResponse({
      jsonrpc: "2.0",
      id: request.id ?? null,
      result: result as any,
      error: error === null ? null : new AgentRpcError({ code: error.code, message: error.message, data: null })
    }, true))) + "\n"

  /**
   * Handles one call to `agent` (to its deployment `via` when given: a preview), as a span of the
   * kit's own (spans/tracer.ts): the agent, the method, the task once known; an error response
   * is an `ERROR`. A streamed `message/send`'s span is its exchange's, made where the stream runs it.
   */
  const handle = (agent: StoredAgent, request: AgentRpcRequest, via: Via = undefined) =>
    request.method === "message/send" && isStreamed(request.params)
      ? handleCall(agent, request, via)
      : recordedSpan(handleCall(agent, request, via), "agent.rpc", {
        ...rpcSpan(agent, request, via),
        output: (answer) => (answer instanceof AgentRpcResponse ? { result: answer.result } : null),
        errorOf: (answer) => (answer instanceof AgentRpcResponse ? answer.error?.message : undefined)
      })

  /** Whether a `message/send`'s parameters ask for a stream. */
  const isStreamed = (params: unknown) =>
    typeof params === "object" && params !== null && (params as Record<string, unknown>).stream === true

  /** The span options of a call: the agent's account, the agent, the method, the deployment. */
  const rpcSpan = (agent: StoredAgent, request: AgentRpcRequest, via: Via) => ({
    accountId: agent.account_id,
    type: "CUSTOM" as const,
    attributes: { agent_id: agent.id, agent_name: agent.name, method: request.method, rpc_id: request.id ?? null, deployment_id: via ?? null },
    input: request.params
  })

  const handleCall = (agent: StoredAgent, request: AgentRpcRequest, via: Via) =>
    Effect.gen(function*() {
      if (!allowed[agent.acp_type].includes(request.method)) {
        return yield* respond(request, Effect.fail(invalid(`method ${request.method} is not supported by ${agent.acp_type} agents`)))
      }
      switch (request.method) {
        case "task/create":
          return yield* respond(request, taskCreate(agent, via, request.params))
        case "event/send":
          return yield* respond(request, eventSend(agent, via, request.params))
        case "task/cancel":
          return yield* respond(request, taskCancel(agent, via, request.params))
        case "task/interrupt":
          return yield* respond(request, taskInterrupt(agent, via, request.params))
        case "message/send": {
          const parsed = yield* Effect.either(paramsOf(MessageSendParams, request.params))
          if (parsed._tag === "Left") return yield* respond(request, Effect.fail(parsed.left))
          const given = parsed.right
          if (given.stream !== true) {
            return yield* respond(request, Effect.map(send(agent, given, undefined, via), ({ messages }) => messages.map(messageOf)))
          }
          // the task is found or made before the stream starts: its failure is the whole answer
          const ready = yield* Effect.either(messageTask(agent, given))
          if (ready._tag === "Left") return yield* respond(request, Effect.fail(ready.left))
          const lines = Stream.asyncPush<string>((emit) =>
            recordedSpan(
              exchange(agent, via, ready.right, given, (update) => Effect.sync(() => emit.single(line(request, update, null)))),
              "agent.rpc",
              { ...rpcSpan(agent, request, via), attributes: { ...rpcSpan(agent, request, via).attributes, task_id: ready.right.id, streamed: true } }
            ).pipe(
              Effect.catchAll((error) => Effect.sync(() => emit.single(line(request, null, error)))),
              Effect.ensuring(Effect.sync(() => emit.end())),
              Effect.forkScoped
            )
          )
          return HttpServerResponse.stream(Stream.encodeText(lines), { contentType: "application/x-ndjson" })
        }
      }
    })

  /**
   * A query of a task's workflow (docs/agent-tasks.md "Queries"): `task/query` asked of the
   * task's agent, its result answered.
   */
  const query = (task: StoredTask, name: string) =>
    Effect.gen(function*() {
      const found = yield* agents.find(task.agent_id, [task.account_id])
      if (Option.isNone(found)) return yield* Effect.fail(failed("its agent was deleted"))
      const agent = found.value
      const target = yield* targetOf(agent, undefined)
      return yield* calls.ask(target, "task/query", { ...wire(agent, task), query: name }, `task/query-${task.id}`)
    })

  return { handle, query, send } as const
})
