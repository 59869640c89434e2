/**
 * Retrieval: the chunks of a knowledge base closest to a query (docs/knowledge-bases.md
 * "Retrieval"). Two kinds of candidates, each from an index:
 * - lexical: the chunks holding the query's words, best first, from the database's own full-text
 *   index (SQLite FTS5's BM25, PostgreSQL's cover density: sql/dialect.ts `fullTextSearch`);
 * - semantic: the chunks whose embeddings' sign codes are nearest the query's (vectorIndex.ts).
 * A word that at least `commonAt(n)` chunks of the base hold is too common to search by (its
 * weight in BM25 is small, and ranking every chunk that holds it costs most of a query): the
 * lexical candidates are the chunks holding the query's rarer words; a query of common words only
 * has none, and scores by the embeddings alone. Each candidate is then scored: `0.5 × max(0, cosine(query, chunk))` plus `0.5 × its lexical
 * rank / the best lexical rank of the query` (0 for a chunk without the words); a query none of
 * whose words any chunk holds scores by the cosine alone. Scores lie in 0..1, best first.
 * Without `top_k` every chunk (that the filters keep) is scored.
 */
import { Chunk, ChunkList, type KnowledgeBaseQuery } from "@platform-kit/schema"
import { Effect } from "effect"
import { cosine } from "../../models/inference/builtin.js"
import type { UsageCaller } from "../../models/inference/metered.js"
import { type ChunkFilters, type ChunkRow, ChunksRepo } from "../artifacts/ChunksRepo.js"
import { KnowledgeBaseEmbedder } from "./embedding.js"
import type { StoredKnowledgeBase } from "../KnowledgeBasesRepo.js"
import { floatsOf, VectorIndexes } from "./vectorIndex.js"

/** The words of a query the full-text index is asked for: lower-cased runs of letters and digits, each once, at most 32. */
export const queryTerms = (query: string): Array<string> =>
  [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []))].slice(0, 32)

/** How many candidates each index gives for `topK` results. */
const candidatesFor = (topK: number) => Math.min(2_000, Math.max(30, topK * 5))

/** How many chunks hold a word too common to search by, when `n` candidates are wanted. */
const commonAt = (n: number) => Math.max(200, 2 * n)

const parsed = (json: string | null) => (json === null ? null : JSON.parse(json) as Record<string, unknown>)

/** A stored chunk as the API answers it, with its score. */
export const chunkOf = (row: ChunkRow, score: number, embedding: ReadonlyArray<number> | null) => {
  const metadata = parsed(row.metadata)
  return new Chunk({
    chunk_id: row.id,
    score,
    text: row.text,
    metadata,
    title: typeof metadata?.artifact_name === "string" ? metadata.artifact_name : null,
    attachment_url: null,
    user_supplied_metadata: parsed(row.user_metadata),
    embedding
  })
}

export class Retrieval extends Effect.Service<Retrieval>()("@platform-kit/server/Retrieval", {
  effect: Effect.gen(function*() {
    const chunks = yield* ChunksRepo
    const indexes = yield* VectorIndexes
    const embedder = yield* KnowledgeBaseEmbedder

    const query = (kb: StoredKnowledgeBase, request: KnowledgeBaseQuery, caller: UsageCaller) =>
      Effect.gen(function*() {
        const filters: ChunkFilters = { metadata: request.metadata_filters, wildcards: request.wildcard_filters }
        const filtered = request.metadata_filters !== undefined || request.wildcard_filters !== undefined
        const [vector] = yield* embedder.embedTexts(kb.embedding_config, kb.account_id, [request.query], caller)
        const terms = queryTerms(request.query)
        const topK = request.top_k
        const id = kb.knowledge_base_id
        const n = topK === undefined ? 0 : candidatesFor(topK)
        // without filters, the words' commonness is the base's, remembered by its vector index
        const searched = topK === undefined
          ? terms
          : filtered
          ? yield* chunks.rarerThan(id, terms, filters, commonAt(n))
          : yield* indexes.rarer(id, terms, commonAt(n), (unknown) => chunks.rarerThan(id, unknown, filters, commonAt(n)))
        const lexical = yield* chunks.lexical(id, searched, filters, topK === undefined ? 100_000 : n)
        let rows: ReadonlyArray<ChunkRow>
        if (topK === undefined) {
          rows = yield* chunks.allOf(id, filters)
        } else {
          const allowed = filtered ? yield* chunks.seqsOf(id, filters) : undefined
          const nearest = yield* indexes.nearest(id, vector!, n, allowed)
          rows = yield* chunks.bySeqs(id, [...new Set([...lexical.map((hit) => hit.key), ...nearest])], filters)
        }
        const ranks = new Map(lexical.map((hit) => [hit.key, hit.rank]))
        const best = lexical.reduce((max, hit) => Math.max(max, hit.rank), 0)
        const scored = rows.map((row) => {
          const embedding = floatsOf(row.embedding)
          const semantic = Math.max(0, cosine(vector!, embedding))
          const rank = ranks.get(Number(row.seq)) ?? 0
          const score = best > 0 ? 0.5 * semantic + 0.5 * Math.max(0, rank) / best : semantic
          return { row, embedding, score: Math.min(1, score) }
        })
        scored.sort((a, b) => b.score - a.score || Number(a.row.seq) - Number(b.row.seq))
        return new ChunkList({
          chunks: scored.slice(0, topK ?? scored.length).map(({ embedding, row, score }) =>
            chunkOf(row, score, request.include_embeddings === true ? Array.from(embedding) : null)
          )
        }, true)
      })

    return { query } as const
  }),
  dependencies: [ChunksRepo.Default, VectorIndexes.Default]
}) {}
