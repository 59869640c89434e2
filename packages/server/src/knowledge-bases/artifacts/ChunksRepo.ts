/**
 * The chunks of knowledge bases (`kb_chunks`, migration 0033): written an artifact at a time (its
 * old chunks replaced in the same transaction) or one at a time by hand (`writeOne`, `removeOne`),
 * read by retrieval (full-text candidates, rows by `seq`, the sign codes the vector index loads)
 * and by the chunk lists. Every change of a base's
 * chunks moves its `chunk_generation` (a deletion also `chunk_deletions`) in the same transaction.
 */
import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import type { MetadataFilters, WildcardFilter } from "@platform-kit/schema"
import { Array as Arr, Effect, Option } from "effect"
import { makeRead } from "../../sql/reads.js"
import {
  type FullTextIndex,
  fullTextHolds,
  fullTextSearch,
  indexFullText,
  jsonFieldJson,
  jsonFieldText,
  wildcardMatch
} from "../../sql/dialect.js"

/** A chunk as stored. */
export interface ChunkRow {
  readonly seq: number
  readonly id: string
  readonly account_id: string
  readonly knowledge_base_id: string
  readonly artifact_id: string
  readonly chunk_position: number
  readonly status: "Pending" | "Completed" | "Failed"
  readonly text: string
  /** JSON text of the chunk's metadata. */
  readonly metadata: string
  /** JSON text of the metadata the upload gave the chunk, or null. */
  readonly user_metadata: string | null
  readonly embedding: Uint8Array
  readonly code: Uint8Array
  readonly created_at: string
}

/** A chunk to write (its `seq` is the database's). */
export type NewChunk = Omit<ChunkRow, "seq">

/** What narrows the chunks a query or a list reads: metadata equal to values, or matching wildcards. */
export interface ChunkFilters {
  readonly metadata?: MetadataFilters | undefined
  readonly wildcards?: Readonly<Record<string, WildcardFilter>> | undefined
}

/** The chunks' full-text index (migration 0033; sql/dialect.ts). */
const fullText: FullTextIndex = { table: "kb_chunks", key: "seq", textColumn: "text", partitionColumn: "knowledge_base_id" }

/** Columns a read of chunks answers (the embedding only when asked: it is the bulk of a row). */
const light = "seq, id, account_id, knowledge_base_id, artifact_id, chunk_position, status, text, metadata, user_metadata, created_at"

