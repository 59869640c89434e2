/**
 * Chunking a text as a knowledge base's `chunking_strategy_config` says (docs/knowledge-bases.md
 * "Chunking"). Pure functions: ingestion (its own issue) calls them on each file's text.
 *
 * `character` (defaults from CONTRACT.md: `separator` "\n\n", `chunk_size` 1000, `chunk_overlap`
 * 200) works as the character splitter of the Python tools such platforms are built on: the text
 * is split at `separator` (empty pieces dropped), consecutive pieces are joined back with the
 * separator into chunks of at most `chunk_size` characters, and each chunk after the first starts
 * with the last pieces of the one before that fit in `chunk_overlap` characters (separators
 * counted). One difference, so that no chunk is ever longer than `chunk_size`: a piece longer than
 * `chunk_size` on its own is cut into windows of `chunk_size` characters, each starting
 * `chunk_size - chunk_overlap` after the one before (the last may be shorter).
 */

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

/** The chunks of `text` by `config` (CONTRACT.md's checks, `chunk_size >= 1` and `0 <= chunk_overlap < chunk_size`, made by the request's Schema). */
export const chunkCharacters = (text: string, config: CharacterChunking = {}): Array<string> => {
  const separator = config.separator ?? characterDefaults.separator
  const size = config.chunk_size ?? characterDefaults.chunk_size
  const overlap = config.chunk_overlap ?? characterDefaults.chunk_overlap
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
