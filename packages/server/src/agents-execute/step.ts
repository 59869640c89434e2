/**
 * One agent step as a chat completion (docs/models.md "Agents: one step"). The tools are described
 * in the system prompt with a reply protocol (a JSON object `{"tool", "arguments"}` asks for a
 * tool, any other reply is the answer), so any chat model of the gateway can run a step; the
 * conversation's tool requests and tool outputs are written back in the same words. The built-in
 * model, which cannot choose, asks for the tool whose name the last user message says, else echoes.
 */
import type { AgentMessage, AgentModel, AgentTool, ExecuteAgentResponse } from "@platform-kit/schema"
import type { Message } from "../models/inference/Provider.js"

/** The context window of each model name the SDK offers, in tokens (the providers' published figures). */
export const contextWindows: Readonly<Record<AgentModel, number>> = {
  "gpt-4": 8_192,
  "gpt-4-0613": 8_192,
  "gpt-4-32k": 32_768,
  "gpt-4-32k-0613": 32_768,
  "gpt-3.5-turbo": 4_096,
  "gpt-3.5-turbo-0613": 4_096,
  "gpt-3.5-turbo-16k": 16_384,
  "gpt-3.5-turbo-16k-0613": 16_384,
  "claude-instant-1": 100_000,
  "claude-instant-1.1": 100_000,
  "claude-2": 100_000,
  "claude-2.0": 100_000
}

/** The instructions a request without its own gets. */
export const defaultInstructions =
  "You are a helpful agent. Answer the user's request; when one of your tools would help, ask for it and wait for its result."

/** The system prompt: the instructions, then the tools and how to ask for one. */
export const systemPrompt = (instructions: string, tools: ReadonlyArray<AgentTool>) =>
  tools.length === 0 ? instructions : [
    instructions,
    "",
    "Tools you may ask for:",
    ...tools.map((tool) => {
      const properties = Object.entries(tool.arguments.properties ?? {})
      const args = properties.length === 0
        ? "no arguments"
        : properties.map(([name, property]) => `${name} (${property.type}): ${property.description}`).join("; ")
      return `- ${tool.name}: ${tool.description} Arguments: ${args}.`
    }),
    "",
    "To ask for a tool, reply with only a JSON object: {\"tool\": \"<tool name>\", \"arguments\": {<argument>: <value>}}.",
    "Otherwise reply with your answer as plain text."
  ].join("\n")

/** A user message's text: its content, or its text parts joined by newlines (images are not read). */
const textOf = (content: Extract<AgentMessage, { content: unknown }>["content"]): string =>
  typeof content === "string" || content === undefined
    ? content ?? ""
    : content.flatMap((part) => ("text" in part ? [part.text] : [])).join("\n")

/** A tool request as the protocol writes it. */
const requestText = (request: { readonly name: string; readonly arguments: string }) => {
  let args: unknown = request.arguments
  try {
    args = JSON.parse(request.arguments)
  } catch {
    // kept as the string it is
  }
  return JSON.stringify({ tool: request.name, arguments: args })
}

/** A message of the request as a chat message: tool outputs are the user's turn, the agent's the assistant's. */
export const chatMessage = (message: AgentMessage): Message => {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content }
    case "tool":
      return { role: "user", content: `Tool ${message.name} returned:\n${message.content}` }
    case "agent":
      return {
        role: "assistant",
        content: message.tool_request != null ? requestText(message.tool_request) : message.content ?? ""
      }
    default:
      return { role: "user", content: textOf(message.content) }
  }
}

/** The messages the step sees: the last `k` when the memory strategy says so. */
export const remembered = (messages: ReadonlyArray<AgentMessage>, k: number | undefined) =>
  k === undefined ? messages : messages.slice(-k)

type Answer = ConstructorParameters<typeof ExecuteAgentResponse>[0]

export const contentAnswer = (content: string): Answer => ({ action: "content", context: { content, tool_request: null } })

export const toolAnswer = (name: string, args: string): Answer => ({
  action: "tool_request",
  context: { content: null, tool_request: { name, arguments: args } }
})

/** A model's reply read by the protocol: a JSON object naming one of the tools asks for it; anything else is the answer. */
export const answerOf = (reply: string, tools: ReadonlyArray<AgentTool>): Answer => {
  const bare = reply.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, "$1")
  try {
    const parsed: unknown = JSON.parse(bare)
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      const { arguments: args, tool } = parsed as { tool?: unknown; arguments?: unknown }
      if (typeof tool === "string" && tools.some((candidate) => candidate.name === tool)) {
        return toolAnswer(tool, typeof args === "string" ? args : JSON.stringify(args ?? {}))
      }
    }
  } catch {
    // not JSON: the answer
  }
  return contentAnswer(reply)
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * The built-in model's choice: when the conversation ends with a user message, the tool whose name
 * it says first (a whole word, any case; the longer name on a tie), its arguments the defaults its
 * properties give. None: the built-in model answers.
 */
export const builtinToolChoice = (messages: ReadonlyArray<AgentMessage>, tools: ReadonlyArray<AgentTool>): Answer | undefined => {
  const last = messages.at(-1)
  if (last === undefined || (last.role !== undefined && last.role !== "user")) return undefined
  const text = textOf(last.content)
  const found = tools.flatMap((tool) => {
    const at = text.search(new RegExp(`(?<![\\p{L}\\p{N}_])${escaped(tool.name)}(?![\\p{L}\\p{N}_])`, "iu"))
    return at < 0 ? [] : [{ tool, at }]
  }).sort((a, b) => a.at - b.at || b.tool.name.length - a.tool.name.length)[0]
  if (found === undefined) return undefined
  const defaults = Object.entries(found.tool.arguments.properties ?? {}).flatMap(([name, property]) =>
    property.default === undefined ? [] : [[name, property.default] as const])
  return toolAnswer(found.tool.name, JSON.stringify(Object.fromEntries(defaults)))
}
