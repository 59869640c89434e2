/**
 * A knowledge base's artifacts (a document an upload made, or one created by hand) and their
 * chunks; the chunks of a `LocalChunks` artifact may also be written one at a time by hand, each
 * embedded and indexed before the answer (docs/knowledge-bases.md "Chunks by hand").
 */
import { HttpApiBuilder } from "@effect/platform"
import { CurrentCaller, PlatformApi } from "@platform-kit/api"
import {
  ArtifactChunk,
  ArtifactChunkEntry,
  type ArtifactChunkWrite,
  BatchDeleteArtifactsResponse,
  ChunksStatus,
  Conflict,
  DeleteArtifactChunkResponse,
  DeleteArtifactResponse,
  KnowledgeBaseArtifact,
  KnowledgeBaseArtifactWithChunks,
  pageOf
} from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { accountsForRead, createdBy } from "../../auth/access.js"
import { freshIdentity, nowIso } from "../../platform/Ids.js"
import { ensureReference } from "../../sql/documents.js"
import { knowledgeBaseForRead, knowledgeBaseForWrite, notFound } from "../access.js"
import { dataSourceReference } from "../data-sources/DataSourcesRepo.js"
import { KnowledgeBasesRepo, type StoredKnowledgeBase } from "../KnowledgeBasesRepo.js"
import { KnowledgeBaseEmbedder } from "../retrieval/embedding.js"
import { signCode, toBytes } from "../retrieval/vectorIndex.js"
import { chunkMetadata } from "../uploads/runner.js"
import { ArtifactsRepo, inProgress } from "./ArtifactsRepo.js"
import { type ChunkRow, ChunksRepo, type NewChunk } from "./ChunksRepo.js"

const parsed = (json: string | null) => (json === null ? null : JSON.parse(json) as Record<string, unknown>)

/** A stored chunk as an artifact's chunk list answers it. */
const artifactChunk = (row: Omit<ChunkRow, "seq" | "embedding" | "code">) =>
  new ArtifactChunk({
    id: row.id,
    artifact_id: row.artifact_id,
    chunk_position: Number(row.chunk_position),
    status: row.status,
    text: row.text,
    metadata: parsed(row.metadata),
    status_reason: null,
    user_supplied_metadata: parsed(row.user_metadata),
    created_at: row.created_at
  })

/**
 * Why chunks cannot be written by hand into `artifact` now, if they cannot: only a `LocalChunks`
 * artifact's (a file's chunks are its content's, replaced when the file changes), and not while
 * an upload ingests it (its chunks would replace them).
 */
const refusal = (artifact: KnowledgeBaseArtifact) =>
  artifact.source !== "LocalChunks"
    ? Effect.fail(
      new Conflict({
        detail: `Artifact ${artifact.artifact_id} is a ${artifact.source} artifact: chunks are written by hand only into LocalChunks artifacts`
      })
    )
    : artifact.upload_id !== null && inProgress.includes(artifact.status)
    ? Effect.fail(
      new Conflict({
        detail: `Artifact ${artifact.artifact_id} is being ingested by upload ${artifact.upload_id} (${artifact.status}): write its chunks once the upload has ended`
      })
    )
    : Effect.void

