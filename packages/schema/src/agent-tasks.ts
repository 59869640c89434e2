/**
 * The agent-task API of the real `agentex` SDK and server: agents,
 * their tasks, the tasks' messages and states, and the JSON-RPC endpoint through which clients
 * talk to an agent. Events are the seed's (events.ts). docs/agent-tasks.md.
 */
import { Schema } from "effect"
import { DateTimeString, Id, JsonObject, NonEmptyString, Nullable, Optional, QueryArray } from "./common.js"
import { Attachment, EventContentInput, TaskEvent } from "./events.js"

// ---------------------------------------------------------------------------------------------
// Agents

/** How the platform talks to an agent (`agentic` is the SDK's deprecated name for `async`). */
export const AcpType = Schema.Literal("sync", "async", "agentic").annotations({ identifier: "AcpType" })
export type AcpType = typeof AcpType.Type

export const AgentStatus = Schema.Literal("Ready", "Failed", "Unknown", "Deleted", "Unhealthy", "BuildOnly").annotations({
  identifier: "AgentStatus"
})
export type AgentStatus = typeof AgentStatus.Type

export const AgentInputType = Schema.Literal("text", "json").annotations({ identifier: "AgentInputType" })

/** An agent as answered (AX `types/agent.py`): every field present, `null` where none. */
export class Agent extends Schema.Class<Agent>("Agent")({
  id: Id,
  name: Schema.String,
  description: Schema.String,
  acp_type: AcpType,
  status: AgentStatus,
  status_reason: Nullable(Schema.String),
  agent_input_type: Nullable(AgentInputType),
  registration_metadata: Nullable(JsonObject),
  production_deployment_id: Nullable(Schema.String),
  registered_at: Nullable(DateTimeString),
  created_at: DateTimeString,
  updated_at: DateTimeString
}) {}

/** An agent's name: lower-case letters, digits and dashes (the server's `^[a-z0-9-]+$`). */
export const AgentName = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9-]+$/, { message: () => "An agent name is lower-case letters, digits and dashes" }),
  Schema.maxLength(200)
)

/** `POST /agents/register`: what an agent's ACP server sends when it starts (upsert by name or `agent_id`). */
export class RegisterAgent extends Schema.Class<RegisterAgent>("RegisterAgent")({
  name: AgentName,
  description: Schema.String,
  /** Where the agent's ACP server listens: the platform posts JSON-RPC to `{acp_url}/api`. */
  acp_url: Schema.String.pipe(
    Schema.pattern(/^https?:\/\/[^\s]+$/, { message: () => "An ACP URL is an http(s) URL" }),
    Schema.maxLength(2000)
  ),
  acp_type: AcpType,
  agent_id: Optional(Id),
  principal_context: Optional(Schema.Unknown),
  registration_metadata: Optional(JsonObject),
  agent_input_type: Optional(AgentInputType)
}) {}

/**
 * The answer to a registration: the agent, and the key the platform sends as `x-agent-api-key`
 * on every call to the agent (a new one per registration, answered once).
 */
export class RegisteredAgent extends Schema.Class<RegisteredAgent>("RegisteredAgent")({
  ...Agent.fields,
  agent_api_key: Schema.String
}) {}

/** `POST /agents/register-build`: an agent known before it runs (status `BuildOnly`). */
export class RegisterAgentBuild extends Schema.Class<RegisterAgentBuild>("RegisterAgentBuild")({
  name: AgentName,
  description: Schema.String,
  agent_input_type: Optional(AgentInputType),
  registration_metadata: Optional(JsonObject)
}) {}

/**
 * `GET /tasks/{task_id}/query/{query_name}`: what the task's agent answered to the query
 * (agentex's `{task_id, query, result}`; docs/agent-tasks.md "Queries").
 */
export class TaskQueryResponse extends Schema.Class<TaskQueryResponse>("TaskQueryResponse")({
  task_id: Schema.String,
  query: Schema.String,
  result: Schema.Unknown
}) {}

/** The answer of the agentex deletes (`DeleteResponse`). */
export class AgentTasksDeleteResponse extends Schema.Class<AgentTasksDeleteResponse>("DeleteResponse")({
  id: Id,
  message: Schema.String
}) {}

