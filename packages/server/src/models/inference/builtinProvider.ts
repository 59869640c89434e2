import { Effect } from "effect"
import { countTokens, embed, limit } from "./builtin.js"
import type { Provider } from "./Provider.js"

/** The built-in model as a provider: replies with the last user message (builtin.ts). */
export const builtinProvider: Provider = {
  chat: (messages, options) =>
    Effect.sync(() => {
      const last = [...messages].reverse().find((message) => message.role === "user")?.content ?? ""
      const reply = limit(last, options)
      return {
        text: reply.text,
        finish_reason: reply.finish_reason,
        prompt_tokens: messages.reduce((sum, message) => sum + countTokens(message.content), 0),
        response_tokens: countTokens(reply.text)
      }
    }),
  complete: (prompt, options) =>
    Effect.sync(() => {
      const reply = limit(prompt, options)
      return { text: reply.text, finish_reason: reply.finish_reason, prompt_tokens: countTokens(prompt), response_tokens: countTokens(reply.text) }
    }),
  embed: (texts) =>
    Effect.sync(() => ({ vectors: texts.map(embed), tokens: texts.reduce((sum, text) => sum + countTokens(text), 0) }))
}
