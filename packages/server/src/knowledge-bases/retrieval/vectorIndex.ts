/**
 * The vector side of retrieval (docs/knowledge-bases.md "Retrieval"): each embedding is stored
 * with its sign bits (binary quantization: bit i set when dimension i is positive, 32 to a word).
 * A query first takes the chunks whose codes are nearest its own in Hamming distance (a scan of 32
 * bytes per chunk at 256 dimensions, a 16-bit popcount table: 1.5–3 ms at 100,000 chunks, where a
 * scan of the float vectors takes 40), then scores those candidates by the cosine of their full
 * embeddings.
 *
 * `VectorIndexes` keeps each knowledge base's codes in memory, per process, and reloads them when
 * the base's `chunk_generation` moved (only the chunks after the last one it holds) or its
 * `chunk_deletions` did (all of them): the database stays the truth, shared by every process.
 */
import { Effect } from "effect"
import { ChunksRepo } from "../artifacts/ChunksRepo.js"

/** The sign bits of `vector`, 32 to a word. */
export const signCode = (vector: ArrayLike<number>): Uint32Array => {
  const code = new Uint32Array(Math.ceil(vector.length / 32))
  for (let i = 0; i < vector.length; i++) if (vector[i]! > 0) code[i >>> 5]! |= 1 << (i & 31)
  return code
}

/** Bytes of 32-bit words or floats, little-endian as stored. */
export const toBytes = (array: Uint32Array | Float32Array): Buffer => Buffer.from(array.buffer, array.byteOffset, array.byteLength)

/** A stored embedding as floats (copied: a read's bytes need not be aligned). */
export const floatsOf = (bytes: Uint8Array): Float32Array => new Float32Array(Uint8Array.from(bytes).buffer)

/** A stored code as words. */
export const wordsOf = (bytes: Uint8Array): Uint32Array => new Uint32Array(Uint8Array.from(bytes).buffer)

/** The bits set in each 16-bit number: a code's distance is two look-ups a word. */
const bitsOf16 = (() => {
  const table = new Uint8Array(65536)
  for (let i = 1; i < 65536; i++) table[i] = table[i >>> 1]! + (i & 1)
  return table
})()

/** One knowledge base's codes, as loaded. */
interface Loaded {
  readonly generation: number
  readonly deletions: number
  /** The highest `seq` held. */
  readonly lastSeq: number
  readonly count: number
  /** Words per code (of the first chunk loaded; others are cut or padded to it). */
  readonly words: number
  readonly seqs: Float64Array
  readonly codes: Uint32Array
  /**
   * Whether each query word the base was asked for is rare enough to search by (retrieval.ts),
   * by `<count>:<word>`: true as long as the base's chunks are these (a new set with new chunks).
   */
  readonly rare: Map<string, boolean>
}

const empty = (): Loaded => ({
  generation: -1,
  deletions: -1,
  lastSeq: 0,
  count: 0,
  words: 0,
  seqs: new Float64Array(0),
  codes: new Uint32Array(0),
  rare: new Map()
})

/** `loaded` with `rows` appended (growing its arrays by doubling). */
const appended = (
  loaded: Loaded,
  rows: ReadonlyArray<{ readonly seq: number; readonly code: Uint8Array }>,
  at: { readonly generation: number; readonly deletions: number }
): Loaded => {
  if (rows.length === 0) return { ...loaded, ...at }
  const words = loaded.count > 0 ? loaded.words : Math.max(1, rows[0]!.code.byteLength >>> 2)
  const count = loaded.count + rows.length
  let { codes, seqs } = loaded
  if (seqs.length < count) {
    const capacity = Math.max(count, seqs.length * 2, 1024)
    const grownSeqs = new Float64Array(capacity)
    grownSeqs.set(seqs.subarray(0, loaded.count))
    const grownCodes = new Uint32Array(capacity * words)
    grownCodes.set(codes.subarray(0, loaded.count * words))
    seqs = grownSeqs
    codes = grownCodes
  }
  let lastSeq = loaded.lastSeq
  rows.forEach((row, i) => {
    const at = loaded.count + i
    seqs[at] = Number(row.seq)
    const code = wordsOf(row.code)
    codes.set(code.subarray(0, words), at * words)
    lastSeq = Math.max(lastSeq, Number(row.seq))
  })
  return { ...at, lastSeq, count, words, seqs, codes, rare: new Map() }
}

/**
 * The distance of each code of `loaded` to `query` into `distances` (`unreachable` for one not in
 * `allowed`, when given), each counted in `histogram`.
 */
