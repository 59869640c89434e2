/**
 * Ranking and synthesizing given chunks (docs/knowledge-bases.md "Ranking and synthesizing
 * chunks"): ROUGE figures against hand-computed values, the built-in reranker, a reranking
 * deployment (another account's is a 404), the compact synthesis on the built-in model and on an
 * upstream of the test's own on 127.0.0.1, and the 422s.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import { answerPrompt, refinePrompt } from "../src/chunks/synthesis.js"
import { cosine, embedVector } from "../src/models/inference/builtin.js"
import { issues, provision, request, TestServerLive } from "../src/testing.js"
import { type Caller, readyDeployment, readyDeploymentOf, registerModel } from "./support/models.js"
import { chatAnswer, upstream } from "./support/upstream.js"

const post = (caller: Caller, path: string, body: unknown) => request("POST", path, { key: caller.key, body })

const chunkKeys = ["attachment_url", "chunk_id", "embedding", "metadata", "score", "text", "title", "user_supplied_metadata"]

const query = "the cat sat on the mat"
// against the query, by hand (rouge_score's rules): A shares the, the, cat, on, mat (5 of 6 each
// side) and the bigrams "the cat", "on the", "the mat" (3 of 5); its LCS is "the cat on the mat"
const chunks = [
  { chunk_id: "b", score: 0.1, text: "A cat." }, // ROUGE-1 P 1/2, R 1/6, F 1/4
  { chunk_id: "a", score: 0.2, text: "The cat was on the mat", metadata: { page: 1 } }, // P = R = F = 5/6
  { chunk_id: "c", score: 0.3, text: "dogs bark loudly" }, // 0
  { chunk_id: "d", score: 0.4, text: "cat" } // P 1, R 1/6, F 2/7
]

const rank = (caller: Caller, rank_strategy: unknown, more: Record<string, unknown> = {}, given: unknown = chunks) =>
  post(caller, "/v4/chunks/rank", { query, rank_strategy, relevant_chunks: given, ...more })

/** The answer's chunk ids and scores, in order. */
const order = (body: any): Array<[string, number]> => body.relevant_chunks.map((chunk: any) => [chunk.chunk_id, chunk.score])

const assertScores = (actual: Array<[string, number]>, expected: Array<[string, number]>) => {
  assert.deepStrictEqual(actual.map(([id]) => id), expected.map(([id]) => id))
  actual.forEach(([, score], i) => assert.closeTo(score, expected[i]![1], 1e-12, actual[i]![0]))
}

/** A text of `words` words (one token each), each starting with `prefix`. */
const longText = (prefix: string, words: number) => Array.from({ length: words }, (_, i) => `${prefix}${i}`).join(" ")