export const ArtifactsHandlers = Effect.gen(function*() {
  const knowledgeBases = yield* KnowledgeBasesRepo
  const artifacts = yield* ArtifactsRepo
  const chunks = yield* ChunksRepo
  const embedder = yield* KnowledgeBaseEmbedder

  /** Artifact `artifactId` of knowledge base `knowledgeBaseId` (in `accountId`), else 404. */
  const artifactOf = (knowledgeBaseId: string, artifactId: string, accountId: string) =>
    Effect.flatMap(
      artifacts.findInKnowledgeBase(knowledgeBaseId, artifactId, [accountId]),
      Option.match({ onNone: () => Effect.fail(notFound("Artifact", artifactId)), onSome: Effect.succeed })
    )

  /** Chunk `chunkId` of artifact `artifactId`, else 404. */
  const chunkOf = (artifactId: string, chunkId: string) =>
    Effect.flatMap(
      chunks.findInArtifact(artifactId, chunkId),
      Option.match({ onNone: () => Effect.fail(notFound("Chunk", chunkId)), onSome: Effect.succeed })
    )

  /**
   * Changes the chunks of artifact `artifactId` by `change` in one transaction holding the base
   * (ChunksRepo.lockBase, the order every chunk write takes), the artifact read again there and
   * checked (`refusal`), its `chunks_status` counted anew after the change.
   */
  const changeChunks = <A, E>(
    kb: StoredKnowledgeBase,
    artifactId: string,
    change: (artifact: KnowledgeBaseArtifact) => Effect.Effect<A, E>
  ) =>
    artifacts.transaction(Effect.gen(function*() {
      yield* chunks.lockBase(kb.knowledge_base_id)
      const artifact = yield* artifactOf(kb.knowledge_base_id, artifactId, kb.account_id)
      yield* refusal(artifact)
      const result = yield* change(artifact)
      yield* artifacts.update(new KnowledgeBaseArtifact({
        ...artifact,
        chunks_status: new ChunksStatus(yield* chunks.countsOfArtifact(artifact.artifact_id)),
        updated_at: yield* nowIso
      }, true))
      return result
    }))

  /**
   * Writes chunk `id` (made at `created_at`) of the artifact as `payload` says: embedded first,
   * by the base's model (outside the transaction: a remote model may take its time), then stored
   * and indexed with the artifact's counts (`changeChunks`). `existing`: a put, whose chunk must
   * still be there.
   */
  const writeChunk = (
    kb: StoredKnowledgeBase,
    artifactId: string,
    chunk: { readonly id: string; readonly created_at: string; readonly existing: boolean },
    payload: ArtifactChunkWrite
  ) =>
    Effect.gen(function*() {
      const caller = yield* CurrentCaller
      const [vector] = yield* embedder.embedTexts(kb.embedding_config, kb.account_id, [payload.text], {
        account_id: kb.account_id,
        caller_id: caller.identityId,
        caller_type: caller.identityType
      })
      const own = payload.metadata === undefined || payload.metadata === null ? null : { ...payload.metadata }
      return yield* changeChunks(kb, artifactId, (artifact) =>
        Effect.gen(function*() {
          if (chunk.existing) yield* chunkOf(artifact.artifact_id, chunk.id)
          const row: NewChunk = {
            id: chunk.id,
            account_id: kb.account_id,
            knowledge_base_id: kb.knowledge_base_id,
            artifact_id: artifact.artifact_id,
            chunk_position: payload.chunk_position,
            status: "Completed",
            text: payload.text,
            metadata: JSON.stringify(chunkMetadata(artifact, payload.chunk_position, own)),
            user_metadata: own === null ? null : JSON.stringify(own),
            embedding: toBytes(vector!),
            code: toBytes(signCode(vector!)),
            created_at: chunk.created_at
          }
          yield* chunks.writeOne(kb.knowledge_base_id, row)
          return artifactChunk(row)
        }))
    })

  /** Deletes artifacts `ids` of `knowledgeBaseId` with their chunks, in one transaction. */
  const removeArtifacts = (knowledgeBaseId: string, ids: ReadonlyArray<string>) =>
    artifacts.transaction(Effect.zipRight(chunks.removeOfArtifacts(knowledgeBaseId, ids), artifacts.removeAll(ids)))

  return {
    createArtifact: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "createArtifact", ({ path, payload }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, payload.account_id)
        if (payload.knowledge_base_data_source_id !== undefined) {
          yield* ensureReference({
            ...dataSourceReference,
            id: payload.knowledge_base_data_source_id,
            accountIds: [kb.account_id]
          })
        }
        const [artifact_id, created_at] = yield* freshIdentity
        return yield* artifacts.insert(
          new KnowledgeBaseArtifact({
            artifact_id,
            knowledge_base_id: kb.knowledge_base_id,
            artifact_name: payload.artifact_name,
            artifact_uri: payload.artifact_uri ?? null,
            artifact_uri_public: null,
            source: payload.source ?? "LocalFile",
            status_reason: null,
            tags: payload.tags ?? {},
            chunks_status: new ChunksStatus({ chunks_completed: 0, chunks_failed: 0, chunks_pending: 0 }),
            upload_id: null,
            chunking_strategy_config: null,
            knowledge_base_data_source_id: payload.knowledge_base_data_source_id ?? null,
            content_modification_identifier: payload.content_modification_identifier ?? null,
            status: payload.status ?? "Pending",
            account_id: kb.account_id,
            ...(yield* createdBy),
            created_at,
            updated_at: created_at
          }, true)
        )
      })),
    getArtifact: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "getArtifact", ({ path, urlParams }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForRead(path.knowledge_base_id)
        const artifact = yield* artifactOf(kb.knowledge_base_id, path.artifact_id, kb.account_id)
        const rows = yield* chunks.ofArtifact(artifact.artifact_id, urlParams.status_filter)
        return new KnowledgeBaseArtifactWithChunks({
          ...artifact,
          chunks: rows.map((row) =>
            new ArtifactChunkEntry({
              chunk_id: row.id,
              chunk_position: Number(row.chunk_position),
              text: row.text,
              upload_status: row.status,
              metadata: parsed(row.metadata),
              status_reason: null,
              user_supplied_metadata: parsed(row.user_metadata)
            })
          )
        }, true)
      })),
    listArtifacts: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "listArtifacts", ({ path, urlParams }) =>
      Effect.gen(function*() {
        const accountIds = yield* accountsForRead(urlParams.account_id)
        const kb = yield* knowledgeBases.get(path.knowledge_base_id, accountIds)
        return yield* artifacts.pageOfKnowledgeBase(kb.knowledge_base_id, kb.account_id, pageOf(urlParams), urlParams.status)
      })),
    updateArtifact: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "updateArtifact", ({ path, payload }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
        const updated_at = yield* nowIso
        return yield* artifacts.transaction(Effect.gen(function*() {
          yield* chunks.lockBase(kb.knowledge_base_id)
          const current = yield* artifactOf(kb.knowledge_base_id, path.artifact_id, kb.account_id)
          if (payload.tags === undefined) return current
          const updated = yield* artifacts.update(new KnowledgeBaseArtifact({ ...current, tags: { ...payload.tags }, updated_at }, true))
          // the chunks' metadata carries the tags
          yield* chunks.remetadata(kb.knowledge_base_id, updated.artifact_id, (row) =>
            JSON.stringify(chunkMetadata(updated, Number(row.chunk_position), parsed(row.user_metadata))))
          return updated
        }))
      })),
    deleteArtifact: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "deleteArtifact", ({ path }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
        const artifact = yield* artifactOf(kb.knowledge_base_id, path.artifact_id, kb.account_id)
        yield* removeArtifacts(kb.knowledge_base_id, [artifact.artifact_id])
        return new DeleteArtifactResponse({ artifact_id: artifact.artifact_id, deleted: true })
      })),
    batchDeleteArtifacts: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "batchDeleteArtifacts", ({ path, payload }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
        const found = yield* Effect.forEach(
          [...new Set(payload.artifact_ids)],
          (id) => artifacts.findInKnowledgeBase(kb.knowledge_base_id, id, [kb.account_id])
        )
        const ids = found.flatMap((artifact) => Option.isSome(artifact) ? [artifact.value.artifact_id] : [])
        yield* removeArtifacts(kb.knowledge_base_id, ids)
        return new BatchDeleteArtifactsResponse({ artifact_ids: ids })
      })),
    createArtifactChunk: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "createArtifactChunk", ({ path, payload }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
        const artifact = yield* artifactOf(kb.knowledge_base_id, path.artifact_id, kb.account_id)
        // refused before the embedding is paid for (and again in the write's transaction)
        yield* refusal(artifact)
        const [id, created_at] = yield* freshIdentity
        return yield* writeChunk(kb, artifact.artifact_id, { id, created_at, existing: false }, payload)
      })),
    getArtifactChunk: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "getArtifactChunk", ({ path }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForRead(path.knowledge_base_id)
        const artifact = yield* artifactOf(kb.knowledge_base_id, path.artifact_id, kb.account_id)
        return artifactChunk(yield* chunkOf(artifact.artifact_id, path.chunk_id))
      })),
    putArtifactChunk: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "putArtifactChunk", ({ path, payload }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
        const artifact = yield* artifactOf(kb.knowledge_base_id, path.artifact_id, kb.account_id)
        const current = yield* chunkOf(artifact.artifact_id, path.chunk_id)
        yield* refusal(artifact)
        return yield* writeChunk(kb, artifact.artifact_id, { id: current.id, created_at: current.created_at, existing: true }, payload)
      })),
    deleteArtifactChunk: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "deleteArtifactChunk", ({ path }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBaseForWrite(path.knowledge_base_id, undefined)
        const artifact = yield* artifactOf(kb.knowledge_base_id, path.artifact_id, kb.account_id)
        yield* chunkOf(artifact.artifact_id, path.chunk_id)
        yield* changeChunks(kb, artifact.artifact_id, (artifact) =>
          Effect.flatMap(
            chunks.removeOne(kb.knowledge_base_id, artifact.artifact_id, path.chunk_id),
            (removed) => (removed ? Effect.void : Effect.fail(notFound("Chunk", path.chunk_id)))
          ))
        return new DeleteArtifactChunkResponse({ artifact_id: artifact.artifact_id, chunk_id: path.chunk_id, deleted: true })
      })),
    listArtifactChunks: HttpApiBuilder.handler(PlatformApi, "knowledgeBases", "listArtifactChunks", ({ path, urlParams }) =>
      Effect.gen(function*() {
        const kb = yield* knowledgeBases.get(path.knowledge_base_id, yield* accountsForRead(urlParams.account_id))
        const artifact = yield* artifactOf(kb.knowledge_base_id, path.artifact_id, kb.account_id)
        const { page, limit } = pageOf(urlParams)
        const found = yield* chunks.pageOfArtifact(artifact.artifact_id, { page, limit }, urlParams.chunk_status)
        return { items: found.rows.map(artifactChunk), total_item_count: found.total, current_page: page, items_per_page: limit }
      }))
  }
})
