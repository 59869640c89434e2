/**
 * Chunking a text as a knowledge base's `chunking_strategy_config` says (docs/knowledge-bases.md
 * "Chunking"). Pure functions: ingestion (its own issue) calls them on each file's text.
 *
 * `character` (defaults as that doc says: `separator` "\n\n", `chunk_size` 1000, `chunk_overlap`
 * 200) works as the character splitter of the Python tools such platforms are built on: the text
 * is split at `separator` (empty pieces dropped), consecutive pieces are joined back with the
 * separator into chunks of at most `chunk_size` characters, and each chunk after the first starts
 * with the last pieces of the one before that fit in `chunk_overlap` characters (separators
 * counted). One difference, so that no chunk is ever longer than `chunk_size`: a piece longer than
 * `chunk_size` on its own is cut into windows of `chunk_size` characters, each starting
 * `chunk_size - chunk_overlap` after the one before (the last may be shorter).
 *
 * `token` (the SDK's defaults: `target_chunk_size` 200, `max_chunk_size` 600, `chunk_overlap` 0;
 * `separator` "\n\n") counts tokens of OpenAI's `cl100k_base` encoding (`js-tiktoken`, loaded
 * when first used: `loadTokenizer`).
 */
import { Effect } from "effect"

export interface CharacterChunking {
  readonly separator?: string | undefined
  readonly chunk_size?: number | undefined
  readonly chunk_overlap?: number | undefined
}

export const characterDefaults = { separator: "\n\n", chunk_size: 1000, chunk_overlap: 200 } as const

/** `piece` cut into windows of `size` characters, `size - overlap` apart, the last ending at the piece's end. */
const windows = (piece: string, size: number, overlap: number): Array<string> => {
  const out: Array<string> = []
  const step = size - overlap
  for (let start = 0; ; start += step) {
    out.push(piece.slice(start, start + size))
    if (start + size >= piece.length) return out
  }
}

/** `value` as a whole number of at least `least`, else `fallback`. */
const whole = (value: number | undefined, fallback: number, least: number) =>
  value !== undefined && Number.isFinite(value) ? Math.max(least, Math.floor(value)) : Math.max(least, fallback)

/** The chunks of `text` by `config` (the checks of docs/knowledge-bases.md "Chunking", `chunk_size >= 1` and `0 <= chunk_overlap < chunk_size`, made by the request's Schema). */
export const chunkCharacters = (text: string, config: CharacterChunking = {}): Array<string> => {
  const separator = config.separator ?? characterDefaults.separator
  const size = whole(config.chunk_size, characterDefaults.chunk_size, 1)
  // below the size, whatever the caller passed (the request's Schema refuses the rest with a 422)
  const overlap = Math.min(size - 1, whole(config.chunk_overlap, characterDefaults.chunk_overlap, 0))
  const pieces = (separator === "" ? [...text] : text.split(separator)).filter((piece) => piece.trim() !== "")
  const chunks: Array<string> = []
  // the pieces of the chunk being made, and its length with the separators between them
  let current: Array<string> = []
  let length = 0
  const lengthWith = (piece: string) => length + (current.length > 0 ? separator.length : 0) + piece.length
  for (const piece of pieces) {
    if (piece.length > size) {
      if (current.length > 0) chunks.push(current.join(separator))
      chunks.push(...windows(piece, size, overlap))
      current = []
      length = 0
      continue
    }
    if (current.length > 0 && lengthWith(piece) > size) {
      chunks.push(current.join(separator))
      // keep the tail of the chunk that fits in the overlap, and room for the new piece
      while (current.length > 0 && (length > overlap || lengthWith(piece) > size)) {
        length -= current[0]!.length + (current.length > 1 ? separator.length : 0)
        current.shift()
      }
    }
    length = lengthWith(piece)
    current.push(piece)
  }
  if (current.length > 0) chunks.push(current.join(separator))
  return chunks
}

