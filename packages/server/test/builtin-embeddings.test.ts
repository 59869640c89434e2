/**
 * The built-in embeddings (models/inference/builtin.ts `embedVector`): its words read by scanning
 * the text's code units give exactly the vector of the words matched by `/[\p{L}\p{N}]+/gu` (what
 * it did before, kept here as the reference): a base's stored embeddings and the embeddings of
 * later queries must stay comparable.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { embeddingDimensions, embedVector } from "../src/models/inference/builtin.js"

const fnv = (prefix: string) => {
  let hash = 0x811c9dc5
  for (let i = 0; i < prefix.length; i++) hash = Math.imul(hash ^ prefix.charCodeAt(i), 0x01000193)
  return hash
}

/** `embedVector` as it was written with regular expressions. */
const reference = (text: string): Float64Array => {
  const vector = new Float64Array(embeddingDimensions)
  const lower = text.toLowerCase()
  for (const word of lower.match(/[\p{L}\p{N}]+/gu) ?? []) {
    let hash = fnv("w ")
    for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193)
    hash >>>= 0
    vector[hash & (embeddingDimensions - 1)]! += (hash & 0x80000000) === 0 ? 1 : -1
  }
  const spaced = ` ${lower.replace(/\s+/g, " ").trim()} `
  for (let i = 0; i + 3 <= spaced.length; i++) {
    let hash = Math.imul(fnv("c ") ^ spaced.charCodeAt(i), 0x01000193)
    hash = Math.imul(hash ^ spaced.charCodeAt(i + 1), 0x01000193)
    hash = Math.imul(hash ^ spaced.charCodeAt(i + 2), 0x01000193) >>> 0
    vector[hash & (embeddingDimensions - 1)]! += (hash & 0x80000000) === 0 ? 0.5 : -0.5
  }
  let norm = 0
  for (let i = 0; i < embeddingDimensions; i++) norm += vector[i]! * vector[i]!
  norm = Math.sqrt(norm)
  if (norm !== 0) for (let i = 0; i < embeddingDimensions; i++) vector[i]! /= norm
  return vector
}

const same = (text: string) => assert.deepStrictEqual(Array.from(embedVector(text)), Array.from(reference(text)), JSON.stringify(text))

describe("built-in embeddings", () => {
  it("are the regular expressions' vectors: words of letters and digits in any script, split by anything else", () => {
    for (
      const text of [
        "",
        "   ",
        "Hello, World! 42 times",
        "Ünïcödé wörds and ÉCOLE",
        "日本語のテキスト と 数字123",
        "emoji 😀 between𝒜𝒷words 𝟙𝟚",
        "combining e\u0301 marks",
        "lone \ud800 surrogate \udc00 here",
        "tabs\tand\nnew lines\r\n",
        "İstanbul ΣΊΣΥΦΟΣ"
      ]
    ) same(text)
    fc.assert(fc.property(fc.fullUnicodeString({ maxLength: 200 }), same), { numRuns: 500 })
    fc.assert(fc.property(fc.string16bits({ maxLength: 200 }), same), { numRuns: 500 })
    fc.assert(
      fc.property(fc.array(fc.constantFrom("word", "Wörd", "42", " ", "-", "日本", "😀", "\u0301", "\t", "ǅ", "Ⅻ"), { maxLength: 60 }), (parts) =>
        same(parts.join(""))),
      { numRuns: 500 }
    )
  })
})
