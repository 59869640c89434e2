/**
 * The agent-task API of the real `agentex` SDK (docs/agent-tasks.md): agents and their
 * JSON-RPC endpoint, tasks, messages and states, under the paths agentex clients call. Every
 * request works in one account: `x-selected-account-id`, else the caller's only account.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import {
  Agent,
  AgentDeployment,
  AgentDeploymentsListQuery,
  AgentTaskTracker,
  CreateAgentDeployment,
  DeploymentHistory,
  DeploymentHistoryListQuery,
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
import {
  CheckpointDeleteThread,
  CheckpointGetTuple,
  CheckpointList,
  CheckpointListItem,
  CheckpointPut,
  CheckpointPutResponse,
  CheckpointPutWrites,
  CheckpointTupleResponse
} from "@platform-kit/schema"
import { CreateRunSchedule, RunSchedule, RunScheduleList, RunSchedulesListQuery, ScheduleNote, ScheduleSkip, UpdateRunSchedule } from "@platform-kit/schema"
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

const DeploymentPath = Schema.Struct({ agent_id: Id, agent_deployment_id: Id })

export class AgentDeploymentsApi extends HttpApiGroup.make("agentDeployments")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/agents/:agent_id/deployments")
      .setPath(AgentPath)
      .setPayload(CreateAgentDeployment)
      .addSuccess(AgentDeployment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Create an agent deployment")
      .annotate(
        OpenApi.Description,
        "A new deployment of the agent, `Pending` (no ACP URL) until its ACP server registers with `registration_metadata.deployment_id` naming it; then `Ready`."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/agents/:agent_id/deployments")
      .setPath(AgentPath)
      .setUrlParams(AgentDeploymentsListQuery)
      .addSuccess(Schema.Array(AgentDeployment))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List an agent's deployments")
      .annotate(OpenApi.Description, "A page of the agent's deployments that are not deleted, newest first, as a bare array.")
  )
  .add(
    HttpApiEndpoint.get("get", "/agents/:agent_id/deployments/:agent_deployment_id")
      .setPath(DeploymentPath)
      .addSuccess(AgentDeployment)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an agent deployment")
      .annotate(OpenApi.Description, "The deployment, deleted or not (`expires_at` set); 404 when it is not the agent's.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/agents/:agent_id/deployments/:agent_deployment_id")
      .setPath(DeploymentPath)
      .addSuccess(AgentTasksDeleteResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Delete an agent deployment")
      .annotate(
        OpenApi.Description,
        "A soft delete: sets `expires_at` (the deployment leaves the list; it stays readable and previewable). 409 for the production deployment (agentex: 400): promote another first."
      )
  )
  .add(
    HttpApiEndpoint.post("previewRpc", "/agents/:agent_id/deployments/:agent_deployment_id/rpc")
      .setPath(DeploymentPath)
      .setPayload(AgentRpcRequest)
      .addSuccess(AgentRpcResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Call one deployment of an agent")
      .annotate(
        OpenApi.Description,
        `The agent's RPC sent to this deployment's ACP server, production or not. 409 when it has no ACP URL yet (agentex: 400). ${rpcDescription}`
      )
  )
  .add(
    HttpApiEndpoint.post("promote", "/agents/:agent_id/deployments/:agent_deployment_id/promote")
      .setPath(DeploymentPath)
      .addSuccess(AgentDeployment)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Promote an agent deployment")
      .annotate(
        OpenApi.Description,
        "Makes the deployment the agent's one production deployment, which the agent's RPC then reaches; records it in the deployment history. 404 for a deleted deployment, 409 unless it is `Ready` (agentex: 500)."
      )
  )
  .annotate(OpenApi.Title, "Agent deployments")
  .annotate(OpenApi.Description, "Versions of an agent (agentex): made pending, ready when their ACP server registers, previewed, promoted.")
{}

export class DeploymentHistoryApi extends HttpApiGroup.make("deploymentHistory")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.get("list", "/deployment-history")
      .setUrlParams(DeploymentHistoryListQuery)
      .addSuccess(Schema.Array(DeploymentHistory))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List an agent's deployment history")
      .annotate(
        OpenApi.Description,
        "A page of one agent's history (exactly one of `agent_id`, `agent_name`: 422 otherwise; agentex: 400), newest `deployment_timestamp` first, as a bare array."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/deployment-history/:deployment_history_id")
      .setPath(Schema.Struct({ deployment_history_id: Id }))
      .addSuccess(DeploymentHistory)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a deployment history entry")
      .annotate(OpenApi.Description, "The entry; 404 when it is not in the caller's accounts.")
  )
  .annotate(OpenApi.Title, "Deployment history")
  .annotate(OpenApi.Description, "What went live for each agent (agentex): a read-only log written by registrations and promotions.")
{}

/** The thread of a checkpoint request is a task of the caller's: `thread_id` names it, in the body. */
const threadNotFound = "404 when `thread_id` is not a task of the caller's accounts."

