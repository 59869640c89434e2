/**
 * ROUGE of a chunk against the query (the reference), as Google's `rouge_score` computes it with
 * its default tokenizer and no stemmer: text lower-cased, split into runs of letters and digits
 * (Unicode ones, where `rouge_score` keeps only a-z and 0-9). ROUGE-N counts the n-grams both share
 * (each as often as the rarer side has it); ROUGE-L the longest common subsequence; ROUGE-Lsum
 * the union of each reference line's LCS with every candidate line (lines split on "\n").
 */

export interface RougeScore {
  readonly precision: number
  readonly recall: number
  readonly fmeasure: number
}

/** The tokens ROUGE compares: lower-cased runs of letters and digits. */
export const rougeTokens = (text: string): Array<string> => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

/** `hits` of `candidate` tokens out of `reference` tokens as precision, recall and their harmonic mean. */
const scoreOf = (hits: number, reference: number, candidate: number): RougeScore => {
  const precision = hits / Math.max(candidate, 1)
  const recall = hits / Math.max(reference, 1)
  return { precision, recall, fmeasure: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0 }
}

const countsOf = <A>(items: ReadonlyArray<A>) => {
  const counts = new Map<A, number>()
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1)
  return counts
}

const ngrams = (tokens: ReadonlyArray<string>, n: number) =>
  countsOf(Array.from({ length: Math.max(tokens.length - n + 1, 0) }, (_, i) => tokens.slice(i, i + n).join("\u0000")))

const rougeN = (reference: ReadonlyArray<string>, candidate: ReadonlyArray<string>, n: number): RougeScore => {
  const ref = ngrams(reference, n)
  const can = ngrams(candidate, n)
  let hits = 0
  for (const [gram, count] of ref) hits += Math.min(count, can.get(gram) ?? 0)
  const total = (counts: Map<string, number>) => [...counts.values()].reduce((sum, count) => sum + count, 0)
  return scoreOf(hits, total(ref), total(can))
}

/** The LCS table of `a` and `b`: `table[i][j]` the LCS length of their first `i` and `j` tokens. */
const lcsTable = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      table[i]![j] = a[i - 1] === b[j - 1] ? table[i - 1]![j - 1]! + 1 : Math.max(table[i - 1]![j]!, table[i]![j - 1]!)
    }
  }
  return table
}

/** The indices in `reference` of one longest common subsequence with `candidate` (walked back from the end). */
const lcsIndices = (reference: ReadonlyArray<string>, candidate: ReadonlyArray<string>) => {
  const table = lcsTable(reference, candidate)
  const indices: Array<number> = []
  let i = reference.length
  let j = candidate.length
  while (i > 0 && j > 0) {
    if (reference[i - 1] === candidate[j - 1]) {
      indices.push(i - 1)
      i--
      j--
    } else if (table[i]![j - 1]! > table[i - 1]![j]!) j--
    else i--
  }
  return indices.reverse()
}

const rougeL = (reference: ReadonlyArray<string>, candidate: ReadonlyArray<string>): RougeScore =>
  reference.length === 0 || candidate.length === 0
    ? scoreOf(0, reference.length, candidate.length)
    : scoreOf(lcsTable(reference, candidate)[reference.length]![candidate.length]!, reference.length, candidate.length)

const linesOf = (text: string) => text.split("\n").map(rougeTokens).filter((tokens) => tokens.length > 0)

/**
 * Summary-level LCS: for each reference line, the tokens at the union of its LCS indices with each
 * candidate line; a token is a hit while both sides still have one of it unmatched.
 */
const rougeLsum = (referenceText: string, candidateText: string): RougeScore => {
  const reference = linesOf(referenceText)
  const candidate = linesOf(candidateText)
  const m = reference.reduce((sum, line) => sum + line.length, 0)
  const n = candidate.reduce((sum, line) => sum + line.length, 0)
  if (m === 0 || n === 0) return scoreOf(0, m, n)
  const left = { reference: countsOf(reference.flat()), candidate: countsOf(candidate.flat()) }
  let hits = 0
  for (const line of reference) {
    const union = [...new Set(candidate.flatMap((other) => lcsIndices(line, other)))].sort((a, b) => a - b)
    for (const token of union.map((i) => line[i]!)) {
      if ((left.reference.get(token) ?? 0) > 0 && (left.candidate.get(token) ?? 0) > 0) {
        hits++
        left.reference.set(token, left.reference.get(token)! - 1)
        left.candidate.set(token, left.candidate.get(token)! - 1)
      }
    }
  }
  return scoreOf(hits, m, n)
}

/** ROUGE `metric` of `candidate` against `reference`. */
export const rouge = (metric: string, reference: string, candidate: string): RougeScore => {
  if (metric === "rougeLsum") return rougeLsum(reference, candidate)
  if (metric === "rougeL") return rougeL(rougeTokens(reference), rougeTokens(candidate))
  return rougeN(rougeTokens(reference), rougeTokens(candidate), Number(metric.slice("rouge".length)))
}
