/**
 * One stateless step of an agent (the real v4 SDK's `agents.execute`; docs/models.md "Agents:
 * one step"): the conversation so far and the tools it may ask for in, either a tool request or
 * the answer out. The caller keeps the history and runs the tools.
 */
import { Schema } from "effect"
import { Nullable, Optional } from "./common.js"
import { ModelParameters } from "./inference.js"

/** The models the SDK names: each runs as the account's model of that name, else as the built-in model. */
export const AgentModel = Schema.Literal(
  "gpt-4",
  "gpt-4-0613",
  "gpt-4-32k",
  "gpt-4-32k-0613",
  "gpt-3.5-turbo",
  "gpt-3.5-turbo-0613",
  "gpt-3.5-turbo-16k",
  "gpt-3.5-turbo-16k-0613",
  "claude-instant-1",
  "claude-instant-1.1",
  "claude-2",
  "claude-2.0"
)
export type AgentModel = typeof AgentModel.Type

const TextPart = Schema.Struct({ type: Optional(Schema.Literal("text")), text: Schema.String })
const ImageUrlPart = Schema.Struct({
  type: Optional(Schema.Literal("image_url")),
  image_url: Schema.Struct({ url: Schema.String, detail: Optional(Schema.Literal("low", "high", "auto")) })
})
const ImageDataPart = Schema.Struct({
  type: Optional(Schema.Literal("image_data")),
  image_data: Schema.Struct({
    data: Schema.String,
    media_type: Schema.String,
    detail: Optional(Schema.Literal("low", "high", "auto")),
    type: Optional(Schema.Literal("base64"))
  })
})

/** A call of a tool: its name and its arguments as a JSON-encoded string. */
export const ToolRequest = Schema.Struct({ arguments: Schema.String, name: Schema.String }).annotations({ identifier: "ToolRequest" })

export const AgentUserMessage = Schema.Struct({
  role: Optional(Schema.Literal("user")),
  content: Schema.Union(Schema.String, Schema.Array(Schema.Union(TextPart, ImageUrlPart, ImageDataPart)))
}).annotations({ identifier: "AgentUserMessage" })

/** A tool's output, sent back by the caller after running it. */
export const AgentToolMessage = Schema.Struct({
  role: Schema.Literal("tool"),
  content: Schema.String,
  name: Schema.String
}).annotations({ identifier: "AgentToolMessage" })

/** What the agent said before: an answer, or a tool request. */
export const AgentAgentMessage = Schema.Struct({
  role: Schema.Literal("agent"),
  content: Optional(Schema.String),
  tool_request: Optional(ToolRequest)
}).annotations({ identifier: "AgentAgentMessage" })

export const AgentSystemMessage = Schema.Struct({
  role: Schema.Literal("system"),
  content: Schema.String
}).annotations({ identifier: "AgentSystemMessage" })

/** A message of the conversation, by `role` (none: a user's). */
export const AgentMessage = Schema.Union(AgentToolMessage, AgentAgentMessage, AgentSystemMessage, AgentUserMessage)
export type AgentMessage = typeof AgentMessage.Type

export const ToolArgumentProperty = Schema.Struct({
  description: Schema.String,
  type: Schema.Literal("string", "number", "integer", "boolean", "object", "array", "null"),
  default: Optional(Schema.String),
  examples: Optional(Schema.Array(Schema.String))
})

/** A tool the agent may ask for: its name (unique in the call), what it does, its arguments. */
export const AgentTool = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1)),
  description: Schema.String,
  arguments: Schema.Struct({
    type: Schema.Literal("object"),
    properties: Optional(Schema.Record({ key: Schema.String, value: ToolArgumentProperty }))
  })
}).annotations({ identifier: "AgentTool" })
export type AgentTool = typeof AgentTool.Type

export const AgentExecuteRequest = Schema.Struct({
  messages: Schema.Array(AgentMessage),
  model: AgentModel,
  tools: Schema.Array(AgentTool),
  instructions: Optional(Schema.String),
  memory_strategy: Optional(Schema.Struct({
    name: Optional(Schema.Literal("last_k")),
    params: Schema.Struct({ k: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)) })
  })),
  model_parameters: Optional(ModelParameters.pipe(
    Schema.filter((parameters) =>
      parameters.stop_sequences === undefined || parameters.stop_sequences.length <= 4 || "At most 4 stop sequences")
  ))
}).annotations({ identifier: "AgentExecuteRequest" })

/** What the step did: asked for a tool (`tool_request`), or answered (`content`); the other key is null. */
export class ExecuteAgentResponse extends Schema.Class<ExecuteAgentResponse>("ExecuteAgentResponse")({
  action: Schema.Literal("tool_request", "content"),
  context: Schema.Struct({
    content: Nullable(Schema.String),
    tool_request: Nullable(ToolRequest)
  })
}) {}