const scan = (
  loaded: Loaded,
  q: Uint32Array,
  allowed: ReadonlySet<number> | undefined,
  distances: Uint16Array,
  histogram: Uint32Array,
  unreachable: number
) => {
  const { codes, count, seqs, words } = loaded
  const bits = bitsOf16
  if (words === 8 && allowed === undefined) {
    // the built-in embeddings' 256 dimensions, unrolled, the query's words in locals: half the
    // time of the loop below (a query's largest cost at 100,000 chunks)
    const q0 = q[0]!, q1 = q[1]!, q2 = q[2]!, q3 = q[3]!, q4 = q[4]!, q5 = q[5]!, q6 = q[6]!, q7 = q[7]!
    for (let r = 0, o = 0; r < count; r++, o += 8) {
      const a = codes[o]! ^ q0, b = codes[o + 1]! ^ q1, c = codes[o + 2]! ^ q2, d = codes[o + 3]! ^ q3
      const e = codes[o + 4]! ^ q4, f = codes[o + 5]! ^ q5, g = codes[o + 6]! ^ q6, h = codes[o + 7]! ^ q7
      const distance = bits[a & 0xffff]! + bits[a >>> 16]! + bits[b & 0xffff]! + bits[b >>> 16]! + bits[c & 0xffff]! +
        bits[c >>> 16]! + bits[d & 0xffff]! + bits[d >>> 16]! + bits[e & 0xffff]! + bits[e >>> 16]! + bits[f & 0xffff]! +
        bits[f >>> 16]! + bits[g & 0xffff]! + bits[g >>> 16]! + bits[h & 0xffff]! + bits[h >>> 16]!
      distances[r] = distance
      histogram[distance]!++
    }
    return
  }
  for (let r = 0, o = 0; r < count; r++, o += words) {
    if (allowed !== undefined && !allowed.has(seqs[r]!)) {
      distances[r] = unreachable
      continue
    }
    let distance = 0
    for (let w = 0; w < words; w++) {
      const x = codes[o + w]! ^ q[w]!
      distance += bits[x & 0xffff]! + bits[x >>> 16]!
    }
    distances[r] = distance
    histogram[distance]!++
  }
}

/**
 * The `seq`s of the `n` codes of `loaded` nearest `query` (those in `allowed` only, when given):
 * every code nearer than the n-th smallest distance, then as many at that distance as fit.
 */
const nearestOf = (loaded: Loaded, query: Uint32Array, n: number, allowed: ReadonlySet<number> | undefined): Array<number> => {
  const { count, seqs, words } = loaded
  const distances = new Uint16Array(count)
  const unreachable = words * 32 + 1
  const histogram = new Uint32Array(unreachable + 1)
  scan(loaded, Uint32Array.from({ length: words }, (_, w) => query[w] ?? 0), allowed, distances, histogram, unreachable)
  // the distance of the n-th nearest, and how many at it still fit
  let threshold = 0
  let nearer = 0
  while (threshold < unreachable && nearer + histogram[threshold]! < n) nearer += histogram[threshold++]!
  let atThreshold = n - nearer
  const out: Array<number> = []
  for (let r = 0; r < count; r++) {
    const d = distances[r]!
    if (d < threshold || (d === threshold && d < unreachable && atThreshold-- > 0)) out.push(seqs[r]!)
  }
  return out
}

/** How many knowledge bases' codes a process keeps (the least recently queried go first). */
const kept = 64

export class VectorIndexes extends Effect.Service<VectorIndexes>()("@platform-kit/server/VectorIndexes", {
  effect: Effect.gen(function*() {
    const chunks = yield* ChunksRepo
    const indexes = new Map<string, Loaded>()

    /** The base's codes as they are now: reloaded in part or whole when the base changed since. */
    const current = (knowledgeBaseId: string) =>
      Effect.gen(function*() {
        const at = yield* chunks.generation(knowledgeBaseId)
        let loaded = indexes.get(knowledgeBaseId) ?? empty()
        if (loaded.deletions !== at.deletions) loaded = appended(empty(), yield* chunks.codesAfter(knowledgeBaseId, 0), at)
        else if (loaded.generation !== at.generation) loaded = appended(loaded, yield* chunks.codesAfter(knowledgeBaseId, loaded.lastSeq), at)
        indexes.delete(knowledgeBaseId)
        indexes.set(knowledgeBaseId, loaded)
        if (indexes.size > kept) indexes.delete(indexes.keys().next().value!)
        return loaded
      })

    /** The `seq`s of about `n` chunks of the base whose embeddings are nearest `vector` (among `allowed`, when given). */
    const nearest = (knowledgeBaseId: string, vector: ArrayLike<number>, n: number, allowed?: ReadonlySet<number>) =>
      Effect.map(current(knowledgeBaseId), (loaded) => nearestOf(loaded, signCode(vector), n, allowed))

    /**
     * The words of `terms` that fewer than `count` of the base's chunks hold: each asked of the
     * database (`probe`) once, then remembered while the base's chunks stay as they are.
     */
    const rarer = <E, R>(
      knowledgeBaseId: string,
      terms: ReadonlyArray<string>,
      count: number,
      probe: (terms: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>, E, R>
    ) =>
      Effect.gen(function*() {
        const { rare } = yield* current(knowledgeBaseId)
        const unknown = terms.filter((term) => !rare.has(`${count}:${term}`))
        if (unknown.length > 0) {
          const found = new Set(yield* probe(unknown))
          for (const term of unknown) rare.set(`${count}:${term}`, found.has(term))
          // bounded: a base asked for very many words forgets them all and starts over
          if (rare.size > 100_000) rare.clear()
        }
        return terms.filter((term) => rare.get(`${count}:${term}`) ?? true)
      })

    /** Forgets a base (its deletion). */
    const forget = (knowledgeBaseId: string) => Effect.sync(() => indexes.delete(knowledgeBaseId))

    return { nearest, rarer, forget } as const
  }),
  dependencies: [ChunksRepo.Default]
}) {}
