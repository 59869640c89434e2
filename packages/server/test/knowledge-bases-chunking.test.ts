/**
 * The character chunker (knowledge-bases/uploads/chunking.ts, docs/knowledge-bases.md "Chunking") against
 * chunks worked out by hand: separator, size and overlap; a piece longer than a chunk; the
 * contract's defaults; and, over random texts, no chunk longer than `chunk_size` and no text lost.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { chunkCharacters, chunkTokens, loadTokenizer, preChunked, type Tokenizer } from "../src/knowledge-bases/uploads/chunking.js"

/** A tokenizer of one token per character: token counts a test can work out by hand. */
const characters: Tokenizer = {
  encode: (text) => [...text].map((c) => c.codePointAt(0)!),
  decode: (tokens) => String.fromCodePoint(...tokens)
}

const text4 = "aaaa\n\nbbbb"

describe("character chunking", () => {
  it("joins pieces up to chunk_size; the next chunk starts with the pieces that fit in chunk_overlap", () => {
    const text = "aaaa\n\nbbbb\n\ncccc\n\ndddd"
    assert.deepStrictEqual(chunkCharacters(text, { chunk_size: 10, chunk_overlap: 4 }), [
      "aaaa\n\nbbbb",
      "bbbb\n\ncccc",
      "cccc\n\ndddd"
    ])
    assert.deepStrictEqual(chunkCharacters(text, { chunk_size: 10, chunk_overlap: 0 }), ["aaaa\n\nbbbb", "cccc\n\ndddd"])
    // an overlap too small for a whole piece carries nothing over
    assert.deepStrictEqual(chunkCharacters(text, { chunk_size: 10, chunk_overlap: 3 }), ["aaaa\n\nbbbb", "cccc\n\ndddd"])
    // room for all of it: one chunk
    assert.deepStrictEqual(chunkCharacters(text, { chunk_size: 22, chunk_overlap: 0 }), [text])
  })

  it("splits at the separator given, and drops empty and blank pieces", () => {
    assert.deepStrictEqual(chunkCharacters("one. two. three", { separator: ". ", chunk_size: 8, chunk_overlap: 0 }), ["one. two", "three"])
    assert.deepStrictEqual(chunkCharacters("a\n\n\n\n  \n\nb", { chunk_size: 100, chunk_overlap: 0 }), ["a\n\nb"])
    assert.deepStrictEqual(chunkCharacters("", {}), [])
    assert.deepStrictEqual(chunkCharacters("\n\n \n\n", {}), [])
  })

  it("cuts a piece longer than chunk_size into windows chunk_size - chunk_overlap apart", () => {
    const long = "0123456789abcdefghijklmno" // 25 characters
    assert.deepStrictEqual(chunkCharacters(`ab\n\n${long}\n\ncd`, { chunk_size: 10, chunk_overlap: 3 }), [
      "ab",
      "0123456789",
      "789abcdefg",
      "efghijklmn",
      "lmno",
      "cd"
    ])
  })

  it("defaults: separator a blank line, 1,000 characters, 200 of overlap", () => {
    const chunks = chunkCharacters("x".repeat(2500))
    assert.deepStrictEqual(chunks.map((chunk) => chunk.length), [1000, 1000, 900])
    const paragraphs = Array.from({ length: 3 }, (_, i) => String(i).repeat(450))
    // 450 + 2 + 450 = 902 fit; the third starts a chunk with the second (450 > 200: no overlap)
    assert.deepStrictEqual(chunkCharacters(paragraphs.join("\n\n")), [`${paragraphs[0]}\n\n${paragraphs[1]}`, paragraphs[2]])
  })

  it("never makes a chunk longer than chunk_size, and every piece of the text is in a chunk", () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z ]{0,30}$/), { maxLength: 30 }),
        fc.integer({ min: 1, max: 40 }),
        fc.nat(),
        (pieces, size, overlapSeed) => {
          const overlap = overlapSeed % size
          const chunks = chunkCharacters(pieces.join("\n\n"), { chunk_size: size, chunk_overlap: overlap })
          assert.isTrue(chunks.every((chunk) => chunk.length <= size && chunk.length > 0))
          const joined = chunks.join("\n\n")
          for (const piece of pieces) {
            if (piece.trim() !== "" && piece.length <= size) assert.include(joined, piece)
          }
        }
      ),
      { numRuns: 500, seed: 17 }
    )
  })

  it("an overlap at or over the size given directly is held below it (the request's Schema refuses it with a 422)", () => {
    // the default overlap (200) over a size of 100: held at 99, windows one character apart, 151 of them
    const chunks = chunkCharacters("x".repeat(250), { chunk_size: 100 })
    assert.strictEqual(chunks.length, 151)
    assert.isTrue(chunks.every((chunk) => chunk.length === 100))
    assert.deepStrictEqual(chunkCharacters("x".repeat(250), { chunk_size: 100, chunk_overlap: 1_000 }), chunks)
    assert.deepStrictEqual(chunkTokens(text4, { max_chunk_size: 4, target_chunk_size: 4, chunk_overlap: 9 }, characters), ["aaaa", "bbbb"])
  })

  it("pre_chunked: the chunks as given, blank ones dropped", () => {
    assert.deepStrictEqual(preChunked(["one", " ", "", "two"]), ["one", "two"])
  })
})