const PageLimit = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1000))
const PageNumber = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1_000_000))
const OrderDirection = Schema.Literal("asc", "desc")

/** The page of an agentex list: `limit` (default 50), `page_number` (from 1), `order_direction` (default `desc`). */
export const AgentexPage = <const Order extends string>(orderBy: readonly [Order, ...Array<Order>]) => ({
  limit: Schema.optionalWith(PageLimit, { exact: true }),
  page_number: Schema.optionalWith(PageNumber, { exact: true }),
  order_by: Schema.optionalWith(Schema.Literal(...orderBy), { exact: true }),
  order_direction: Schema.optionalWith(OrderDirection, { exact: true })
})

/** `GET /agents`: a page of the account's agents (a bare array); `task_id` narrows to the task's agent. */
export const AgentsListQuery = Schema.Struct({
  ...AgentexPage(["created_at", "updated_at", "name"]),
  task_id: Schema.optionalWith(Id, { exact: true })
})

// ---------------------------------------------------------------------------------------------
// Tasks

/** A task's status (AX `types/task.py`); `RUNNING` and `INTERRUPTED` are the only non-final ones. */
export const TaskStatus = Schema.Literal(
  "CANCELED",
  "COMPLETED",
  "FAILED",
  "RUNNING",
  "INTERRUPTED",
  "TERMINATED",
  "TIMED_OUT",
  "DELETED"
).annotations({ identifier: "TaskStatus" })
export type TaskStatus = typeof TaskStatus.Type

const taskFields = {
  id: Id,
  name: Nullable(Schema.String),
  status: TaskStatus,
  status_reason: Nullable(Schema.String),
  task_metadata: Nullable(JsonObject),
  created_at: DateTimeString,
  updated_at: DateTimeString,
  cleaned_at: Nullable(DateTimeString)
}

/** A task as answered (AX `types/task.py`). */
export class Task extends Schema.Class<Task>("Task")({
  ...taskFields,
  params: Nullable(JsonObject)
}) {}

/** `GET /tasks/{id}`: the task, with its agents when `relationships=agents` asks for them. */
export class TaskWithAgents extends Schema.Class<TaskWithAgents>("TaskRetrieveResponse")({
  ...Task.fields,
  agents: Schema.optionalWith(Schema.Array(Agent), { exact: true })
}) {}

/** An item of `GET /tasks`: the task without `params` (the SDK's lean list shape). */
export class TaskListItem extends Schema.Class<TaskListItem>("TaskListResponseItem")({
  ...taskFields,
  agents: Schema.optionalWith(Schema.Array(Agent), { exact: true })
}) {}

/** `relationships`: what a task read adds (`agents`). */
const Relationships = Schema.optionalWith(QueryArray(Schema.Literal("agents")), { exact: true })

export const TaskReadQuery = Schema.Struct({ relationships: Relationships })

/** A JSON object given as query text (`task_metadata={"team":"a"}`). */
const JsonObjectQuery = Schema.parseJson(JsonObject)

/** `GET /tasks`: a page of the account's tasks (a bare array). */
export const TasksListQuery = Schema.Struct({
  ...AgentexPage(["created_at", "updated_at", "name", "status"]),
  agent_id: Schema.optionalWith(Id, { exact: true }),
  agent_name: Schema.optionalWith(Schema.String, { exact: true }),
  status: Schema.optionalWith(TaskStatus, { exact: true }),
  /** Tasks whose metadata contains this object (JSON; every member equal, nested objects alike). */
  task_metadata: Schema.optionalWith(JsonObjectQuery, { exact: true }),
  relationships: Relationships
})

/** `PUT /tasks/{id}`: `merge_params` merged into the task's params (member by member); `task_metadata` replaced. */
export class UpdateTask extends Schema.Class<UpdateTask>("UpdateTask")({
  merge_params: Optional(JsonObject),
  task_metadata: Optional(JsonObject)
}) {}

/** The body of a status move (`POST /tasks/{id}/cancel`, …). */
export class TaskStatusChange extends Schema.Class<TaskStatusChange>("TaskStatusChange")({
  reason: Optional(Schema.String)
}) {}

