/**
 * The built-in model (docs/models.md "The built-in model"): deterministic and documented as what
 * it is, not a language model. It replies with the last user message (a completion: the prompt),
 * counts words and punctuation as tokens, and embeds text as hashed word and character-trigram
 * features, so texts that share words and spellings get similar vectors.
 */

/** Runs of letters or digits, and each other visible character: what the built-in model counts as tokens. */
export const tokensOf = (text: string): ReadonlyArray<string> => text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? []

export const countTokens = (text: string): number => tokensOf(text).length

/** The length of a built-in embedding (a power of two: `embedVector` masks hashes with it). */
export const embeddingDimensions = 256

const fnvPrime = 0x01000193

/** The 32-bit FNV-1a state after `prefix` (a feature's kind, hashed before its text). */
const fnvAfter = (prefix: string) => {
  let hash = 0x811c9dc5
  for (let i = 0; i < prefix.length; i++) hash = Math.imul(hash ^ prefix.charCodeAt(i), fnvPrime)
  return hash
}
const wordState = fnvAfter("w ")
const trigramState = fnvAfter("c ")

/** One code point that is a letter or a digit (what a word is made of). */
const letterOrDigitPattern = /^[\p{L}\p{N}]$/u

/**
 * The built-in embedding of `text`: each lower-cased word (weight 1) and each character trigram of
 * the text with spaces around it (weight 0.5) hashed (32-bit FNV-1a of `w <word>`, `c <trigram>`)
 * into one of `embeddingDimensions` dimensions, with a sign from the hash; scaled to length 1 (all
 * zeros for a text without characters). As a typed array, the features hashed in place (no string
 * made per feature): what knowledge bases store, without a number boxed per dimension.
 */
export const embedVector = (text: string): Float64Array => {
  // module constants read into locals: the loops below run a few thousand times a text; the
  // dimension of a hash is its remainder by 256, a mask (a `%` costs the loop a third of its time)
  const dimensions = embeddingDimensions
  const mask = dimensions - 1
  const prime = fnvPrime
  const vector = new Float64Array(dimensions)
  const lower = text.toLowerCase()
  // the words: runs of letters and digits (`/[\p{L}\p{N}]+/gu`), each hashed as it is read, its
  // code units in order (no string made per word); ASCII (lower-cased) classified by range, the
  // rest by the regex; the end of the text ends the last word
  let hash = wordState
  let inWord = false
  for (let i = 0; i <= lower.length;) {
    const unit = i < lower.length ? lower.charCodeAt(i) : 32
    let size = 1
    let letterOrDigit: boolean
    if (unit < 128) letterOrDigit = (unit >= 97 && unit <= 122) || (unit >= 48 && unit <= 57)
    else {
      const point = lower.codePointAt(i)!
      if (point > 0xffff) size = 2
      letterOrDigit = letterOrDigitPattern.test(String.fromCodePoint(point))
    }
    if (letterOrDigit) {
      if (!inWord) {
        hash = wordState
        inWord = true
      }
      hash = Math.imul(hash ^ unit, prime)
      if (size === 2) hash = Math.imul(hash ^ lower.charCodeAt(i + 1), prime)
    } else if (inWord) {
      hash >>>= 0
      vector[hash & mask]! += (hash & 0x80000000) === 0 ? 1 : -1
      inWord = false
    }
    i += size
  }
  const spaced = ` ${lower.replace(/\s+/g, " ").trim()} `
  const trigram = trigramState
  for (let i = 0; i + 3 <= spaced.length; i++) {
    let hash = Math.imul(trigram ^ spaced.charCodeAt(i), prime)
    hash = Math.imul(hash ^ spaced.charCodeAt(i + 1), prime)
    hash = Math.imul(hash ^ spaced.charCodeAt(i + 2), prime) >>> 0
    vector[hash & mask]! += (hash & 0x80000000) === 0 ? 0.5 : -0.5
  }
  let norm = 0
  for (let i = 0; i < dimensions; i++) norm += vector[i]! * vector[i]!
  norm = Math.sqrt(norm)
  if (norm !== 0) for (let i = 0; i < dimensions; i++) vector[i]! /= norm
  return vector
}

/** The built-in embedding of `text` (`embedVector`) as a plain array. */
export const embed = (text: string): Array<number> => Array.from(embedVector(text))

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
