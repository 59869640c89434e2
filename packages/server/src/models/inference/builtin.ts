/**
 * The built-in model (docs/models.md "The built-in model"): deterministic and documented as what
 * it is, not a language model. It replies with the last user message (a completion: the prompt),
 * counts words and punctuation as tokens, and embeds text as hashed word and character-trigram
 * features, so texts that share words and spellings get similar vectors.
 */

/** Runs of letters or digits, and each other visible character: what the built-in model counts as tokens. */
export const tokensOf = (text: string): ReadonlyArray<string> => text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? []

export const countTokens = (text: string): number => tokensOf(text).length

/** The length of a built-in embedding. */
export const embeddingDimensions = 256

/** 32-bit FNV-1a of `text`. */
const fnv1a = (text: string) => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/**
 * The built-in embedding of `text`: each lower-cased word (weight 1) and each character trigram of
 * the text with spaces around it (weight 0.5) hashed into one of `embeddingDimensions` dimensions,
 * with a sign from the hash; scaled to length 1 (all zeros for a text without characters).
 */
export const embed = (text: string): Array<number> => {
  const vector = new Array<number>(embeddingDimensions).fill(0)
  const add = (feature: string, weight: number) => {
    const hash = fnv1a(feature)
    vector[hash % embeddingDimensions]! += (hash & 0x80000000) === 0 ? weight : -weight
  }
  const lower = text.toLowerCase()
  for (const token of tokensOf(lower)) if (/[\p{L}\p{N}]/u.test(token)) add(`w ${token}`, 1)
  const spaced = ` ${lower.replace(/\s+/g, " ").trim()} `
  for (let i = 0; i + 3 <= spaced.length; i++) add(`c ${spaced.slice(i, i + 3)}`, 0.5)
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0))
  return norm === 0 ? vector : vector.map((x) => x / norm)
}

/** The cosine similarity of two vectors (0 when either is all zeros). */
export const cosine = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}

/**
 * What the built-in model generates for `reply` under the request's limits: cut at the first stop
 * sequence (`stop`), or after `maxTokens` tokens (`length`).
 */
export const limit = (
  reply: string,
  options: { readonly max_tokens?: number | undefined; readonly stop?: ReadonlyArray<string> | undefined }
): { readonly text: string; readonly finish_reason: "stop" | "length" } => {
  let text = reply
  for (const stop of options.stop ?? []) {
    const at = stop.length === 0 ? -1 : text.indexOf(stop)
    if (at >= 0) text = text.slice(0, at)
  }
  if (options.max_tokens !== undefined) {
    const pattern = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu
    let count = 0
    let match: RegExpExecArray | null
    while ((match = pattern.exec(text)) !== null) {
      if (++count > options.max_tokens) return { text: text.slice(0, match.index).trimEnd(), finish_reason: "length" }
    }
  }
  return { text, finish_reason: "stop" }
}