export class ChunksRepo extends Effect.Service<ChunksRepo>()("@platform-kit/server/ChunksRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = yield* makeRead

    /** The conditions of `filters`, AND-ed with the rest of a query's. */
    const filterConditions = (filters: ChunkFilters): Array<Statement.Fragment> => [
      ...Object.entries(filters.metadata ?? {}).map(([field, value]) => {
        const values = Array.isArray(value) ? value : [value]
        return values.length === 0 ? sql`1 = 0` : sql`${jsonFieldJson(sql, "metadata", field)} IN ${sql.in(values.map((v) => JSON.stringify(v)))}`
      }),
      ...Object.entries(filters.wildcards ?? {}).map(([field, filter]) =>
        wildcardMatch(sql, jsonFieldText(sql, "metadata", field), filter.value, filter.case_insensitive === true)
      )
    ]

    /** The full-text index of the base's chunks (sql/dialect.ts), those `filters` keep. */
    const textIndex = (knowledgeBaseId: string, filters: ChunkFilters) => ({
      ...fullText,
      partition: knowledgeBaseId,
      where: filterConditions(filters)
    })

    /**
     * Moves the base's generation (and its deletions, when chunks were deleted): its vector indexes
     * reload. The first statement of a change of the base's chunks: on PostgreSQL it locks the
     * base's row, so the changes of one base commit in the order their `seq`s were drawn, and a
     * vector index that loads the chunks after the last `seq` it holds misses none.
     */
    const bump = (knowledgeBaseId: string, deleted: boolean) =>
      deleted
        ? sql`UPDATE knowledge_bases SET chunk_generation = chunk_generation + 1, chunk_deletions = chunk_deletions + 1 WHERE id = ${knowledgeBaseId}`
        : sql`UPDATE knowledge_bases SET chunk_generation = chunk_generation + 1 WHERE id = ${knowledgeBaseId}`

    /**
     * Locks knowledge base `knowledgeBaseId` for a change of its chunks (moving its generation):
     * the first statement of every transaction that writes a base's chunks or artifacts in bulk,
     * so those of one base run one at a time, in one lock order, on PostgreSQL too.
     */
    const lockBase = (knowledgeBaseId: string) => Effect.orDie(bump(knowledgeBaseId, false))

    /**
     * Replaces the chunks of each artifact of `writes` by its `chunks`, inside the caller's
     * transaction after `lockBase`, with the artifacts' own writes: never two sets of one artifact.
     * The old chunks go first, then the new rows are inserted and indexed for full-text search
     * together, in one statement (sql/dialect.ts `indexFullText`).
     */
    const replaceOfArtifacts = (
      knowledgeBaseId: string,
      writes: ReadonlyArray<{ readonly artifactId: string; readonly chunks: ReadonlyArray<NewChunk> }>
    ) =>
      writes.length === 0 ? Effect.void : Effect.gen(function*() {
        const replaced = writes.map((write) => write.artifactId)
        const [{ n: old }] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM kb_chunks WHERE ${sql.in("artifact_id", replaced)}`
        if (Number(old) > 0) {
          yield* sql`UPDATE knowledge_bases SET chunk_deletions = chunk_deletions + 1 WHERE id = ${knowledgeBaseId}`
          yield* sql`DELETE FROM kb_chunks WHERE ${sql.in("artifact_id", replaced)}`
        }
        // after the deletes: a key they freed may be drawn again
        const [{ last }] = yield* sql<{ last: number | string }>`SELECT COALESCE(MAX(seq), 0) AS last FROM kb_chunks`
        const rows = writes.flatMap((write) => write.chunks)
        for (let i = 0; i < rows.length; i += 200) {
          yield* sql`INSERT INTO kb_chunks ${sql.insert(rows.slice(i, i + 200).map((chunk) => ({ ...chunk })))}`
        }
        if (rows.length > 0) yield* indexFullText(sql, fullText, Number(last))
      }).pipe(Effect.orDie)

    /** Deletes the chunks of `artifactIds` of `knowledgeBaseId` (inside the caller's transaction). */
    const removeOfArtifacts = (knowledgeBaseId: string, artifactIds: ReadonlyArray<string>) =>
      artifactIds.length === 0 ? Effect.void : Effect.gen(function*() {
        yield* bump(knowledgeBaseId, true)
        for (const some of Arr.chunksOf(artifactIds, 500)) yield* sql`DELETE FROM kb_chunks WHERE ${sql.in("artifact_id", some)}`
      }).pipe(Effect.orDie)

    /** Deletes every chunk of `knowledgeBaseId` (its deletion, inside the caller's transaction). */
    const removeOfKnowledgeBase = (knowledgeBaseId: string) => Effect.orDie(sql`DELETE FROM kb_chunks WHERE knowledge_base_id = ${knowledgeBaseId}`)

    /** The base's generation and deletions: what its vector index was loaded at. */
    const generation = (knowledgeBaseId: string) =>
      read(sql<{ chunk_generation: number; chunk_deletions: number }>`SELECT chunk_generation, chunk_deletions FROM knowledge_bases WHERE id = ${knowledgeBaseId}`)
        .pipe(
          Effect.map((rows) => ({ generation: Number(rows[0]?.chunk_generation ?? 0), deletions: Number(rows[0]?.chunk_deletions ?? 0) })),
          Effect.orDie
        )

    /** The sign codes of the base's chunks after `afterSeq`, in order: what a vector index loads. */
    const codesAfter = (knowledgeBaseId: string, afterSeq: number) =>
      read(sql<{ seq: number; code: Uint8Array }>`SELECT seq, code FROM kb_chunks WHERE knowledge_base_id = ${knowledgeBaseId} AND seq > ${afterSeq} ORDER BY seq`)
        .pipe(Effect.orDie)

    /**
     * The rows `seqs` of `knowledgeBaseId` that `filters` keep, with their embeddings. The list is
     * padded (with -1, no row's) to a power of two: a few statement texts, each prepared once.
     */
    const bySeqs = (knowledgeBaseId: string, seqs: ReadonlyArray<number>, filters: ChunkFilters) =>
      Effect.gen(function*() {
        const out: Array<ChunkRow> = []
        for (let i = 0; i < seqs.length; i += 512) {
          const some = seqs.slice(i, i + 512)
          const padded = [...some, ...Array.from({ length: 2 ** Math.ceil(Math.log2(Math.max(16, some.length))) - some.length }, () => -1)]
          out.push(...yield* read(sql<ChunkRow>`SELECT ${sql.literal(light)}, embedding, code FROM kb_chunks WHERE ${
            sql.and([sql`knowledge_base_id = ${knowledgeBaseId}`, sql.in("seq", padded), ...filterConditions(filters)])
          }`))
        }
        return out
      }).pipe(Effect.orDie)

    /** Every row of `knowledgeBaseId` that `filters` keep, with its embedding (a query without `top_k`). */
    const allOf = (knowledgeBaseId: string, filters: ChunkFilters) =>
      read(sql<ChunkRow>`SELECT ${sql.literal(light)}, embedding, code FROM kb_chunks WHERE ${
        sql.and([sql`knowledge_base_id = ${knowledgeBaseId}`, ...filterConditions(filters)])
      } ORDER BY seq`).pipe(Effect.orDie)

    /** The `seq`s of the base's chunks that `filters` keep (what narrows a vector search). */
    const seqsOf = (knowledgeBaseId: string, filters: ChunkFilters) =>
      read(sql<{ seq: number }>`SELECT seq FROM kb_chunks WHERE ${sql.and([sql`knowledge_base_id = ${knowledgeBaseId}`, ...filterConditions(filters)])}`)
        .pipe(Effect.map((rows) => new Set(rows.map((row) => Number(row.seq)))), Effect.orDie)

    /** The base's chunks holding any of `terms`, best first (full-text rank), at most `limit`. */
    const lexical = (knowledgeBaseId: string, terms: ReadonlyArray<string>, filters: ChunkFilters, limit: number) =>
      terms.length === 0 ? Effect.succeed([]) : read(fullTextSearch(sql, { ...textIndex(knowledgeBaseId, filters), terms, limit })).pipe(
        Effect.map((rows) => rows.map((row) => ({ key: Number(row.key), rank: Number(row.rank) }))),
        Effect.orDie
      )

    /** The terms of `terms` that fewer than `count` of the base's chunks (that `filters` keep) hold. */
    const rarerThan = (knowledgeBaseId: string, terms: ReadonlyArray<string>, filters: ChunkFilters, count: number) =>
      Effect.filter(terms, (term) =>
        Effect.map(
          read(fullTextHolds(sql, { ...textIndex(knowledgeBaseId, filters), term, count })),
          (rows) => rows.length === 0
        )).pipe(Effect.orDie)

    /** Chunk `chunkId` of `knowledgeBaseId`, or the first `limit` chunks that `filters` keep, in upload order. */
    const list = (knowledgeBaseId: string, options: { readonly chunkId?: string | undefined; readonly limit: number; readonly filters: ChunkFilters }) =>
      read(sql<ChunkRow>`SELECT ${sql.literal(light)} FROM kb_chunks WHERE ${
        sql.and([
          sql`knowledge_base_id = ${knowledgeBaseId}`,
          ...(options.chunkId === undefined ? [] : [sql`id = ${options.chunkId}`]),
          ...filterConditions(options.filters)
        ])
      } ORDER BY seq LIMIT ${options.limit}`).pipe(Effect.orDie)

    /** Every chunk of artifact `artifactId`, by position (in `status` when given). */
    const ofArtifact = (artifactId: string, status?: string) =>
      read(sql<ChunkRow>`SELECT ${sql.literal(light)} FROM kb_chunks WHERE ${
        sql.and([sql`artifact_id = ${artifactId}`, ...(status === undefined ? [] : [sql`status = ${status}`])])
      } ORDER BY chunk_position, seq`).pipe(Effect.orDie)

    /** One v4 page of artifact `artifactId`'s chunks by position, and their count. */
    const pageOfArtifact = (artifactId: string, page: { readonly page: number; readonly limit: number }, status?: string) =>
      Effect.gen(function*() {
        const where = sql.and([sql`artifact_id = ${artifactId}`, ...(status === undefined ? [] : [sql`status = ${status}`])])
        const offset = Math.min((page.page - 1) * page.limit, Number.MAX_SAFE_INTEGER)
        const rows = yield* read(sql<ChunkRow>`SELECT ${sql.literal(light)} FROM kb_chunks WHERE ${where} ORDER BY chunk_position, seq LIMIT ${page.limit} OFFSET ${offset}`)
        const [{ n }] = yield* read(sql<{ n: number }>`SELECT COUNT(*) AS n FROM kb_chunks WHERE ${where}`)
        return { rows, total: Number(n) }
      }).pipe(Effect.orDie)

    /** Chunk `chunkId` of artifact `artifactId`, if it has one. */
    const findInArtifact = (artifactId: string, chunkId: string) =>
      read(sql<ChunkRow>`SELECT ${sql.literal(light)} FROM kb_chunks WHERE artifact_id = ${artifactId} AND id = ${chunkId}`).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    /**
     * Writes one chunk written by hand, in place of the row of its id when there is one (a put),
     * inside the caller's transaction after `lockBase`: the old row goes (out of both indexes),
     * the new one is inserted and indexed for full-text search in the same transaction.
     */
    const writeOne = (knowledgeBaseId: string, chunk: NewChunk) =>
      Effect.gen(function*() {
        yield* removeOne(knowledgeBaseId, chunk.artifact_id, chunk.id)
        // after the delete: a key it freed may be drawn again
        const [{ last }] = yield* sql<{ last: number | string }>`SELECT COALESCE(MAX(seq), 0) AS last FROM kb_chunks`
        yield* sql`INSERT INTO kb_chunks ${sql.insert({ ...chunk })}`
        yield* indexFullText(sql, fullText, Number(last))
      }).pipe(Effect.orDie)

    /** Deletes chunk `chunkId` of `artifactId` if it is there (inside the caller's transaction after `lockBase`); answers whether it was. */
    const removeOne = (knowledgeBaseId: string, artifactId: string, chunkId: string) =>
      Effect.gen(function*() {
        const [{ n }] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM kb_chunks WHERE artifact_id = ${artifactId} AND id = ${chunkId}`
        if (Number(n) === 0) return false
        yield* sql`UPDATE knowledge_bases SET chunk_deletions = chunk_deletions + 1 WHERE id = ${knowledgeBaseId}`
        yield* sql`DELETE FROM kb_chunks WHERE artifact_id = ${artifactId} AND id = ${chunkId}`
        return true
      }).pipe(Effect.orDie)

    /** The per-status counts of artifact `artifactId`'s chunks (inside the caller's transaction, its own writes counted). */
    const countsOfArtifact = (artifactId: string) =>
      sql<{ status: string; n: number }>`SELECT status, COUNT(*) AS n FROM kb_chunks WHERE artifact_id = ${artifactId} GROUP BY status`.pipe(
        Effect.map((rows) => {
          const of = (status: string) => Number(rows.find((row) => row.status === status)?.n ?? 0)
          return { chunks_completed: of("Completed"), chunks_failed: of("Failed"), chunks_pending: of("Pending") }
        }),
        Effect.orDie
      )

    /** Sets the metadata of the chunks of `artifactId` (a tag change), each from its row. */
    const remetadata = (knowledgeBaseId: string, artifactId: string, metadataOf: (row: ChunkRow) => string) =>
      Effect.gen(function*() {
        yield* bump(knowledgeBaseId, false)
        const rows = yield* sql<ChunkRow>`SELECT ${sql.literal(light)} FROM kb_chunks WHERE artifact_id = ${artifactId}`
        for (const row of rows) yield* sql`UPDATE kb_chunks SET metadata = ${metadataOf(row)} WHERE seq = ${row.seq}`
      }).pipe(Effect.orDie)

    return {
      lockBase,
      replaceOfArtifacts,
      removeOfArtifacts,
      removeOfKnowledgeBase,
      generation,
      codesAfter,
      bySeqs,
      allOf,
      seqsOf,
      lexical,
      rarerThan,
      list,
      ofArtifact,
      pageOfArtifact,
      remetadata,
      findInArtifact,
      writeOne,
      removeOne,
      countsOfArtifact
    } as const
  })
}) {}
