/**
 * The `compact` synthesis (docs/knowledge-bases.md "Ranking and synthesizing chunks"): the chunks'
 * texts packed in order into as few prompts as the context budget allows (a text longer than the
 * budget cut into pieces); the first prompt answers the query, each next one refines the answer
 * with its batch. Tokens are counted as the built-in model counts them.
 */
import type { UpstreamError } from "@platform-kit/schema"
import { Effect } from "effect"
import { countTokens, limit } from "../models/inference/builtin.js"
import type { Provider } from "../models/inference/Provider.js"

/** The chunk text one prompt holds at most, in tokens (the prompt's own words and the answer so far come on top). */
export const contextBudget = 3_000

/** `text` cut into pieces of at most `budget` tokens, at token boundaries. */
const piecesOf = (text: string, budget: number): Array<string> => {
  const pieces: Array<string> = []
  let rest = text.trim()
  while (countTokens(rest) > budget) {
    const piece = limit(rest, { max_tokens: budget }).text
    if (piece === "") break
    pieces.push(piece)
    rest = rest.slice(piece.length).trimStart()
  }
  return rest === "" ? pieces : [...pieces, rest]
}

/** The texts packed in order into batches of at most `budget` tokens each (a separator costs none). */
export const batchesOf = (texts: ReadonlyArray<string>, budget = contextBudget): Array<Array<string>> => {
  const batches: Array<Array<string>> = []
  let current: Array<string> = []
  let used = 0
  for (const piece of texts.flatMap((text) => piecesOf(text, budget))) {
    const tokens = countTokens(piece)
    if (current.length > 0 && used + tokens > budget) {
      batches.push(current)
      current = []
      used = 0
    }
    current.push(piece)
    used += tokens
  }
  return current.length > 0 ? [...batches, current] : batches
}

export const answerPrompt = (query: string, context: string) =>
  `Answer the question using only the context below.\n\nContext:\n${context}\n\nQuestion: ${query}\nAnswer:`

export const refinePrompt = (query: string, answer: string, context: string) =>
  `Question: ${query}\nCurrent answer: ${answer}\n\nMore context:\n${context}\n\n` +
  "Refine the current answer with this context if it helps; otherwise repeat the current answer unchanged.\nRefined answer:"

/** The answer to `query` from `texts` by `provider`, one chat completion per batch; "" without texts. */
export const compact = (provider: Provider, query: string, texts: ReadonlyArray<string>): Effect.Effect<string, UpstreamError> =>
  Effect.reduce(batchesOf(texts), "", (answer, batch, i) => {
    const context = batch.join("\n\n")
    const prompt = i === 0 ? answerPrompt(query, context) : refinePrompt(query, answer, context)
    return Effect.map(provider.chat([{ role: "user", content: prompt }], {}), (generation) => generation.text.trim())
  })