describe("token chunking", () => {
  const text = "aaaa\n\nbbbb\n\ncccc\n\ndddd"

  it("closes a chunk at target_chunk_size tokens, never past max_chunk_size; the overlap is the last tokens", () => {
    assert.deepStrictEqual(chunkTokens(text, { target_chunk_size: 6, max_chunk_size: 10 }, characters), ["aaaa\n\nbbbb", "cccc\n\ndddd"])
    assert.deepStrictEqual(chunkTokens(text, { target_chunk_size: 4, max_chunk_size: 10 }, characters), ["aaaa", "bbbb", "cccc", "dddd"])
    // 4 + 2 + 4 = 10 tokens reach the target; the next starts with the last 2 tokens
    assert.deepStrictEqual(chunkTokens(text, { target_chunk_size: 6, max_chunk_size: 10, chunk_overlap: 2 }, characters), [
      "aaaa\n\nbbbb",
      "bb\n\ncccc",
      "cc\n\ndddd"
    ])
    // a target the next piece would overshoot: the chunk closes below it, at max
    assert.deepStrictEqual(chunkTokens(text, { target_chunk_size: 9, max_chunk_size: 9 }, characters), ["aaaa", "bbbb", "cccc", "dddd"])
    assert.deepStrictEqual(chunkTokens(`ab\n\n0123456789abcdefghijklmno`, { max_chunk_size: 10, target_chunk_size: 10, chunk_overlap: 3 }, characters), [
      "ab",
      "0123456789",
      "789abcdefg",
      "efghijklmn",
      "lmno"
    ])
  })

  it.effect("with cl100k_base: counts real tokens, no chunk over max_chunk_size", () =>
    Effect.gen(function*() {
      const tokenizer = yield* loadTokenizer
      assert.strictEqual(tokenizer.encode("hello world").length, 2)
      // special-token text is read as text
      assert.isAbove(tokenizer.encode("<|endoftext|>").length, 1)
      const paragraphs = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} says something about topic ${i % 7}, briefly.`)
      const chunks = chunkTokens(paragraphs.join("\n\n"), { target_chunk_size: 40, max_chunk_size: 60 }, tokenizer)
      assert.isAbove(chunks.length, 5)
      for (const chunk of chunks) assert.isAtMost(tokenizer.encode(chunk).length, 60, chunk)
      assert.deepStrictEqual(chunks.join("\n\n"), paragraphs.join("\n\n"))
    }))
})
