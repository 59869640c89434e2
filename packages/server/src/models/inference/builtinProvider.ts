import { Effect, Stream } from "effect"
import { countTokens, embed, limit, tokensOf } from "./builtin.js"
import type { Generation, GenerationEvent, GenerationOptions, Provider } from "./Provider.js"

/**
 * The built-in model is certain of every token it replies (it echoes): each has log probability
 * 0, and is its own only alternative.
 */
const certain = (text: string, options: GenerationOptions) =>
  options.logprobs === true
    ? { logprobs: tokensOf(text).map((token) => ({ token, logprob: 0, top_logprobs: (options.top_logprobs ?? 0) > 0 ? [{ token, logprob: 0 }] : [] })) }
    : {}

/** The built-in model's reply to `messages`: the last user message (builtin.ts). */
const chat: Provider["chat"] = (messages, options) =>
  Effect.sync(() => {
    const last = [...messages].reverse().find((message) => message.role === "user")?.content ?? ""
    const reply = limit(last, options)
    return {
      text: reply.text,
      finish_reason: reply.finish_reason,
      prompt_tokens: messages.reduce((sum, message) => sum + countTokens(message.content), 0),
      response_tokens: countTokens(reply.text),
      ...certain(reply.text, options)
    }
  })

const complete: Provider["complete"] = (prompt, options) =>
  Effect.sync(() => {
    const reply = limit(prompt, options)
    return {
      text: reply.text,
      finish_reason: reply.finish_reason,
      prompt_tokens: countTokens(prompt),
      response_tokens: countTokens(reply.text),
      ...certain(reply.text, options)
    }
  })

/** A generation streamed as the built-in model counts tokens: each token with the space before it, then the finish. */
const streamed = (generation: Generation): Stream.Stream<GenerationEvent> =>
  Stream.fromIterable<GenerationEvent>([
    ...(generation.text.match(/\s*(?:[\p{L}\p{N}]+|[^\s\p{L}\p{N}])|\s+$/gu) ?? []).map((text) => ({ _tag: "Text" as const, text })),
    {
      _tag: "Finish",
      finish_reason: generation.finish_reason,
      prompt_tokens: generation.prompt_tokens,
      response_tokens: generation.response_tokens
    }
  ])

/** The built-in model as a provider: replies with the last user message (builtin.ts). */
export const builtinProvider: Provider = {
  chat,
  complete,
  chatStream: (messages, options) => Effect.map(chat(messages, options), streamed),
  completeStream: (prompt, options) => Effect.map(complete(prompt, options), streamed),
  embed: (texts) =>
    Effect.sync(() => ({ vectors: texts.map(embed), tokens: texts.reduce((sum, text) => sum + countTokens(text), 0) }))
}