// ---------------------------------------------------------------------------------------------
// Messages

export const MessageAuthor = Schema.Literal("user", "agent").annotations({ identifier: "MessageAuthor" })
export const MessageStyle = Schema.Literal("static", "active").annotations({ identifier: "MessageStyle" })
export const TextFormat = Schema.Literal("markdown", "plain", "code").annotations({ identifier: "TextFormat" })

const given = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/**
 * The content of a message (AX `types/task_message_content.py`), told apart by `type`, with
 * every field present as answered (`TaskMessageContentInput` is what a request may leave out:
 * `type` of text and reasoning content, `style` (default `static`), `format` (default `plain`),
 * `attachments`, `is_error`, reasoning `content`).
 */
const contentShapes = <Full extends boolean>(full: Full) => {
  const optional = <S extends Schema.Schema.All>(schema: S) => (full ? schema : given(schema)) as Full extends true ? S : ReturnType<typeof given<S>>
  const tag = <const T extends string, const Omissible extends boolean>(value: T, omissible: Omissible) =>
    (full || !omissible ? Schema.Literal(value) : given(Schema.Literal(value))) as Full extends true ? Schema.Literal<[T]>
      : Omissible extends true ? ReturnType<typeof given<Schema.Literal<[T]>>>
      : Schema.Literal<[T]>
  const suffix = full ? "" : "Input"
  return [
    Schema.Struct({
      type: tag("text", true),
      author: MessageAuthor,
      content: Schema.String,
      attachments: optional(Schema.NullOr(Schema.Array(Attachment))),
      format: optional(TextFormat),
      style: optional(MessageStyle)
    }).annotations({ identifier: `TaskMessageTextContent${suffix}` }),
    Schema.Struct({ type: tag("data", false), author: MessageAuthor, data: JsonObject, style: optional(MessageStyle) })
      .annotations({ identifier: `TaskMessageDataContent${suffix}` }),
    Schema.Struct({
      type: tag("tool_request", false),
      author: MessageAuthor,
      name: Schema.String,
      tool_call_id: Schema.String,
      arguments: JsonObject,
      style: optional(MessageStyle)
    }).annotations({ identifier: `TaskMessageToolRequestContent${suffix}` }),
    Schema.Struct({
      type: tag("tool_response", false),
      author: MessageAuthor,
      name: Schema.String,
      tool_call_id: Schema.String,
      content: Schema.Unknown,
      is_error: optional(Schema.NullOr(Schema.Boolean)),
      style: optional(MessageStyle)
    }).annotations({ identifier: `TaskMessageToolResponseContent${suffix}` }),
    Schema.Struct({
      type: tag("reasoning", true),
      author: MessageAuthor,
      summary: Schema.Array(Schema.String),
      content: optional(Schema.NullOr(Schema.Array(Schema.String))),
      style: optional(MessageStyle)
    }).annotations({ identifier: `TaskMessageReasoningContent${suffix}` })
  ] as const
}

export const TaskMessageContent = Schema.Union(...contentShapes(true)).annotations({ identifier: "TaskMessageContent" })
export type TaskMessageContent = typeof TaskMessageContent.Type

export const TaskMessageContentInput = Schema.Union(...contentShapes(false)).annotations({ identifier: "TaskMessageContentInput" })
export type TaskMessageContentInput = typeof TaskMessageContentInput.Type

/** A content as given, with the defaults filled in: as it is stored and answered. */
export const completeContent = (content: TaskMessageContentInput): TaskMessageContent => {
  const style = content.style ?? "static"
  if ("summary" in content) return { ...content, type: "reasoning", content: content.content ?? null, style }
  switch (content.type) {
    case "data":
    case "tool_request":
      return { ...content, style }
    case "tool_response":
      return { ...content, is_error: content.is_error ?? null, style }
    default:
      // text, its `type` given or not
      return { ...content, type: "text", attachments: content.attachments ?? null, format: content.format ?? "plain", style }
  }
}

export const StreamingStatus = Schema.Literal("IN_PROGRESS", "DONE").annotations({ identifier: "StreamingStatus" })
export type StreamingStatus = typeof StreamingStatus.Type

