/**
 * OpenAI's bodies read as the kit's providers take them (messages of text, generation options),
 * and their generations written back as OpenAI answers (docs/inference-v5.md): chat completions
 * and their chunks, completions, responses and their events. Pure functions: the handlers give
 * the ids and the time.
 */
import type {
  OpenAiChatCompletion,
  OpenAiChatCompletionChunk,
  OpenAiChatCompletionRequest,
  OpenAiCompletion,
  OpenAiCompletionRequest,
  OpenAiResponse,
  OpenAiResponseRequest
} from "@platform-kit/schema"
import type { Generation, GenerationEvent, GenerationOptions, Message, TokenLogprob } from "../inference/Provider.js"

/** What every answer is made with: its id, when (epoch seconds), and the `model` string the caller sent. */
export interface Stamp {
  readonly id: string
  readonly created: number
  readonly model: string
}

/** A message's text: its content, or its parts' `text` joined by newlines (images, audio and files are not read). */
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.flatMap((part) => (typeof part?.text === "string" ? [part.text as string] : [])).join("\n")
    : ""

/** An OpenAI role as the providers take it: `system`/`developer` instructions, `assistant`, else the user's (`tool` and `function` results included). */
const roleOf = (role: unknown): Message["role"] =>
  role === "system" || role === "developer" ? "system" : role === "assistant" ? "assistant" : "user"

export const chatMessages = (messages: ReadonlyArray<Readonly<Record<string, unknown>>>): Array<Message> =>
  messages.map((message) => ({ role: roleOf(message.role), content: textOf(message.content) }))

const stopOf = (stop: string | ReadonlyArray<string> | undefined) => (typeof stop === "string" ? [stop] : stop)

export const chatOptions = (body: OpenAiChatCompletionRequest): GenerationOptions => ({
  max_tokens: body.max_completion_tokens ?? body.max_tokens,
  temperature: body.temperature,
  top_p: body.top_p,
  frequency_penalty: body.frequency_penalty,
  presence_penalty: body.presence_penalty,
  stop: stopOf(body.stop),
  top_k: body.top_k,
  logprobs: body.logprobs,
  top_logprobs: body.top_logprobs
})

export const completionOptions = (body: OpenAiCompletionRequest): GenerationOptions => ({
  max_tokens: body.max_tokens,
  temperature: body.temperature,
  top_p: body.top_p,
  frequency_penalty: body.frequency_penalty,
  presence_penalty: body.presence_penalty,
  stop: stopOf(body.stop),
  logprobs: body.logprobs === undefined ? undefined : true,
  top_logprobs: body.logprobs
})

/** A response's conversation: `instructions` first, then the message items of `input` (other items are not read). */
export const responseMessages = (body: OpenAiResponseRequest): Array<Message> => {
  const input = typeof body.input === "string"
    ? [{ role: "user" as const, content: body.input }]
    : body.input
      .filter((item) => item.type === "message" || (item.type === undefined && "role" in item))
      .map((item) => ({ role: roleOf(item.role), content: textOf(item.content) }))
  return body.instructions === undefined ? input : [{ role: "system", content: body.instructions }, ...input]
}

export const responseOptions = (body: OpenAiResponseRequest): GenerationOptions => ({
  max_tokens: body.max_output_tokens,
  temperature: body.temperature,
  top_p: body.top_p
})

type ChatFinish = OpenAiChatCompletion["choices"][number]["finish_reason"]
const chatFinishes: ReadonlyArray<string> = ["stop", "length", "tool_calls", "content_filter", "function_call"]
/** A provider's finish as OpenAI names it (anything else it may say: `stop`). */
const chatFinish = (reason: string): ChatFinish => (chatFinishes.includes(reason) ? reason as ChatFinish : "stop")
const completionFinish = (reason: string) => (reason === "length" || reason === "content_filter" ? reason : "stop")

