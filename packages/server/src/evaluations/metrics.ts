/**
 * The metrics of `metric` tasks (docs/evaluations.md "Metrics"), computed locally between a
 * candidate text and a reference text. Texts are compared as lower-cased words (runs of letters and
 * digits). Every metric is in 0..1, 1 for identical texts; an empty candidate or reference scores 0.
 */
import type { MetricType } from "@platform-kit/schema"
import { cosine, embed } from "../models/inference/builtin.js"

const wordsOf = (text: string): ReadonlyArray<string> => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

/** The n-grams of `words`, counted. */
const ngrams = (words: ReadonlyArray<string>, n: number) => {
  const counts = new Map<string, number>()
  for (let i = 0; i + n <= words.length; i++) {
    const gram = words.slice(i, i + n).join("\u0000")
    counts.set(gram, (counts.get(gram) ?? 0) + 1)
  }
  return counts
}

/** The n-grams two texts share, each counted at most as often as the one with fewer has it. */
const overlap = (a: Map<string, number>, b: Map<string, number>) => {
  let shared = 0
  for (const [gram, count] of a) shared += Math.min(count, b.get(gram) ?? 0)
  return shared
}

const total = (counts: Map<string, number>) => {
  let sum = 0
  for (const count of counts.values()) sum += count
  return sum
}

const fMeasure = (matches: number, candidateSize: number, referenceSize: number) =>
  matches === 0 ? 0 : (2 * matches) / (candidateSize + referenceSize)

/** ROUGE-N: the F-measure of the shared n-grams. */
const rougeN = (candidate: ReadonlyArray<string>, reference: ReadonlyArray<string>, n: number) => {
  const c = ngrams(candidate, n)
  const r = ngrams(reference, n)
  return fMeasure(overlap(c, r), total(c), total(r))
}

/** The length of the longest common subsequence of two word lists. */
const lcs = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => {
  let previous = new Array<number>(b.length + 1).fill(0)
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(b.length + 1).fill(0)
    for (let j = 1; j <= b.length; j++) {
      current[j] = a[i - 1] === b[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!)
    }
    previous = current
  }
  return previous[b.length]!
}

/**
 * Sentence BLEU: the geometric mean of the clipped n-gram precisions up to 4 (up to the candidate's
 * length when it is shorter), a precision of no match taken as 0.1 / the n-grams there were (NLTK's
 * smoothing method 1), times the brevity penalty.
 */
const bleu = (candidate: ReadonlyArray<string>, reference: ReadonlyArray<string>) => {
  const orders = Math.min(4, candidate.length)
  let logSum = 0
  for (let n = 1; n <= orders; n++) {
    const c = ngrams(candidate, n)
    const matches = overlap(c, ngrams(reference, n))
    const count = total(c)
    logSum += Math.log(matches > 0 ? matches / count : 0.1 / count)
  }
  const brevity = candidate.length >= reference.length ? 1 : Math.exp(1 - reference.length / candidate.length)
  return brevity * Math.exp(logSum / orders)
}

/** Token F1 as SQuAD computes it: shared words (articles left out) as an F-measure. */
const f1 = (candidate: ReadonlyArray<string>, reference: ReadonlyArray<string>) => {
  const content = (words: ReadonlyArray<string>) => words.filter((word) => word !== "a" && word !== "an" && word !== "the")
  return rougeN(content(candidate), content(reference), 1)
}

/**
 * METEOR with exact word matches only (no stems, no synonyms): the recall-weighted harmonic mean
 * of unigram precision and recall (α 0.9), less the fragmentation penalty 0.5 · (chunks/matches)³.
 */
const meteor = (candidate: ReadonlyArray<string>, reference: ReadonlyArray<string>) => {
  // align each candidate word with the first unused equal reference word
  const used = new Array<boolean>(reference.length).fill(false)
  const aligned: Array<number> = []
  for (const word of candidate) {
    const j = reference.findIndex((other, k) => !used[k] && other === word)
    if (j >= 0) {
      used[j] = true
      aligned.push(j)
    } else {
      aligned.push(-1)
    }
  }
  const matched = aligned.filter((j) => j >= 0)
  if (matched.length === 0) return 0
  let chunks = 1
  for (let i = 1; i < matched.length; i++) if (matched[i] !== matched[i - 1]! + 1) chunks++
  const precision = matched.length / candidate.length
  const recall = matched.length / reference.length
  const fMean = (precision * recall) / (0.9 * precision + 0.1 * recall)
  return fMean * (1 - 0.5 * (chunks / matched.length) ** 3)
}

/** `type` between `candidate` and `reference`, in 0..1. */
export const computeMetric = (type: MetricType, candidate: string, reference: string): number => {
  const c = wordsOf(candidate)
  const r = wordsOf(reference)
  if (c.length === 0 || r.length === 0) return 0
  switch (type) {
    case "bleu":
      return bleu(c, r)
    case "rouge1":
      return rougeN(c, r, 1)
    case "rouge2":
      return rougeN(c, r, 2)
    case "rougeL":
      return fMeasure(lcs(c, r), c.length, r.length)
    case "f1":
      return f1(c, r)
    case "meteor":
      return meteor(c, r)
    case "cosine_similarity":
      // the built-in embeddings (hashed word and character n-grams, docs/models.md); clamped to 0..1
      return Math.max(0, Math.min(1, cosine(embed(candidate), embed(reference))))
  }
}