/** A message of a task (AX `types/task_message.py`). */
export class TaskMessage extends Schema.Class<TaskMessage>("TaskMessage")({
  id: Id,
  task_id: Id,
  content: TaskMessageContent,
  streaming_status: Nullable(StreamingStatus),
  created_at: DateTimeString,
  updated_at: DateTimeString
}) {}

/** `POST /messages`. */
export class CreateMessage extends Schema.Class<CreateMessage>("CreateMessage")({
  task_id: NonEmptyString,
  content: TaskMessageContentInput,
  created_at: Optional(DateTimeString),
  streaming_status: Optional(StreamingStatus)
}) {}

/** `PUT /messages/{id}`. */
export class UpdateMessage extends Schema.Class<UpdateMessage>("UpdateMessage")({
  task_id: NonEmptyString,
  content: TaskMessageContentInput,
  streaming_status: Optional(StreamingStatus)
}) {}

/** `POST /messages/batch`. */
export class CreateMessages extends Schema.Class<CreateMessages>("CreateMessages")({
  task_id: NonEmptyString,
  contents: Schema.Array(TaskMessageContentInput).pipe(Schema.maxItems(1000)),
  created_at: Optional(DateTimeString)
}) {}

/** `PUT /messages/batch`: new content per message id. */
export class UpdateMessages extends Schema.Class<UpdateMessages>("UpdateMessages")({
  task_id: NonEmptyString,
  updates: Schema.Record({ key: Id, value: TaskMessageContentInput })
}) {}

/**
 * A filter of a message list (`TaskMessageEntityFilter`): a message matches when every member of
 * `content` equals the message content's (nested objects alike) and `streaming_status` is its.
 * Inclusive filters are OR-ed, exclusive ones (`exclude: true`) OR-ed and negated, the two groups AND-ed.
 */
export const MessageFilter = Schema.Struct({
  content: Schema.optionalWith(JsonObject, { exact: true }),
  streaming_status: Schema.optionalWith(StreamingStatus, { exact: true }),
  exclude: Schema.optionalWith(Schema.Boolean, { exact: true })
}).annotations({ identifier: "TaskMessageEntityFilter" })
export type MessageFilter = typeof MessageFilter.Type

const MessageFilters = Schema.optionalWith(Schema.parseJson(Schema.Array(MessageFilter).pipe(Schema.maxItems(100))), {
  exact: true
})

/** `GET /messages`: a page of a task's messages (a bare array), newest first by default. */
export const MessagesListQuery = Schema.Struct({
  ...AgentexPage(["created_at", "updated_at"]),
  task_id: NonEmptyString,
  filters: MessageFilters
})

/** `GET /messages/paginated`: a task's messages by cursor, `older` (default) or `newer` than it. */
export const MessagesCursorQuery = Schema.Struct({
  task_id: NonEmptyString,
  cursor: Schema.optionalWith(Schema.String, { exact: true }),
  direction: Schema.optionalWith(Schema.Literal("older", "newer"), { exact: true }),
  filters: MessageFilters,
  limit: Schema.optionalWith(PageLimit, { exact: true })
})

export class MessagesCursorPage extends Schema.Class<MessagesCursorPage>("MessageListPaginatedResponse")({
  data: Schema.Array(TaskMessage),
  has_more: Schema.Boolean,
  next_cursor: Nullable(Schema.String)
}) {}

// ---------------------------------------------------------------------------------------------
// Message updates: what an agent streams while it answers (AX `types/task_message_update.py`)

const deltaOf = <const Tag extends string, Fields extends Schema.Struct.Fields>(tag: Tag, fields: Fields) =>
  Schema.Struct({ type: Schema.Literal(tag), ...fields })
const text = Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true })

/** A piece of a message being written. */
export const TaskMessageDelta = Schema.Union(
  deltaOf("text", { text_delta: text }),
  deltaOf("data", { data_delta: text }),
  deltaOf("tool_request", { name: Schema.String, tool_call_id: Schema.String, arguments_delta: text }),
  deltaOf("tool_response", { name: Schema.String, tool_call_id: Schema.String, content_delta: text }),
  deltaOf("reasoning_summary", { summary_index: Schema.Int, summary_delta: text }),
  deltaOf("reasoning_content", { content_index: Schema.Int, content_delta: text })
).annotations({ identifier: "TaskMessageDelta" })
export type TaskMessageDelta = typeof TaskMessageDelta.Type