export const usageOf = (counts: { readonly prompt_tokens: number; readonly response_tokens: number }) => ({
  completion_tokens: counts.response_tokens,
  prompt_tokens: counts.prompt_tokens,
  total_tokens: counts.prompt_tokens + counts.response_tokens,
  completion_tokens_details: null,
  prompt_tokens_details: null
})

const chatLogprobs = (logprobs: ReadonlyArray<TokenLogprob> | undefined) =>
  logprobs === undefined ? null : {
    content: logprobs.map((item) => ({
      token: item.token,
      logprob: item.logprob,
      bytes: null,
      top_logprobs: item.top_logprobs.map((top) => ({ token: top.token, logprob: top.logprob, bytes: null }))
    })),
    refusal: null
  }

export const chatCompletion = (stamp: Stamp, generated: Generation): OpenAiChatCompletion => ({
  id: stamp.id,
  object: "chat.completion",
  created: stamp.created,
  model: stamp.model,
  choices: [{
    index: 0,
    message: {
      role: "assistant",
      content: generated.text,
      refusal: null,
      annotations: null,
      audio: null,
      function_call: null,
      tool_calls: null
    },
    finish_reason: chatFinish(generated.finish_reason),
    logprobs: chatLogprobs(generated.logprobs)
  }],
  service_tier: null,
  system_fingerprint: null,
  usage: usageOf(generated)
})

const chunk = (
  stamp: Stamp,
  delta: { readonly role?: "assistant"; readonly content?: string },
  finish_reason: ChatFinish | null,
  usage: OpenAiChatCompletionChunk["usage"]
): OpenAiChatCompletionChunk => ({
  id: stamp.id,
  object: "chat.completion.chunk",
  created: stamp.created,
  model: stamp.model,
  choices: [{
    index: 0,
    delta: { role: delta.role ?? null, content: delta.content ?? null, refusal: null, function_call: null, tool_calls: null },
    finish_reason,
    logprobs: null
  }],
  service_tier: null,
  system_fingerprint: null,
  usage
})

/** The first chunk of a streamed chat completion, as OpenAI's: the role, no text yet. */
export const firstChunk = (stamp: Stamp) => chunk(stamp, { role: "assistant", content: "" }, null, null)

/** A chunk of a streamed chat completion: a piece of the reply; the finish, with the usage. */
export const chatChunk = (stamp: Stamp) => (event: GenerationEvent): OpenAiChatCompletionChunk =>
  event._tag === "Text" ? chunk(stamp, { content: event.text }, null, null) : chunk(stamp, {}, chatFinish(event.finish_reason), usageOf(event))

const completionLogprobs = (logprobs: ReadonlyArray<TokenLogprob> | undefined) => {
  if (logprobs === undefined) return null
  let offset = 0
  return {
    text_offset: logprobs.map((item) => {
      const at = offset
      offset += item.token.length
      return at
    }),
    token_logprobs: logprobs.map((item) => item.logprob),
    tokens: logprobs.map((item) => item.token),
    top_logprobs: logprobs.map((item) => Object.fromEntries(item.top_logprobs.map((top) => [top.token, top.logprob])))
  }
}

/** A completion of one choice per prompt (`echo`: each prompt before its text), the usage summed. */
export const completion = (
  stamp: Stamp,
  prompts: ReadonlyArray<string>,
  generations: ReadonlyArray<Generation>,
  echo: boolean
): OpenAiCompletion => ({
  id: stamp.id,
  object: "text_completion",
  created: stamp.created,
  model: stamp.model,
  choices: generations.map((generated, index) => ({
    index,
    text: (echo ? prompts[index] : "") + generated.text,
    finish_reason: completionFinish(generated.finish_reason),
    logprobs: completionLogprobs(generated.logprobs)
  })),
  system_fingerprint: null,
  usage: usageOf({
    prompt_tokens: generations.reduce((sum, generated) => sum + generated.prompt_tokens, 0),
    response_tokens: generations.reduce((sum, generated) => sum + generated.response_tokens, 0)
  })
})

