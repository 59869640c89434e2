/**
 * The agent-task API of the real `agentex` SDK (docs/agent-tasks.md): agents and their
 * JSON-RPC endpoint, tasks, messages and states, under the paths agentex clients call. Every
 * request works in one account: `x-selected-account-id`, else the caller's only account.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import {
  Agent,
  AgentTaskTracker,
  BadGateway,
  GatewayTimeout,
  TaskQueryResponse,
  AgentRpcRequest,
  AgentRpcResponse,
  AgentsListQuery,
  AgentTasksDeleteResponse,
  Conflict,
  CreateMessage,
  CreateMessages,
  CreateTaskState,
  Id,
  MessagesCursorPage,
  MessagesCursorQuery,
  MessagesListQuery,
  NotFound,
  RegisterAgent,
  RegisterAgentBuild,
  RegisteredAgent,
  StatesListQuery,
  Task,
  TaskListItem,
  TaskMessage,
  TaskReadQuery,
  TasksListQuery,
  TaskState,
  TaskStatusChange,
  TaskStreamHeaders,
  TaskStreamQuery,
  TaskWithAgents,
  TrackerListQuery,
  UpdateAgentTaskTracker,
  UpdateMessage,
  UpdateMessages,
  UpdateTask,
  UpdateTaskState
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const AgentPath = Schema.Struct({ agent_id: Id })
const AgentNamePath = Schema.Struct({ agent_name: Schema.String })
const TaskPath = Schema.Struct({ task_id: Id })
const TaskNamePath = Schema.Struct({ task_name: Schema.String })
const TaskQueryPath = Schema.Struct({ task_id: Id, query_name: Schema.String })

const rpcDescription =
  "JSON-RPC 2.0 to the agent: `task/create` (get-or-create by name), `message/send` (sync agents; `stream: true` answers NDJSON lines, one update each), `event/send` (async agents), `task/cancel`, `task/interrupt`. Forwarded to the agent's ACP server (`{acp_url}/api`); always HTTP 200, with `result` or `error` (-32602 bad parameters, -32603 anything else)."

export class AgentsApi extends HttpApiGroup.make("agents")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("register", "/agents/register")
      .setPayload(RegisterAgent)
      .addSuccess(RegisteredAgent)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Register an agent")
      .annotate(
        OpenApi.Description,
        "What an agent's ACP server calls when it starts: creates the agent, or updates the one of this name (or `agent_id`), status `Ready`. Answers a new `agent_api_key`, which the platform sends as `x-agent-api-key` on its calls to the agent; it is answered only here."
      )
  )
  .add(
    HttpApiEndpoint.post("registerBuild", "/agents/register-build")
      .setPayload(RegisterAgentBuild)
      .addSuccess(Agent)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Register an agent build")
      .annotate(OpenApi.Description, "Makes (or updates) an agent known before it runs: status `BuildOnly`, no ACP server yet.")
  )
  .add(
    HttpApiEndpoint.get("list", "/agents")
      .setUrlParams(AgentsListQuery)
      .addSuccess(Schema.Array(Agent))
      .annotate(OpenApi.Summary, "List agents")
      .annotate(
        OpenApi.Description,
        "A page of the account's agents (`limit`, default 50; `page_number` from 1; `order_by`, `order_direction`), newest first, as a bare array; `task_id` narrows to the task's agent. Deleted agents are left out."
      )
  )
  .add(
    HttpApiEndpoint.get("getByName", "/agents/name/:agent_name")
      .setPath(AgentNamePath)
      .addSuccess(Agent)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an agent by name")
      .annotate(OpenApi.Description, "The account's agent of this name; 404 when there is none (or it was deleted).")
  )
  .add(
    HttpApiEndpoint.del("deleteByName", "/agents/name/:agent_name")
      .setPath(AgentNamePath)
      .addSuccess(AgentTasksDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete an agent by name")
      .annotate(OpenApi.Description, "Marks the agent `Deleted` (its tasks stay); a later registration of the name makes it `Ready` again.")
  )
  .add(
    HttpApiEndpoint.post("rpcByName", "/agents/name/:agent_name/rpc")
      .setPath(AgentNamePath)
      .setPayload(AgentRpcRequest)
      .addSuccess(AgentRpcResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Call an agent by name")
      .annotate(OpenApi.Description, rpcDescription)
  )
  .add(
    HttpApiEndpoint.get("get", "/agents/:agent_id")
      .setPath(AgentPath)
      .addSuccess(Agent)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an agent")
      .annotate(OpenApi.Description, "The agent; 404 when it is not in the caller's accounts or was deleted.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/agents/:agent_id")
      .setPath(AgentPath)
      .addSuccess(AgentTasksDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete an agent")
      .annotate(OpenApi.Description, "Marks the agent `Deleted` (its tasks stay); 404 when it already is.")
  )
  .add(
    HttpApiEndpoint.post("rpc", "/agents/:agent_id/rpc")
      .setPath(AgentPath)
      .setPayload(AgentRpcRequest)
      .addSuccess(AgentRpcResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Call an agent")
      .annotate(OpenApi.Description, rpcDescription)
  )
  .annotate(OpenApi.Title, "Agents")
  .annotate(OpenApi.Description, "Agents (agentex): registered by their ACP servers, called through JSON-RPC.")
{}

/** The status moves of a task: each from `RUNNING` or `INTERRUPTED` only (409 from a final status). */
const move = <const Name extends string>(name: Name, to: string, summary: string) =>
  HttpApiEndpoint.post(name, `/tasks/:task_id/${name}`)
    .setPath(TaskPath)
    .setPayload(TaskStatusChange)
    .addSuccess(Task)
    .addError(NotFound)
    .addError(Conflict)
    .annotate(OpenApi.Summary, summary)
    .annotate(
      OpenApi.Description,
      `Moves a running or interrupted task to \`${to}\` with \`reason\` as its \`status_reason\`; 409 when its status is final.`
    )