/** `pre_chunked`: the chunks as given, empty ones dropped. */
export const preChunked = (chunks: ReadonlyArray<string>): Array<string> => chunks.filter((chunk) => chunk.trim() !== "")

export interface TokenChunking {
  readonly separator?: string | undefined
  readonly target_chunk_size?: number | undefined
  readonly max_chunk_size?: number | undefined
  readonly chunk_overlap?: number | undefined
}

export const tokenDefaults = { separator: "\n\n", target_chunk_size: 200, max_chunk_size: 600, chunk_overlap: 0 } as const

/** What the token chunker needs of a tokenizer: a text's tokens, and tokens' text. */
export interface Tokenizer {
  readonly encode: (text: string) => Array<number>
  readonly decode: (tokens: Array<number>) => string
}

let tokenizer: Promise<Tokenizer> | undefined

/** The `cl100k_base` tokenizer, its tables (a few MB) loaded on first use, once. */
export const loadTokenizer: Effect.Effect<Tokenizer> = Effect.promise(() =>
  tokenizer ??= Promise.all([import("js-tiktoken/lite"), import("js-tiktoken/ranks/cl100k_base")]).then(([{ Tiktoken }, ranks]) => {
    const encoding = new Tiktoken(ranks.default)
    // special-token text (`<|endoftext|>`) in a document is text like any other
    return { encode: (text: string) => encoding.encode(text, [], []), decode: (tokens: Array<number>) => encoding.decode(tokens) }
  })
)

/**
 * The chunks of `text` by token counts: pieces split at `separator` (blank ones dropped), joined
 * back into a chunk until it holds `target_chunk_size` tokens or the next piece would take it past
 * `max_chunk_size`; each chunk after the first starts with the last `chunk_overlap` tokens of the
 * one before (when they fit with the next piece). A piece over `max_chunk_size` tokens on its own
 * is cut into windows of `max_chunk_size` tokens, `max_chunk_size - chunk_overlap` apart. A chunk's
 * count is the sum of its pieces' and separators' tokens (each piece tokenized alone).
 */
export const chunkTokens = (text: string, config: TokenChunking, tokenizer: Tokenizer): Array<string> => {
  const separator = config.separator ?? tokenDefaults.separator
  const max = whole(config.max_chunk_size, tokenDefaults.max_chunk_size, 1)
  const target = Math.min(max, whole(config.target_chunk_size, tokenDefaults.target_chunk_size, 1))
  const overlap = Math.min(max - 1, whole(config.chunk_overlap, tokenDefaults.chunk_overlap, 0))
  const separatorTokens = tokenizer.encode(separator)
  const pieces = (separator === "" ? [...text] : text.split(separator)).filter((piece) => piece.trim() !== "")
  const chunks: Array<string> = []
  let current: Array<number> = []
  // whether `current` holds more than the overlap carried over (a chunk of its own to write)
  let fresh = false
  const flush = () => {
    if (fresh) chunks.push(tokenizer.decode(current))
    current = overlap === 0 ? [] : current.slice(-overlap)
    fresh = false
  }
  for (const piece of pieces) {
    const tokens = tokenizer.encode(piece)
    if (tokens.length > max) {
      flush()
      for (let start = 0; ; start += max - overlap) {
        chunks.push(tokenizer.decode(tokens.slice(start, start + max)))
        if (start + max >= tokens.length) break
      }
      current = []
      continue
    }
    const joined = () => (current.length === 0 ? tokens.length : current.length + separatorTokens.length + tokens.length)
    if (joined() > max) flush()
    // the overlap carried over does not fit with this piece: the piece starts the chunk alone
    if (joined() > max) current = []
    current = current.length === 0 ? [...tokens] : [...current, ...separatorTokens, ...tokens]
    fresh = true
    if (current.length >= target) flush()
  }
  if (fresh) chunks.push(tokenizer.decode(current))
  return chunks
}
