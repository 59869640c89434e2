/**
 * Agents-service variants (docs/applications.md "Agents-service variants"): a variant whose
 * configuration names a sync agent registered with the kit's agent half (`params.agent_name`, or
 * `params.agent_id`) processes as a `message/send` to that agent (docs/agent-tasks.md "RPC"): the
 * request's flat `inputs` become the task's params and the message's text; the agent's text
 * messages are the answer's `output-text`; the task and its messages stay visible through the
 * agent endpoints. A thread's turns are one task (named for the thread); outside a thread a
 * process continues the task its history's last `session_data.task_id` names, else starts one.
 * Every process is recorded as an interaction with one span for the agent's turn.
 */
import {
  type ApplicationVariantAgentsService,
  ApplicationInteraction,
  BadGateway,
  Conflict,
  MessageSpan,
  NodeLatency,
  type NotFound
} from "@platform-kit/schema"
import { Clock, Effect, Exit, Option } from "effect"
import { AgentsRepo, type StoredAgent } from "../../agent-tasks/agents/AgentsRepo.js"
import { MessagesRepo, type StoredMessage } from "../../agent-tasks/messages/MessagesRepo.js"
import { AgentCalls } from "../../agent-tasks/rpc/acp.js"
import { makeAgentRpc } from "../../agent-tasks/rpc/rpc.js"
import { TaskStreams } from "../../agent-tasks/streams.js"
import { TasksRepo } from "../../agent-tasks/tasks/TasksRepo.js"
import { SecretBox } from "../../credentials/SecretBox.js"
import { EventsRepo } from "../../events/EventsRepo.js"
import { freshIdentity, Ids } from "../../platform/Ids.js"
import { recordedSpan } from "../../spans/tracer.js"
import { InteractionsRepo } from "../InteractionsRepo.js"
import type { Recorded } from "./process.js"
import type { OnText, RunRequest } from "./runner.js"

/** The one node an agent's turn is recorded as. */
const agentNode = "agent"

/** The agent a variant's configuration names (by name first), or why it names none the kit can run. */
const agentOf = (variant: ApplicationVariantAgentsService, agents: AgentsRepo) =>
  Effect.gen(function*() {
    const { agent_id, agent_name } = variant.configuration.params as { agent_id?: unknown; agent_name?: unknown }
    const refused = (why: string) =>
      Effect.fail(new Conflict({ detail: `Application variant ${variant.id} is AGENTS_SERVICE: ${why}` }))
    const found = typeof agent_name === "string"
      ? yield* agents.findByName(agent_name, variant.account_id)
      : typeof agent_id === "string"
      ? yield* agents.find(agent_id, [variant.account_id])
      : undefined
    if (found === undefined) {
      return yield* refused(
        "its configuration.params names no agent: set \"agent_name\" (or \"agent_id\") to an agent registered in the account"
      )
    }
    if (Option.isNone(found)) {
      return yield* refused(`its agent ${String(agent_name ?? agent_id)} is not registered in the account`)
    }
    const agent: StoredAgent = found.value
    if (agent.acp_type !== "sync") {
      return yield* refused(
        `its agent ${agent.name} is ${agent.acp_type}: only sync agents answer a process; send events to it through POST /agents/{agent_id}/rpc`
      )
    }
    return agent
  })

/** The message's text: the one input's text when there is one, else the inputs as JSON. */
const messageText = (inputs: Readonly<Record<string, unknown>>) => {
  const values = Object.values(inputs)
  return values.length === 1 && typeof values[0] === "string" ? values[0] : JSON.stringify(inputs)
}

/** The agent's answer as text: its text messages, in order. */
const answerText = (messages: ReadonlyArray<StoredMessage>) =>
  messages.flatMap((message) => (message.content.type === "text" ? [message.content.content] : [])).join("\n\n")

/** The task a process continues, when its history's last turn names one. */
const continuedTask = (request: RunRequest) => {
  const taskId = request.history?.at(-1)?.session_data?.task_id
  return typeof taskId === "string" ? taskId : undefined
}

