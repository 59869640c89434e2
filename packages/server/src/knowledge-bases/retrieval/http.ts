/** A knowledge base's query (retrieval.ts) and its chunks as a listing. */
import { HttpApiBuilder } from "@effect/platform"
import { CurrentCaller, PlatformApi } from "@platform-kit/api"
import { ChunkList } from "@platform-kit/schema"
import { Effect } from "effect"
import { ChunksRepo } from "../artifacts/ChunksRepo.js"
import { knowledgeBaseForRead } from "../access.js"
import { chunkOf, Retrieval } from "./retrieval.js"

export const RetrievalHandlers = Effect.gen(function*() {
  const retrieval = yield* Retrieval
  const chunks = yield* ChunksRepo
  return {
    query: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "query", ({ path, payload }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForRead(path.knowledge_base_id)
        const caller = yield* CurrentCaller
        return yield* retrieval.query(kb, payload, {
          account_id: kb.account_id,
          caller_id: caller.identityId,
          caller_type: caller.identityType
        })
      })),
    listChunks: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "listChunks", ({ path, urlParams }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForRead(path.knowledge_base_id)
        const rows = yield* chunks.list(kb.knowledge_base_id, {
          chunkId: urlParams.chunk_id,
          limit: urlParams.max_chunks ?? 10,
          filters: { metadata: urlParams.metadata_filters }
        })
        // a listing does not rank: every chunk scores 1
        return new ChunkList({ chunks: rows.map((row) => chunkOf(row, 1, null)) }, true)
      }))
  }
})