export class CheckpointsApi extends HttpApiGroup.make("checkpoints")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("getTuple", "/checkpoints/get-tuple")
      .setPayload(CheckpointGetTuple)
      .addSuccess(Schema.NullOr(CheckpointTupleResponse))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a checkpoint")
      .annotate(
        OpenApi.Description,
        `The checkpoint \`checkpoint_id\` of the thread's namespace \`checkpoint_ns\` (default \`""\`), or its latest (greatest id) when \`checkpoint_id\` is null, with the blobs of the versions in its \`channel_versions\` and its pending writes (by \`task_id\`, \`idx\`); \`null\` when there is none. ${threadNotFound}`
      )
  )
  .add(
    HttpApiEndpoint.post("put", "/checkpoints/put")
      .setPayload(CheckpointPut)
      .addSuccess(CheckpointPutResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Put a checkpoint")
      .annotate(
        OpenApi.Description,
        `Stores the checkpoint and its blobs in one transaction. A blob already stored for its (channel, version) is kept as it is; a checkpoint already stored gets the new \`checkpoint\` and \`metadata\` and keeps its \`parent_checkpoint_id\`. Blobs are base64 (anything else is a 422). ${threadNotFound}`
      )
  )
  .add(
    HttpApiEndpoint.post("putWrites", "/checkpoints/put-writes")
      .setPayload(CheckpointPutWrites)
      .addSuccess(Schema.Void)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Put a checkpoint's pending writes")
      .annotate(
        OpenApi.Description,
        `Stores each write by (checkpoint, \`task_id\`, \`idx\`): one already there is replaced when \`upsert\` is true, kept otherwise. Answers 204. ${threadNotFound}`
      )
  )
  .add(
    HttpApiEndpoint.post("list", "/checkpoints/list")
      .setPayload(CheckpointList)
      .addSuccess(Schema.Array(CheckpointListItem))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List checkpoints")
      .annotate(
        OpenApi.Description,
        `The thread's checkpoints, greatest id first, as a bare array (no blobs, no writes): \`checkpoint_ns\` (null: every namespace), \`before_checkpoint_id\` (ids below it), \`filter_metadata\` (metadata containing it) narrow; \`limit\` 1 to 1000, default 100. ${threadNotFound}`
      )
  )
  .add(
    HttpApiEndpoint.post("deleteThread", "/checkpoints/delete-thread")
      .setPayload(CheckpointDeleteThread)
      .addSuccess(Schema.Void)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a thread's checkpoints")
      .annotate(OpenApi.Description, `Deletes the thread's checkpoints, blobs and writes in every namespace; answers 204. ${threadNotFound}`)
  )
  .annotate(OpenApi.Title, "Agent task checkpoints")
  .annotate(
    OpenApi.Description,
    "LangGraph's checkpointer store (agentex): a thread is a task; checkpoints, their channel values and their pending writes."
  )
{}

const SchedulePath = Schema.Struct({ agent_id: Id, schedule_id: Id })
const ScheduleNamePath = Schema.Struct({ agent_id: Id, schedule_name: Schema.String })
const scheduleNotFound = "404 when the agent or the schedule is not the caller's, or the schedule was deleted."

/** A POST of a schedule's, by id and by name: the same answer, the same rules. */
const scheduleAction = <const Name extends string, const ByName extends string>(
  name: Name,
  byName: ByName,
  summary: string,
  description: string
) => ({
  byId: HttpApiEndpoint.post(name, `/agents/:agent_id/schedules/:schedule_id/${name}`)
    .setPath(SchedulePath)
    .addSuccess(RunSchedule)
    .addError(NotFound)
    .annotate(OpenApi.Summary, summary)
    .annotate(OpenApi.Description, `${description} ${scheduleNotFound}`),
  byName: HttpApiEndpoint.post(byName, `/agents/:agent_id/schedules/name/:schedule_name/${name}`)
    .setPath(ScheduleNamePath)
    .addSuccess(RunSchedule)
    .addError(NotFound)
    .annotate(OpenApi.Summary, `${summary} by name`)
    .annotate(OpenApi.Description, `As by id, the schedule named by its (active) name. ${scheduleNotFound}`)
})

const pause = scheduleAction("pause", "pauseByName", "Pause a run schedule", "Stops its cadence (a trigger still runs); `note` is not stored.")
const resume = scheduleAction(
  "resume",
  "resumeByName",
  "Resume a run schedule",
  "Its cadence goes on from now: the fires due while it was paused are not made up; one-off skips stay."
)
const trigger = scheduleAction(
  "trigger",
  "triggerByName",
  "Trigger a run schedule",
  "An extra run now, outside the cadence, paused or not (trigger type `manual`); answers the schedule, not the task."
)
const updateDescription =
  "Applies the keys given (`null` clears `description`, `task_params`, `task_metadata`, `start_at`, `end_at` and a cadence; it is ignored for `timezone`, `paused`, `initial_input`). Setting one cadence clears the other; both given, or none left, is a 422; a name another active schedule of the agent has is a 409. One-off skips are dropped."

export class AgentRunSchedulesApi extends HttpApiGroup.make("agentRunSchedules")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/agents/:agent_id/schedules")
      .setPath(AgentPath)
      .setPayload(CreateRunSchedule)
      .addSuccess(RunSchedule)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Create a run schedule")
      .annotate(
        OpenApi.Description,
        "Runs the agent on a cadence: exactly one of `cron_expression` (in `timezone`, default `UTC`) and `interval_seconds` (else 422), inside `start_at`/`end_at`. Each fire gets or creates the task `scheduled-run:<schedule_id>:<fire_id>` with `task_params` and `task_metadata` and delivers `initial_input` (`message/send` to a sync agent, `event/send` to an async one). 409 when an active schedule of the agent has the name (agentex: 400); 404 when the agent is not the caller's."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/agents/:agent_id/schedules")
      .setPath(AgentPath)
      .setUrlParams(RunSchedulesListQuery)
      .addSuccess(RunScheduleList)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List an agent's run schedules")
      .annotate(
        OpenApi.Description,
        "The agent's schedules that are not deleted, newest first, `limit` of them (default 100), as `{run_schedules, total}` (`total`: the number answered). The live fields are read only with `include_live=true` (`live_data_available` is `null` otherwise)."
      )
  )
  .add(
    HttpApiEndpoint.get("getByName", "/agents/:agent_id/schedules/name/:schedule_name")
      .setPath(ScheduleNamePath)
      .addSuccess(RunSchedule)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a run schedule by name")
      .annotate(OpenApi.Description, `The agent's active schedule of this name, with its live fields. ${scheduleNotFound}`)
  )
  .add(
    HttpApiEndpoint.patch("updateByName", "/agents/:agent_id/schedules/name/:schedule_name")
      .setPath(ScheduleNamePath)
      .setPayload(UpdateRunSchedule)
      .addSuccess(RunSchedule)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Update a run schedule by name")
      .annotate(OpenApi.Description, `${updateDescription} ${scheduleNotFound}`)
  )
  .add(
    HttpApiEndpoint.del("deleteByName", "/agents/:agent_id/schedules/name/:schedule_name")
      .setPath(ScheduleNamePath)
      .addSuccess(AgentTasksDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a run schedule by name")
      .annotate(OpenApi.Description, `As the delete by id. ${scheduleNotFound}`)
  )
  .add(pause.byName.setPayload(Schema.NullOr(ScheduleNote)))
  .add(resume.byName.setPayload(Schema.NullOr(ScheduleNote)))
  .add(trigger.byName)
  .add(
    HttpApiEndpoint.get("get", "/agents/:agent_id/schedules/:schedule_id")
      .setPath(SchedulePath)
      .addSuccess(RunSchedule)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a run schedule")
      .annotate(OpenApi.Description, `The schedule, with its live fields (next fires, skips, last fire, fires so far). ${scheduleNotFound}`)
  )
  .add(
    HttpApiEndpoint.patch("update", "/agents/:agent_id/schedules/:schedule_id")
      .setPath(SchedulePath)
      .setPayload(UpdateRunSchedule)
      .addSuccess(RunSchedule)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Update a run schedule")
      .annotate(OpenApi.Description, `${updateDescription} ${scheduleNotFound}`)
  )
  .add(
    HttpApiEndpoint.del("delete", "/agents/:agent_id/schedules/:schedule_id")
      .setPath(SchedulePath)
      .addSuccess(AgentTasksDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a run schedule")
      .annotate(
        OpenApi.Description,
        `A soft delete: the schedule stops firing and leaves the reads; its name is free again; fires not yet delivered end skipped (\`schedule_deleted\`). ${scheduleNotFound}`
      )
  )
  .add(pause.byId.setPayload(Schema.NullOr(ScheduleNote)))
  .add(resume.byId.setPayload(Schema.NullOr(ScheduleNote)))
  .add(trigger.byId)
  .add(
    HttpApiEndpoint.post("skip", "/agents/:agent_id/schedules/:schedule_id/skip")
      .setPath(SchedulePath)
      .setPayload(ScheduleSkip)
      .addSuccess(RunSchedule)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Skip one fire of a run schedule")
      .annotate(
        OpenApi.Description,
        `Leaves out the fire at \`scheduled_time\` (with its offset), one of the upcoming \`next_action_times\`; a past time or one not upcoming is a 422 (agentex: 400). An update drops the skips. ${scheduleNotFound}`
      )
  )
  .add(
    HttpApiEndpoint.post("unskip", "/agents/:agent_id/schedules/:schedule_id/unskip")
      .setPath(SchedulePath)
      .setPayload(ScheduleSkip)
      .addSuccess(RunSchedule)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Unskip one fire of a run schedule")
      .annotate(
        OpenApi.Description,
        `Puts back the fire at \`scheduled_time\`, a future time skipped before (else 422; agentex: 400). ${scheduleNotFound}`
      )
  )
  .annotate(OpenApi.Title, "Agent run schedules")
  .annotate(
    OpenApi.Description,
    "Runs of an agent on a cadence (agentex): a cron expression in a time zone, or an interval; each fire a task with the schedule's first input delivered."
  )
{}