export class AgentsServiceRunner extends Effect.Service<AgentsServiceRunner>()("@platform-kit/server/AgentsServiceRunner", {
  effect: Effect.gen(function*() {
    const agents = yield* AgentsRepo
    const rpc = yield* makeAgentRpc
    const interactions = yield* InteractionsRepo
    const ids = yield* Ids

    /**
     * Checks that `variant` names a sync agent of its account, and answers its process: the agent's
     * turn, recorded as `recordedAs`; a streamed process hands the agent's text deltas to `onText`.
     */
    const prepare = (variant: ApplicationVariantAgentsService, request: RunRequest, recordedAs: Recorded, onText?: OnText) =>
      Effect.map(agentOf(variant, agents), (agent) =>
        Effect.gen(function*() {
          const startedMs = yield* Clock.currentTimeMillis
          const started = performance.now()
          const text = messageText(request.inputs)
          const threadTask = recordedAs.chat_thread_id === undefined ? undefined : `application-thread-${recordedAs.chat_thread_id}`
          const taskId = threadTask === undefined ? continuedTask(request) : undefined
          const exit = yield* Effect.exit(
            // the call in the kit's own trace of the process (spans/tracer.ts; the root is runner.ts's)
            recordedSpan(rpc.send(
              agent,
              {
                content: { type: "text", author: "user", content: text },
                task_params: { ...request.inputs },
                ...(threadTask === undefined ? {} : { task_name: threadTask }),
                ...(taskId === undefined ? {} : { task_id: taskId })
              },
              (update) =>
                onText !== undefined && update.type === "delta" && update.delta?.type === "text"
                  ? onText(agentNode, update.delta.text_delta ?? "")
                  : Effect.void
            ), "agent.rpc", {
              type: "CUSTOM",
              attributes: { agent_id: agent.id, agent_name: agent.name, method: "message/send", streamed: onText !== undefined },
              input: { content: text }
            }).pipe(
              Effect.mapError((failure): NotFound | Conflict | BadGateway =>
                failure.code === -32602
                  ? new Conflict({ detail: `Agent ${agent.name}: ${failure.message}` })
                  : new BadGateway({ detail: `Agent ${agent.name}: ${failure.message}` })
              )
            )
          )
          const duration_ms = Math.round(performance.now() - started)
          const answer = Exit.isSuccess(exit)
            ? {
              "output-text": answerText(exit.value.messages),
              session_data: { agent_id: agent.id, task_id: exit.value.task.id }
            }
            : undefined
          const [id, created_at] = yield* freshIdentity
          const start_timestamp = new Date(startedMs).toISOString()
          const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error.detail : Exit.isFailure(exit) ? "The agent failed" : null
          const span = new MessageSpan({
            id: yield* ids.make,
            application_interaction_id: id,
            node_id: agentNode,
            operation_type: "CUSTOM",
            operation_status: error === null ? "SUCCESS" : "ERROR",
            start_timestamp,
            duration_ms,
            operation_input: { ...request.inputs },
            operation_output: answer === undefined ? null : { "output-text": answer["output-text"] },
            operation_metadata: { agent_id: agent.id, agent_name: agent.name, ...(error === null ? {} : { error }) },
            operation_expected: null
          }, true)
          yield* interactions.insert(
            new ApplicationInteraction({
              id,
              application_spec_id: recordedAs.application_spec_id,
              application_variant_id: recordedAs.application_variant_id,
              start_timestamp,
              duration_ms,
              input_tokens: 0,
              output_tokens: 0,
              error,
              user_id: null,
              node_latencies: [new NodeLatency({ node_id: agentNode, duration_ms }, true)],
              feedback: null,
              input: { ...request.inputs },
              output: answer === undefined ? {} : { ...answer },
              operation_metadata: request.operation_metadata === undefined || request.operation_metadata === null
                ? null
                : { ...request.operation_metadata },
              chat_thread_id: recordedAs.chat_thread_id ?? null,
              // a chat or an evaluation says so; else it is the agents service's
              interaction_source: recordedAs.interaction_source ?? "AGENTS_SERVICE",
              account_id: recordedAs.account_id,
              created_by_user_id: recordedAs.created_by_user_id,
              created_by_identity_type: recordedAs.created_by_identity_type,
              created_at
            }, true),
            [span]
          )
          yield* exit
          return { ...answer, application_interaction_id: id } as Record<string, unknown>
        }))

    return { prepare } as const
  }),
  // the agent half's own services: the same instances as its endpoints' (layers are shared by reference)
  dependencies: [
    AgentsRepo.Default,
    TasksRepo.Default,
    MessagesRepo.Default,
    EventsRepo.Default,
    AgentCalls.Default,
    SecretBox.Live,
    TaskStreams.Default,
    InteractionsRepo.Default
  ]
}) {}