layer(TestServerLive, { timeout: 60_000 })("chunks: rank and synthesis", (it) => {
  it.effect("rouge: ROUGE-1 by F, precision and recall, sorted best first, cut to top_k, every field present", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const byF = yield* rank(caller, { method: "rouge", params: { metric: "rouge1", score: "fmeasure" } })
      assert.strictEqual(byF.status, 200, JSON.stringify(byF.body))
      assertScores(order(byF.body), [["a", 5 / 6], ["d", 2 / 7], ["b", 1 / 4], ["c", 0]])
      // the given chunk, its score replaced, the fields it lacked null
      assert.deepStrictEqual(byF.body.relevant_chunks[0], {
        chunk_id: "a",
        score: byF.body.relevant_chunks[0].score,
        text: "The cat was on the mat",
        metadata: { page: 1 },
        title: null,
        attachment_url: null,
        user_supplied_metadata: null,
        embedding: null
      })
      for (const chunk of byF.body.relevant_chunks) assert.deepStrictEqual(Object.keys(chunk).sort(), chunkKeys)
      // the strategy's defaults: rouge1, fmeasure
      assert.deepStrictEqual(order((yield* rank(caller, { method: "rouge" })).body), order(byF.body))
      const byPrecision = yield* rank(caller, { method: "rouge", params: { metric: "rouge1", score: "precision" } }, { top_k: 3 })
      assertScores(order(byPrecision.body), [["d", 1], ["a", 5 / 6], ["b", 1 / 2]])
      // a tie (b and d recall 1/6) keeps the given order
      const byRecall = yield* rank(caller, { method: "rouge", params: { score: "recall" } })
      assertScores(order(byRecall.body), [["a", 5 / 6], ["b", 1 / 6], ["d", 1 / 6], ["c", 0]])
    }))

  it.effect("rouge: ROUGE-2, ROUGE-L and ROUGE-Lsum figures", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const rouge2 = yield* rank(caller, { method: "rouge", params: { metric: "rouge2" } })
      assertScores(order(rouge2.body), [["a", 3 / 5], ["b", 0], ["c", 0], ["d", 0]])
      const rougeL = yield* rank(caller, { method: "rouge", params: { metric: "rougeL", score: "recall" } })
      assertScores(order(rougeL.body), [["a", 5 / 6], ["b", 1 / 6], ["d", 1 / 6], ["c", 0]])
      // the same words in two lines, swapped: ROUGE-L finds one half ("the cat sat": 3 of 6), ROUGE-Lsum
      // unites each line's LCS with the query and finds all six
      const swapped = [{ chunk_id: "s", score: 0, text: "on the mat\nthe cat sat" }]
      const asL = yield* rank(caller, { method: "rouge", params: { metric: "rougeL" } }, {}, swapped)
      assertScores(order(asL.body), [["s", 1 / 2]])
      const asLsum = yield* rank(caller, { method: "rouge", params: { metric: "rougeLsum" } }, {}, swapped)
      assertScores(order(asLsum.body), [["s", 1]])
      // a duplicated line is matched once: the query's "the" twice, the chunk's six tokens
      const repeated = [{ chunk_id: "r", score: 0, text: "the cat\nthe cat\nmat mat" }]
      const lsum = yield* rank(caller, { method: "rouge", params: { metric: "rougeLsum", score: "precision" } }, {}, repeated)
      // hits: the, cat (line 1; line 2 adds no new index), mat: 3 of the chunk's 6 tokens
      assertScores(order(lsum.body), [["r", 3 / 6]])
    }))

  it.effect("cross_encoder (also a strategy without method): the built-in reranker's scores, best first", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const expected = chunks.map((chunk): [string, number] => [chunk.chunk_id, cosine(embedVector(query), embedVector(chunk.text))])
        .sort((a, b) => b[1] - a[1])
      const ranked = yield* rank(caller, { method: "cross_encoder", params: { cross_encoder_model: "cross-encoder/ms-marco-MiniLM-L-12-v2" } })
      assert.strictEqual(ranked.status, 200, JSON.stringify(ranked.body))
      assertScores(order(ranked.body), expected)
      assert.strictEqual(order(ranked.body)[0]![0], "a")
      const typed = yield* caller.client.chunks.rank({ payload: { query, rank_strategy: {}, relevant_chunks: chunks, top_k: 2 } })
      assertScores(typed.relevant_chunks.map((chunk) => [chunk.chunk_id, chunk.score]), expected.slice(0, 2))
      const none = yield* rank(caller, {}, {}, [])
      assert.deepStrictEqual([none.status, none.body], [200, { relevant_chunks: [] }])
    }))

  it.effect("model: a reranking deployment of the account or a model by name; another account's deployment is a 404", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const deployment = yield* readyDeployment(caller, { provider: "builtin" })
      const expected = chunks.map((chunk): [string, number] => [chunk.chunk_id, cosine(embedVector(query), embedVector(chunk.text))])
        .sort((a, b) => b[1] - a[1])
      const byDeployment = yield* rank(caller, { method: "model", params: { model_deployment_id: deployment, model_params: { x: 1 } } }, { top_k: 1 })
      assert.strictEqual(byDeployment.status, 200, JSON.stringify(byDeployment.body))
      assertScores(order(byDeployment.body), expected.slice(0, 1))
      const byName = yield* rank(caller, { method: "model", params: { base_model_name: "builtin" } })
      assertScores(order(byName.body), expected)
      const other = yield* provision()
      const foreign = yield* rank(other, { method: "model", params: { model_deployment_id: deployment } })
      assert.deepStrictEqual([foreign.status, foreign.body.detail], [404, `Model deployment ${deployment} not found`])
      const unknown = yield* rank(caller, { method: "model", params: { base_model_name: "no-such-model" } })
      assert.strictEqual(unknown.status, 404)
      const neither = yield* rank(caller, { method: "model" })
      assert.deepStrictEqual([neither.status, issues(neither)], [422, [{ loc: ["body", "rank_strategy", "params"], type: "missing" }]])
      // the account named must be the caller's
      const notTheirs = yield* rank(other, { method: "rouge" }, { account_id: caller.accountId })
      assert.strictEqual(notTheirs.status, 403)
    }))

  it.effect("rank: bad input is a 422", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      for (
        const body of [
          { rank_strategy: {}, relevant_chunks: chunks },
          { query, rank_strategy: { method: "rouge", params: { metric: "rougeX" } }, relevant_chunks: chunks },
          { query, rank_strategy: { method: "rouge", params: { score: "f1" } }, relevant_chunks: chunks },
          { query, rank_strategy: { method: "bm25" }, relevant_chunks: chunks },
          { query, rank_strategy: {}, relevant_chunks: chunks, top_k: 0 },
          { query, rank_strategy: {}, relevant_chunks: [{ score: 1, text: "x" }] },
          { query, relevant_chunks: chunks }
        ]
      ) {
        const response = yield* post(caller, "/v4/chunks/rank", body)
        assert.strictEqual(response.status, 422, JSON.stringify(body))
        assert.isArray(response.body.detail)
      }
    }))

  it.effect("synthesis on the built-in model: one batch answers (the built-in model replies with its prompt), source nodes with id_", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const given = [
        { chunk_id: "one", score: 0.9, text: "Cats purr.", metadata: { page: 3 }, embedding: [0.5, 0.5] },
        { chunk_id: "two", score: 0.7, text: "Dogs bark." }
      ]
      const response = yield* post(caller, "/v4/chunks/synthesis", { query: "What do cats do?", chunks: given })
      assert.strictEqual(response.status, 200, JSON.stringify(response.body))
      assert.strictEqual(response.body.response, answerPrompt("What do cats do?", "Cats purr.\n\nDogs bark."))
      assert.deepStrictEqual(response.body.metadata, { one: { page: 3 }, two: {} })
      assert.deepStrictEqual(response.body.source_nodes[0], {
        node: {
          id_: "one",
          text: "Cats purr.",
          embedding: [0.5, 0.5],
          start_char_idx: null,
          end_char_idx: null,
          extra_info: { page: 3 },
          hash: Crypto.createHash("sha256").update("Cats purr.").digest("hex"),
          relationships: {}
        },
        score: 0.9
      })
      assert.deepStrictEqual(response.body.source_nodes.map((node: any) => [node.node.id_, node.score]), [["one", 0.9], ["two", 0.7]])
      // a text over the 3,000-token budget is cut into pieces: the second refines the built-in's first answer
      const long = longText("w", 4_000)
      const cut = yield* post(caller, "/v4/chunks/synthesis", { query: "q", chunks: [{ chunk_id: "l", score: 1, text: long }] })
      const [head, tail] = [longText("w", 3_000), long.slice(longText("w", 3_000).length + 1)]
      assert.strictEqual(cut.body.response, refinePrompt("q", answerPrompt("q", head), tail))
      const empty = yield* post(caller, "/v4/chunks/synthesis", { query: "anything?", chunks: [] })
      assert.deepStrictEqual([empty.status, empty.body], [200, { response: "", metadata: {}, source_nodes: [] }])
      const invalid = yield* post(caller, "/v4/chunks/synthesis", { query: "x", chunks: [{ chunk_id: "a", text: "no score" }] })
      assert.deepStrictEqual([invalid.status, issues(invalid)], [422, [{ loc: ["body", "chunks", 0, "score"], type: "missing" }]])
    }))

  it.scoped("synthesis through the account's chunk-synthesis model, an upstream on 127.0.0.1: answer, then refine over the next batch", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const server = yield* upstream((_, count) => ({ status: 200, body: chatAnswer(`answer ${count}`) }))
      const model = yield* registerModel(caller, "chunk-synthesis")
      yield* readyDeploymentOf(caller, model, { provider: "openai_compatible", base_url: server.url, model: "m" })
      // 2,000 tokens each: two batches of the 3,000-token budget
      const first = longText("alpha", 2_000)
      const second = longText("beta", 2_000)
      const response = yield* post(caller, "/v4/chunks/synthesis", {
        query: "What is there?",
        chunks: [{ chunk_id: "1", score: 1, text: first }, { chunk_id: "2", score: 0.5, text: second }]
      })
      assert.strictEqual(response.status, 200, JSON.stringify(response.body))
      assert.strictEqual(response.body.response, "answer 2")
      assert.deepStrictEqual(server.received.map((received) => received.body.messages), [
        [{ role: "user", content: answerPrompt("What is there?", first) }],
        [{ role: "user", content: refinePrompt("What is there?", "answer 1", second) }]
      ])
      // another account has no such model: the built-in model answers it
      const other = yield* provision()
      const builtin = yield* post(other, "/v4/chunks/synthesis", { query: "q", chunks: [{ chunk_id: "1", score: 1, text: "t" }] })
      assert.deepStrictEqual([builtin.status, builtin.body.response, server.received.length], [200, answerPrompt("q", "t"), 2])
    }))
})
