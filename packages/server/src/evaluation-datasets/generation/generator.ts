/**
 * What a generation job writes, worked out from the chunks alone (no I/O), so that a step run
 * again writes the same draft:
 *
 * - `planCases`: the chunks of each case. Case `n`'s first chunk is spread evenly over the base
 *   (every `total / count`-th usable chunk; past the last, round again); its second chunk is the
 *   next of the same artifact (`group_by_artifact_id`), or the next of the base.
 * - `builtinCase`: the built-in generator, for zero set-up. Deterministic and not a language model:
 *   it takes a sentence of the case's first chunk (the first, then the next one each round), asks
 *   what the artifact says about the sentence's first words, and expects the sentence.
 * - `generationPrompt` / `modelCase`: what the account's generation model is asked for a case (its
 *   chunks' texts and the job's instructions), and its reply read as the case.
 */
import * as Crypto from "node:crypto"

/** A chunk a case may be drawn from: its id and its artifact. */
export interface UsableChunk {
  readonly id: string
  readonly artifact_id: string
}

/** The chunk ids of each of `count` cases, drawn from `chunks` (in the base's order, at least one). */
export const planCases = (
  chunks: ReadonlyArray<UsableChunk>,
  count: number,
  groupByArtifact: boolean
): ReadonlyArray<ReadonlyArray<string>> => {
  const total = chunks.length
  return Array.from({ length: count }, (_, n) => {
    const first = count <= total ? Math.floor((n * total) / count) : n % total
    const primary = chunks[first]!
    // the next chunk after `first` (wrapping round) that may join it
    let second: UsableChunk | undefined
    for (let step = 1; step < total && second === undefined; step++) {
      const candidate = chunks[(first + step) % total]!
      if (!groupByArtifact || candidate.artifact_id === primary.artifact_id) second = candidate
    }
    return second === undefined ? [primary.id] : [primary.id, second.id]
  })
}

/** The round of case `n` over `total` usable chunks: which sentence of its chunk it takes. */
export const roundOf = (n: number, total: number) => Math.floor(n / Math.max(1, total))

/** The sentences of a text: cut after `.`, `!` or `?` followed by a space, or at a line break. */
const sentencesOf = (text: string): ReadonlyArray<string> =>
  text.split(/(?<=[.!?])\s+|\n+/u).map((sentence) => sentence.trim()).filter((sentence) => sentence.length > 0)

/** The first words of a sentence a question names: half of them, 3 to 8. */
const leadOf = (sentence: string) => {
  const words = sentence.replace(/[.!?]+$/u, "").split(/\s+/u).filter((word) => word.length > 0)
  return words.slice(0, Math.min(8, Math.max(3, Math.ceil(words.length / 2)))).join(" ")
}

/** The built-in generator's case: a question on a sentence of `text` (of `artifactName`), and that sentence. */
export const builtinCase = (text: string, artifactName: string, round: number) => {
  const sentences = sentencesOf(text)
  const sentence = sentences.length === 0 ? text.trim() : sentences[round % sentences.length]!
  return { input: `What does ${artifactName} say about "${leadOf(sentence)}"?`, expected_output: sentence }
}

/**
 * The id of case `n`'s draft in job `jobId`: the same every time (a step run again finds the draft
 * it wrote), shaped as a UUID v4 (hash bits, version and variant set).
 */
export const draftIdOf = (jobId: string, n: number) => {
  const bytes = Crypto.createHash("sha256").update(`${jobId}/${n}`).digest().subarray(0, 16)
  bytes[6] = (bytes[6]! & 0x0f) | 0x40
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** What the model of a case is given: the chunks' texts (in the plan's order), and the job's instructions. */
export interface GenerationAsk {
  readonly artifactName: string
  readonly texts: ReadonlyArray<string>
  readonly customInstructions: string | null
  readonly harmsList: ReadonlyArray<string> | null
}

/** The prompt asking the generation model for one test case from the chunks: one JSON object back. */
export const generationPrompt = ({ artifactName, customInstructions, harmsList, texts }: GenerationAsk): string =>
  [
    "Write one test case for evaluating an AI application that answers from a knowledge base.",
    `Base it only on this context, from ${artifactName}:\n\n${texts.join("\n\n")}`,
    customInstructions === null || customInstructions.trim() === "" ? "" : `Instructions: ${customInstructions}`,
    harmsList === null || harmsList.length === 0 ? "" : `Harms to cover: ${harmsList.join(", ")}`,
    'Reply with one JSON object only: {"input": "<what a user asks the application>", "expected_output": "<the answer the context supports>"}.'
  ].filter((part) => part !== "").join("\n\n")

/**
 * The model's reply as a case: the JSON object in it (from its first `{` to its last `}`, so a
 * fenced or introduced object is read too) with `input` and `expected_output` non-empty strings;
 * else a string saying why it is not one.
 */
export const modelCase = (text: string): { readonly input: string; readonly expected_output: string } | string => {
  const start = text.indexOf("{")
  const end = text.lastIndexOf("}")
  if (start < 0 || end <= start) return "the reply holds no JSON object"
  let value: unknown
  try {
    value = JSON.parse(text.slice(start, end + 1))
  } catch {
    return "the reply's JSON object does not parse"
  }
  const fields = value !== null && typeof value === "object" && !Array.isArray(value) ? value as Record<string, unknown> : {}
  const { expected_output, input } = fields
  if (typeof input !== "string" || input.trim() === "") return "the reply has no input text"
  if (typeof expected_output !== "string" || expected_output.trim() === "") return "the reply has no expected_output text"
  return { input: input.trim(), expected_output: expected_output.trim() }
}
