/**
 * The messages an agent's streamed answer makes (docs/agent-tasks.md "message/send"), as the
 * agentex server builds them: updates are grouped by `index`; a `full` update is the message's
 * content (later updates of its index are ignored); a `start` gives the content the deltas add
 * to; the deltas of one index are of one kind and are joined at its `done` (or at the end of the
 * answer): text pieces into text, data and tool-call argument pieces into the JSON they spell,
 * reasoning pieces into their summary and content lines. Content made from deltas alone is the
 * agent's.
 */
import type { TaskMessageContent, TaskMessageDelta, TaskMessageUpdate } from "@platform-kit/schema"

/** One message being written: its content so far, its deltas, and whether it is finished. */
export interface Piece {
  readonly index: number
  start: TaskMessageContent | undefined
  full: TaskMessageContent | undefined
  deltas: Array<TaskMessageDelta>
  done: boolean
}

export class AccumulationError extends Error {}

const parsed = (text: string, what: string): Record<string, unknown> => {
  let value: unknown
  try {
    value = JSON.parse(text === "" ? "{}" : text)
  } catch {
    throw new AccumulationError(`The agent's ${what} pieces do not make JSON`)
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new AccumulationError(`The agent's ${what} pieces do not make a JSON object`)
  }
  return value as Record<string, unknown>
}

const joined = (pieces: ReadonlyArray<string | null | undefined>) => pieces.map((piece) => piece ?? "").join("")

/** The content of a piece: its `full`, else its `start` with its deltas added, else its deltas. */
export const contentOf = (piece: Piece): TaskMessageContent | undefined => {
  if (piece.full !== undefined) return piece.full
  const deltas = piece.deltas
  const base = piece.start
  if (deltas.length === 0) return base
  const kinds = new Set(deltas.map((delta) => delta.type.startsWith("reasoning") ? "reasoning" : delta.type))
  if (kinds.size > 1) throw new AccumulationError(`The agent mixed delta types in one message: ${[...kinds].join(", ")}`)
  const first = deltas[0]!
  const style = base?.style ?? "static"
  const author = base?.author ?? "agent"
  switch (first.type) {
    case "text": {
      const text = joined(deltas.map((delta) => delta.type === "text" ? delta.text_delta : ""))
      return base?.type === "text"
        ? { ...base, content: base.content + text }
        : { type: "text", author, content: text, attachments: null, format: "plain", style }
    }
    case "data": {
      const data = parsed(joined(deltas.map((delta) => delta.type === "data" ? delta.data_delta : "")), "data")
      return { type: "data", author, data, style }
    }
    case "tool_request": {
      const args = parsed(joined(deltas.map((delta) => delta.type === "tool_request" ? delta.arguments_delta : "")), "tool-call arguments")
      return { type: "tool_request", author, name: first.name, tool_call_id: first.tool_call_id, arguments: args, style }
    }
    case "tool_response": {
      const content = joined(deltas.map((delta) => delta.type === "tool_response" ? delta.content_delta : ""))
      return { type: "tool_response", author, name: first.name, tool_call_id: first.tool_call_id, content, is_error: null, style }
    }
    default: {
      const summary = base?.type === "reasoning" ? [...base.summary] : []
      const content = base?.type === "reasoning" && base.content !== null ? [...base.content] : []
      for (const delta of deltas) {
        if (delta.type === "reasoning_summary") summary[delta.summary_index] = (summary[delta.summary_index] ?? "") + (delta.summary_delta ?? "")
        if (delta.type === "reasoning_content") content[delta.content_index] = (content[delta.content_index] ?? "") + (delta.content_delta ?? "")
      }
      return { type: "reasoning", author, summary: Array.from(summary, (line) => line ?? ""), content: Array.from(content, (line) => line ?? ""), style }
    }
  }
}

/**
 * Folds one update into `pieces` (by index; an update without one belongs to the last piece, or
 * to piece 0). Answers the piece it touched and whether the update was taken (updates after a
 * piece's `full` or `done` are not).
 */
export const fold = (pieces: Map<number, Piece>, update: TaskMessageUpdate): { readonly piece: Piece; readonly taken: boolean } => {
  const index = update.index ?? (pieces.size === 0 ? 0 : Math.max(...pieces.keys()))
  let piece = pieces.get(index)
  if (piece === undefined) {
    piece = { index, start: undefined, full: undefined, deltas: [], done: false }
    pieces.set(index, piece)
  }
  if (piece.full !== undefined || piece.done) return { piece, taken: false }
  switch (update.type) {
    case "start":
      piece.start = update.content
      break
    case "delta":
      if (update.delta !== undefined && update.delta !== null) piece.deltas.push(update.delta)
      break
    case "full":
      piece.full = update.content
      break
    case "done":
      piece.done = true
      break
  }
  return { piece, taken: true }
}