/** A frame of a streamed completion (a whole `text_completion`): a piece of prompt `index`'s text, or its finish. */
export const completionFrame = (
  stamp: Stamp,
  index: number,
  text: string,
  finish_reason: string | null,
  usage: OpenAiCompletion["usage"]
): OpenAiCompletion => ({
  id: stamp.id,
  object: "text_completion",
  created: stamp.created,
  model: stamp.model,
  choices: [{ index, text, finish_reason: finish_reason === null ? null : completionFinish(finish_reason), logprobs: null }],
  system_fingerprint: null,
  usage
})

// ---------------------------------------------------------------------------------------------
// Responses

type Counts = { readonly prompt_tokens: number; readonly response_tokens: number }

const responseUsage = (counts: Counts) => ({
  input_tokens: counts.prompt_tokens,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: counts.response_tokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: counts.prompt_tokens + counts.response_tokens
})

const outputMessage = (itemId: string, text: string, status: "in_progress" | "completed" | "incomplete") => ({
  id: itemId,
  type: "message" as const,
  role: "assistant" as const,
  status,
  content: text === "" && status === "in_progress" ? [] : [{ type: "output_text" as const, text, annotations: [], logprobs: null }]
})

/** A response: `status` `in_progress` (the start of a stream, no output yet), `completed`, or `incomplete` when cut at `max_output_tokens`. */
export const response = (
  stamp: Stamp,
  itemId: string,
  body: OpenAiResponseRequest,
  generated: (Counts & { readonly text: string; readonly finish_reason: string }) | undefined
): OpenAiResponse => {
  const cut = generated?.finish_reason === "length"
  const status = generated === undefined ? "in_progress" as const : cut ? "incomplete" as const : "completed" as const
  return {
    id: stamp.id,
    object: "response",
    created_at: stamp.created,
    model: stamp.model,
    status,
    output: generated === undefined ? [] : [outputMessage(itemId, generated.text, cut ? "incomplete" : "completed")],
    output_text: generated?.text ?? "",
    error: null,
    incomplete_details: cut ? { reason: "max_output_tokens" } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? null,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    temperature: body.temperature ?? null,
    top_p: body.top_p ?? null,
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    truncation: body.truncation ?? null,
    text: body.text ?? null,
    reasoning: body.reasoning ?? null,
    user: body.user ?? null,
    usage: generated === undefined ? null : responseUsage(generated)
  }
}

/**
 * The events of a streamed response, as OpenAI's Responses API sends them (each with its
 * `sequence_number`): created, in progress, the message and its text part added, each piece of
 * text, the text, part and message done, completed. `events(event)` answers the frames an event
 * of the generation makes; `start` the first ones.
 */
export const responseEvents = (stamp: Stamp, itemId: string, body: OpenAiResponseRequest) => {
  let sequence_number = 0
  let text = ""
  const numbered = (event: Record<string, unknown>) => ({ ...event, sequence_number: sequence_number++ })
  const at = { item_id: itemId, output_index: 0, content_index: 0 }
  const start = () => {
    const pending = response(stamp, itemId, body, undefined)
    return [
      numbered({ type: "response.created", response: pending }),
      numbered({ type: "response.in_progress", response: pending }),
      numbered({ type: "response.output_item.added", output_index: 0, item: outputMessage(itemId, "", "in_progress") }),
      numbered({ type: "response.content_part.added", ...at, part: { type: "output_text", text: "", annotations: [] } })
    ]
  }
  const events = (event: GenerationEvent) => {
    if (event._tag === "Text") {
      text += event.text
      return [numbered({ type: "response.output_text.delta", ...at, delta: event.text, logprobs: [] })]
    }
    const done = response(stamp, itemId, body, { ...event, text })
    return [
      numbered({ type: "response.output_text.done", ...at, text, logprobs: [] }),
      numbered({ type: "response.content_part.done", ...at, part: { type: "output_text", text, annotations: [] } }),
      numbered({ type: "response.output_item.done", output_index: 0, item: done.output[0] }),
      numbered({ type: done.status === "incomplete" ? "response.incomplete" : "response.completed", response: done })
    ]
  }
  return { start, events }
}
