/** The metrics of `metric` tasks and the item locators (docs/evaluations.md "Metrics", "Item locators"), by hand-worked values. */
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { fill, locate, resolve } from "../src/evaluations/locators.js"
import { computeMetric } from "../src/evaluations/metrics.js"

describe("metrics", () => {
  it("identical texts score 1, an empty one 0, case and punctuation aside", () => {
    for (const type of ["bleu", "meteor", "f1", "rouge1", "rouge2", "rougeL"] as const) {
      assert.strictEqual(computeMetric(type, "The cat sat on the mat.", "the cat sat on the mat"), type === "meteor" ? 1 - 0.5 / 216 : 1, type)
      assert.strictEqual(computeMetric(type, "", "the cat"), 0, type)
    }
    assert.closeTo(computeMetric("cosine_similarity", "the cat sat", "the cat sat"), 1, 1e-9)
  })

  it("bleu: the clipped precisions' geometric mean times the brevity penalty", () => {
    // "the cat" against six words: p1 = 2/2, p2 = 1/1, brevity e^(1 − 6/2)
    assert.closeTo(computeMetric("bleu", "the cat", "the cat sat on the mat"), Math.exp(-2), 1e-12)
    // "the the the" against "the cat": p1 = 1/3 (clipped), p2 and p3 without a match: 0.1/2, 0.1/1
    assert.closeTo(computeMetric("bleu", "the the the", "the cat"), Math.cbrt((1 / 3) * 0.05 * 0.1), 1e-12)
  })

  it("rouge, f1 and meteor", () => {
    // bigrams ab, bc against ab, bd: one shared of 2 and 2
    assert.strictEqual(computeMetric("rouge2", "a b c", "a b d"), 0.5)
    // longest common subsequence a c d: 3 of 4 and 4
    assert.strictEqual(computeMetric("rougeL", "a b c d", "a c d e"), 0.75)
    // unigrams: 2 shared of 3 and 4
    assert.closeTo(computeMetric("rouge1", "a b c", "a b d e"), 4 / 7, 1e-12)
    // articles left out: "cat" against "cat"
    assert.strictEqual(computeMetric("f1", "the cat", "a cat"), 1)
    // matches a, c (2 chunks: a | c): P = 2/2, R = 2/3, F = PR / (0.9P + 0.1R), penalty 0.5 (2/2)^3
    const p = 1
    const r = 2 / 3
    assert.closeTo(computeMetric("meteor", "a c", "a b c"), ((p * r) / (0.9 * p + 0.1 * r)) * 0.5, 1e-12)
    // similar texts are closer than unrelated ones
    assert.isAbove(
      computeMetric("cosine_similarity", "the capital of France is Paris", "Paris is the capital of France"),
      computeMetric("cosine_similarity", "the capital of France is Paris", "bananas are yellow")
    )
  })
})

describe("item locators", () => {
  const data = { question: "Why?", turns: [{ content: "hi" }], n: 3 }

  it("a whole locator is the value at its path; {{…}} fills text; a path naming nothing says so", () => {
    assert.deepStrictEqual(locate("item.turns.0.content", data), Either.right("hi"))
    assert.deepStrictEqual(locate("item.turns", data), Either.right([{ content: "hi" }]))
    assert.deepStrictEqual(fill("Q: {{item.question}} ({{ item.n }}) {{item.turns}}", data), Either.right("Q: Why? (3) [{\"content\":\"hi\"}]"))
    assert.deepStrictEqual(locate("item.answer", data), Either.left("item.answer is not in the item's data"))
    assert.deepStrictEqual(fill("{{item.turns.5}}", data), Either.left("item.turns.5 is not in the item's data"))
    // only the data's own fields: nothing inherited
    assert.deepStrictEqual(locate("item.constructor", data), Either.left("item.constructor is not in the item's data"))
    assert.deepStrictEqual(fill("{{item.question.length}}", data), Either.left("item.question.length is not in the item's data"))
  })

  it("resolve goes through arrays and objects; other values stay", () => {
    assert.deepStrictEqual(
      resolve({ model: "builtin/echo", messages: [{ role: "user", content: "item.question" }, { role: "user", content: "n={{item.n}}" }], temperature: 0.5 }, data),
      Either.right({ model: "builtin/echo", messages: [{ role: "user", content: "Why?" }, { role: "user", content: "n=3" }], temperature: 0.5 })
    )
    assert.deepStrictEqual(resolve("item.turns", data), Either.right([{ content: "hi" }]))
    assert.deepStrictEqual(resolve("plain text. item.question is not a locator here", data), Either.right("plain text. item.question is not a locator here"))
  })
})
