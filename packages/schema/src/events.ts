/**
 * Agent task events (docs/events.md). An event belongs to a task of an agent; its
 * `sequence_id` counts up by one within the task.
 */
import { Schema } from "effect"
import { DateTimeString, Id, NonEmptyString, Nullable, Optional } from "./common.js"

export class Attachment extends Schema.Class<Attachment>("Attachment")({
  file_id: Id,
  name: Schema.String,
  size: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)),
  type: Schema.String
}) {}

/** Text content as stored and answered: every field present, `null` where none was given. */
export const TextContent = Schema.Struct({
  type: Schema.Literal("text"),
  content: Schema.String,
  author: Nullable(Schema.String),
  style: Nullable(Schema.String),
  format: Nullable(Schema.String),
  attachments: Schema.Array(Attachment)
}).annotations({ identifier: "TextContent" })
export type TextContent = typeof TextContent.Type

/** Text content as appended: `type` and `content` are required, the rest optional. */
export const TextContentInput = Schema.Struct({
  type: Schema.Literal("text"),
  content: Schema.String,
  author: Optional(Schema.String),
  style: Optional(Schema.String),
  format: Optional(Schema.String),
  attachments: Optional(Schema.Array(Attachment))
}).annotations({ identifier: "TextContentInput" })

/**
 * The spec names the other four variants but does not show their fields ("not shown"): each is an
 * open JSON object told apart by its `type` tag, kept exactly as given.
 */
const openContent = <const Tag extends string>(tag: Tag, identifier: string) =>
  Schema.Struct({ type: Schema.Literal(tag) }, Schema.Record({ key: Schema.String, value: Schema.Unknown })).annotations({
    identifier
  })

export const ReasoningContent = openContent("reasoning", "ReasoningContent")
export const DataContent = openContent("data", "DataContent")
export const ToolRequestContent = openContent("tool_request", "ToolRequestContent")
export const ToolResponseContent = openContent("tool_response", "ToolResponseContent")

export const EventContent = Schema.Union(
  TextContent,
  ReasoningContent,
  DataContent,
  ToolRequestContent,
  ToolResponseContent
)
export type EventContent = typeof EventContent.Type

export const EventContentInput = Schema.Union(
  TextContentInput,
  ReasoningContent,
  DataContent,
  ToolRequestContent,
  ToolResponseContent
)

/** An event, with exactly the platform's fields (docs/events.md). */
export class TaskEvent extends Schema.Class<TaskEvent>("Event")({
  id: Id,
  sequence_id: Schema.Int,
  task_id: Id,
  agent_id: Id,
  created_at: DateTimeString,
  content: EventContent
}) {}

/** `POST /events`. */
export class AppendEvent extends Schema.Class<AppendEvent>("AppendEvent")({
  task_id: NonEmptyString,
  agent_id: NonEmptyString,
  content: EventContentInput
}) {}

const EventsLimit = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1000))

/** `GET /events`: one task's events of one agent, after a position, in `sequence_id` order. */
export const EventsQuery = Schema.Struct({
  task_id: NonEmptyString,
  agent_id: NonEmptyString,
  last_processed_event_id: Schema.optionalWith(Id, { exact: true }),
  limit: Schema.optionalWith(EventsLimit, { exact: true })
})