const updateShapes = <C extends Schema.Schema.Any>(content: C, suffix: string) => {
  const fields = {
    index: Schema.optionalWith(Schema.NullOr(Schema.Int), { exact: true }),
    parent_task_message: Schema.optionalWith(Schema.NullOr(TaskMessage), { exact: true })
  }
  return Schema.Union(
    Schema.Struct({ type: Schema.Literal("start"), content, ...fields }).annotations({ identifier: `StreamTaskMessageStart${suffix}` }),
    Schema.Struct({ type: Schema.Literal("delta"), delta: Schema.optionalWith(Schema.NullOr(TaskMessageDelta), { exact: true }), ...fields })
      .annotations({ identifier: `StreamTaskMessageDelta${suffix}` }),
    Schema.Struct({ type: Schema.Literal("full"), content, ...fields }).annotations({ identifier: `StreamTaskMessageFull${suffix}` }),
    Schema.Struct({ type: Schema.Literal("done"), ...fields }).annotations({ identifier: `StreamTaskMessageDone${suffix}` })
  )
}

/** One update of a message being streamed: `start`, `delta`s, then `done`; or one `full`. */
export const TaskMessageUpdate = updateShapes(TaskMessageContent, "").annotations({ identifier: "TaskMessageUpdate" })
export type TaskMessageUpdate = typeof TaskMessageUpdate.Type

/** An update as an agent sends it (its contents may leave out what has a default). */
export const TaskMessageUpdateInput = updateShapes(TaskMessageContentInput, "Input")
export type TaskMessageUpdateInput = typeof TaskMessageUpdateInput.Type

// ---------------------------------------------------------------------------------------------
// The live stream of a task (`GET /tasks/{id}/stream`, server-sent events)

/** The first frame of a task's stream. */
export const TaskStreamConnected = Schema.Struct({ type: Schema.Literal("connected"), taskId: Schema.String })
  .annotations({ identifier: "TaskStreamConnected" })
/** The task as it is after a change (its status, params, metadata). */
export const TaskStreamTaskUpdated = Schema.Struct({
  type: Schema.Literal("task_updated"),
  task: Schema.optionalWith(Schema.NullOr(Task), { exact: true })
}).annotations({ identifier: "TaskStreamTaskUpdated" })
export const TaskStreamError = Schema.Struct({ type: Schema.Literal("error"), message: Schema.String })
  .annotations({ identifier: "TaskStreamError" })

/** A frame of a task's stream: a message update, `connected`, `task_updated` or `error`. */
export const TaskStreamEvent = Schema.Union(TaskMessageUpdate, TaskStreamConnected, TaskStreamTaskUpdated, TaskStreamError)
  .annotations({ identifier: "TaskStreamEvent" })
export type TaskStreamEvent = typeof TaskStreamEvent.Type

/** `GET /tasks/{id}/stream`: replay from after frame `last_event_id` (as the `Last-Event-ID` header). */
export const TaskStreamQuery = Schema.Struct({
  last_event_id: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative()), { exact: true })
})
export const TaskStreamHeaders = Schema.Struct({
  "last-event-id": Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative()), { exact: true })
})

// ---------------------------------------------------------------------------------------------
// States

/** An agent's state for a task (one per task and agent). */
export class TaskState extends Schema.Class<TaskState>("State")({
  id: Id,
  task_id: Id,
  agent_id: Id,
  state: JsonObject,
  created_at: DateTimeString,
  updated_at: DateTimeString
}) {}

export class CreateTaskState extends Schema.Class<CreateTaskState>("CreateState")({
  task_id: NonEmptyString,
  agent_id: NonEmptyString,
  state: JsonObject
}) {}

export class UpdateTaskState extends Schema.Class<UpdateTaskState>("UpdateState")({
  state: JsonObject
}) {}