const streamDescription =
  "Server-sent events of the task (`text/event-stream`): `connected` first, then each frame as it is written (`start`/`delta`/`full`/`done` of messages, `task_updated`), `:ping` every 15 s of silence; it ends after a `task_updated` with a final status (a final task: its frames replayed, then the end). Each frame but `connected` has an `id:`; a reconnect with `Last-Event-ID` (or `last_event_id`) is sent every frame after it first."

/** The answer of a task's live stream. */
const EventStream = HttpApiSchema.Text({ contentType: "text/event-stream" })

export class TasksApi extends HttpApiGroup.make("tasks")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.get("streamByName", "/tasks/name/:task_name/stream")
      .setPath(TaskNamePath)
      .setUrlParams(TaskStreamQuery)
      .setHeaders(TaskStreamHeaders)
      .addSuccess(EventStream)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Stream a task by name")
      .annotate(OpenApi.Description, streamDescription)
  )
  .add(
    HttpApiEndpoint.get("stream", "/tasks/:task_id/stream")
      .setPath(TaskPath)
      .setUrlParams(TaskStreamQuery)
      .setHeaders(TaskStreamHeaders)
      .addSuccess(EventStream)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Stream a task")
      .annotate(OpenApi.Description, streamDescription)
  )
  .add(
    HttpApiEndpoint.get("query", "/tasks/:task_id/query/:query_name")
      .setPath(TaskQueryPath)
      .addSuccess(TaskQueryResponse)
      .addError(NotFound)
      .addError(BadGateway)
      .addError(GatewayTimeout)
      .annotate(OpenApi.Summary, "Query a task's workflow")
      .annotate(
        OpenApi.Description,
        "Asks the task's agent (JSON-RPC `task/query` to its ACP server, docs/agent-tasks.md \"Queries\") and answers `{task_id, query, result}`; 404 when the task is not the caller's or the agent does not answer that query, 502/504 when the agent fails or does not answer in time."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/tasks")
      .setUrlParams(TasksListQuery)
      .addSuccess(Schema.Array(TaskListItem))
      .annotate(OpenApi.Summary, "List tasks")
      .annotate(
        OpenApi.Description,
        "A page of the account's tasks as a bare array (without `params`), newest first: `agent_id`, `agent_name`, `status` and `task_metadata` (a JSON object the metadata contains) filter; `relationships=agents` adds each task's agents."
      )
  )
  .add(
    HttpApiEndpoint.get("getByName", "/tasks/name/:task_name")
      .setPath(TaskNamePath)
      .setUrlParams(TaskReadQuery)
      .addSuccess(TaskWithAgents)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a task by name")
      .annotate(OpenApi.Description, "The account's task of this name.")
  )
  .add(
    HttpApiEndpoint.put("updateByName", "/tasks/name/:task_name")
      .setPath(TaskNamePath)
      .setPayload(UpdateTask)
      .addSuccess(Task)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a task by name")
      .annotate(OpenApi.Description, "As the update by id.")
  )
  .add(
    HttpApiEndpoint.del("deleteByName", "/tasks/name/:task_name")
      .setPath(TaskNamePath)
      .addSuccess(AgentTasksDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a task by name")
      .annotate(OpenApi.Description, "As the delete by id.")
  )
  .add(
    HttpApiEndpoint.get("get", "/tasks/:task_id")
      .setPath(TaskPath)
      .setUrlParams(TaskReadQuery)
      .addSuccess(TaskWithAgents)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a task")
      .annotate(OpenApi.Description, "The task; `relationships=agents` adds its agents.")
  )
  .add(
    HttpApiEndpoint.put("update", "/tasks/:task_id")
      .setPath(TaskPath)
      .setPayload(UpdateTask)
      .addSuccess(Task)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a task")
      .annotate(OpenApi.Description, "`merge_params` is merged into the task's `params` member by member; `task_metadata` replaces the metadata.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/tasks/:task_id")
      .setPath(TaskPath)
      .addSuccess(AgentTasksDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a task")
      .annotate(OpenApi.Description, "Marks the task `DELETED` (a final status; it stays readable); 404 when it already is.")
  )
  .add(move("cancel", "CANCELED", "Cancel a task"))
  .add(move("complete", "COMPLETED", "Complete a task"))
  .add(move("fail", "FAILED", "Fail a task"))
  .add(move("interrupt", "INTERRUPTED", "Interrupt a task"))
  .add(move("terminate", "TERMINATED", "Terminate a task"))
  .add(move("timeout", "TIMED_OUT", "Time a task out"))
  .annotate(OpenApi.Title, "Agent tasks")
  .annotate(OpenApi.Description, "Tasks of agents (agentex): made through an agent's RPC, moved through their statuses.")
{}

export class MessagesApi extends HttpApiGroup.make("messages")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("createBatch", "/messages/batch")
      .setPayload(CreateMessages)
      .addSuccess(Schema.Array(TaskMessage))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Create messages")
      .annotate(OpenApi.Description, "Adds the contents to the task as messages, in order (each a millisecond after the one before).")
  )
  .add(
    HttpApiEndpoint.put("updateBatch", "/messages/batch")
      .setPayload(UpdateMessages)
      .addSuccess(Schema.Array(TaskMessage))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update messages")
      .annotate(OpenApi.Description, "Replaces the content of each message named in `updates` (all of the task, else 404 and none changed).")
  )
  .add(
    HttpApiEndpoint.get("listPaginated", "/messages/paginated")
      .setUrlParams(MessagesCursorQuery)
      .addSuccess(MessagesCursorPage)
      .annotate(OpenApi.Summary, "List a task's messages by cursor")
      .annotate(
        OpenApi.Description,
        "A task's messages from `cursor` on, `older` (default: newest first) or `newer`; `next_cursor` continues, `has_more` says whether it would find more; `filters` as the plain list."
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/messages")
      .setPayload(CreateMessage)
      .addSuccess(TaskMessage)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Create a message")
      .annotate(OpenApi.Description, "Adds a message to the task (`created_at` defaults to now).")
  )
  .add(
    HttpApiEndpoint.get("list", "/messages")
      .setUrlParams(MessagesListQuery)
      .addSuccess(Schema.Array(TaskMessage))
      .annotate(OpenApi.Summary, "List a task's messages")
      .annotate(
        OpenApi.Description,
        "A page of the task's messages, newest first, as a bare array; `filters` is a JSON array of `{content, streaming_status, exclude}` (a message matches a filter whose members it has)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/messages/:message_id")
      .setPath(Schema.Struct({ message_id: Id }))
      .addSuccess(TaskMessage)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a message")
      .annotate(OpenApi.Description, "The message; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.put("update", "/messages/:message_id")
      .setPath(Schema.Struct({ message_id: Id }))
      .setPayload(UpdateMessage)
      .addSuccess(TaskMessage)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a message")
      .annotate(OpenApi.Description, "Replaces the message's content (and `streaming_status` when given).")
  )
  .annotate(OpenApi.Title, "Agent task messages")
  .annotate(OpenApi.Description, "The messages of agent tasks (agentex).")
{}

export class StatesApi extends HttpApiGroup.make("states")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/states")
      .setPayload(CreateTaskState)
      .addSuccess(TaskState)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Create a state")
      .annotate(OpenApi.Description, "An agent's state for a task: one per task and agent (409 for a second).")
  )
  .add(
    HttpApiEndpoint.get("list", "/states")
      .setUrlParams(StatesListQuery)
      .addSuccess(Schema.Array(TaskState))
      .annotate(OpenApi.Summary, "List states")
      .annotate(OpenApi.Description, "A page of the account's states as a bare array; `task_id`, `agent_id` filter.")
  )
  .add(
    HttpApiEndpoint.get("get", "/states/:state_id")
      .setPath(Schema.Struct({ state_id: Id }))
      .addSuccess(TaskState)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a state")
      .annotate(OpenApi.Description, "The state; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.put("update", "/states/:state_id")
      .setPath(Schema.Struct({ state_id: Id }))
      .setPayload(UpdateTaskState)
      .addSuccess(TaskState)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a state")
      .annotate(OpenApi.Description, "Replaces the state object.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/states/:state_id")
      .setPath(Schema.Struct({ state_id: Id }))
      .addSuccess(TaskState)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a state")
      .annotate(OpenApi.Description, "Deletes the state and answers it as it was.")
  )
  .annotate(OpenApi.Title, "Agent task states")
  .annotate(OpenApi.Description, "States agents keep per task (agentex).")
{}

export class TrackerApi extends HttpApiGroup.make("tracker")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.get("get", "/tracker/:tracker_id")
      .setPath(Schema.Struct({ tracker_id: Id }))
      .addSuccess(AgentTaskTracker)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a task tracker")
      .annotate(OpenApi.Description, "The tracker; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.put("update", "/tracker/:tracker_id")
      .setPath(Schema.Struct({ tracker_id: Id }))
      .setPayload(UpdateAgentTaskTracker)
      .addSuccess(AgentTaskTracker)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a task tracker")
      .annotate(
        OpenApi.Description,
        "Writes `status` and `status_reason` (left out: null); `last_processed_event_id`, when given, moves the cursor to an event of the task, never backwards (422 otherwise)."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/tracker")
      .setUrlParams(TrackerListQuery)
      .addSuccess(Schema.Array(AgentTaskTracker))
      .annotate(OpenApi.Summary, "List task trackers")
      .annotate(OpenApi.Description, "A page of the caller's trackers as a bare array (newest change first); `agent_id`, `task_id` filter.")
  )
  .annotate(OpenApi.Title, "Agent task trackers")
  .annotate(OpenApi.Description, "One tracker per task: an agent's cursor into the task's events and its status (agentex).")
{}