export const StatesListQuery = Schema.Struct({
  ...AgentexPage(["created_at", "updated_at"]),
  task_id: Schema.optionalWith(Id, { exact: true }),
  agent_id: Schema.optionalWith(Id, { exact: true })
})

// ---------------------------------------------------------------------------------------------
// RPC

export const AgentRpcMethod = Schema.Literal("task/create", "event/send", "message/send", "task/cancel", "task/interrupt")
  .annotations({ identifier: "AgentRPCMethod" })
export type AgentRpcMethod = typeof AgentRpcMethod.Type

const RpcId = Schema.Union(Schema.String, Schema.Number, Schema.Null)

/** `POST /agents/{id}/rpc`: a JSON-RPC 2.0 request to the agent. */
export class AgentRpcRequest extends Schema.Class<AgentRpcRequest>("AgentRpcRequest")({
  jsonrpc: Schema.optionalWith(Schema.Literal("2.0"), { exact: true }),
  id: Schema.optionalWith(RpcId, { exact: true }),
  method: AgentRpcMethod,
  params: JsonObject
}) {}

/** The parameters of each method, checked by the server (a mismatch answers error -32602). */
export const TaskCreateParams = Schema.Struct({
  name: Optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500))),
  params: Optional(JsonObject),
  task_metadata: Optional(JsonObject)
})
const TaskRef = { task_id: Optional(Schema.String), task_name: Optional(Schema.String) }
export const EventSendParams = Schema.Struct({ ...TaskRef, content: Optional(EventContentInput) })
export const MessageSendParams = Schema.Struct({
  ...TaskRef,
  content: TaskMessageContentInput,
  stream: Optional(Schema.Boolean),
  task_params: Optional(JsonObject)
})
export const TaskMoveParams = Schema.Struct(TaskRef)

/** A JSON-RPC error: `-32602` parameters the method does not take, `-32603` anything else. */
export class AgentRpcError extends Schema.Class<AgentRpcError>("AgentRpcError")({
  code: Schema.Int,
  message: Schema.String,
  data: Schema.NullOr(Schema.Unknown)
}) {}

/**
 * What a method answers: the agent's new messages, the task, the event, or nothing; a line of a
 * streamed `message/send` answers one update.
 */
export const AgentRpcResult = Schema.Union(Schema.Array(TaskMessage), Task, TaskEvent, TaskMessageUpdate, Schema.Null)

/** The answer of the RPC endpoint: always HTTP 200, with `result`, or `error` and `result: null`. */
export class AgentRpcResponse extends Schema.Class<AgentRpcResponse>("AgentRpcResponse")({
  jsonrpc: Schema.Literal("2.0"),
  id: RpcId,
  result: AgentRpcResult,
  error: Schema.NullOr(AgentRpcError)
}) {}

// ---------------------------------------------------------------------------------------------
// Task tracker

/**
 * An agent's progress through a task's events (agentex's tracker): one per task, made with it;
 * `last_processed_event_id` a cursor into the task's events, `status` free text.
 */
export class AgentTaskTracker extends Schema.Class<AgentTaskTracker>("AgentTaskTracker")({
  id: Id,
  agent_id: Id,
  task_id: Id,
  created_at: DateTimeString,
  updated_at: DateTimeString,
  last_processed_event_id: Schema.NullOr(Schema.String),
  status: Schema.NullOr(Schema.String),
  status_reason: Schema.NullOr(Schema.String)
}) {}

/**
 * `PUT /tracker/{id}`: `status` and `status_reason` are always written (left out: `null`);
 * `last_processed_event_id` moves the cursor when given (not `null`), never backwards.
 */
export class UpdateAgentTaskTracker extends Schema.Class<UpdateAgentTaskTracker>("UpdateAgentTaskTracker")({
  last_processed_event_id: Optional(Schema.String),
  status: Optional(Schema.String),
  status_reason: Optional(Schema.String)
}) {}

/** `GET /tracker`: a page of the caller's trackers as a bare array; `agent_id`, `task_id` filter. */
export const TrackerListQuery = Schema.Struct({
  ...AgentexPage(["created_at", "updated_at"]),
  agent_id: Schema.optionalWith(Id, { exact: true }),
  task_id: Schema.optionalWith(Id, { exact: true })
})
