/**
 * The chunks' full-text index on SQLite (sql/dialect.ts `indexFullText`, migration 0036): chunks
 * written by `ChunksRepo.replaceOfArtifacts` are indexed once, by one statement, and found by word;
 * replaced chunks are no longer found; a file upgraded from before 0036 (an insert trigger indexed
 * each row) keeps what it indexed and indexes new chunks once.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect, Layer } from "effect"
import { ChunksRepo, type NewChunk } from "../src/knowledge-bases/artifacts/ChunksRepo.js"
import { migrateAll, migrateUpTo } from "./support/migrations.js"

const base = "5b7e0c1a-2d3f-4e5a-8b9c-0d1e2f3a4b5c"
const other = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"

const chunk = (knowledgeBaseId: string, artifactId: string, position: number, text: string): NewChunk => ({
  id: `${artifactId}-${position}`,
  account_id: "acc",
  knowledge_base_id: knowledgeBaseId,
  artifact_id: artifactId,
  chunk_position: position,
  status: "Completed",
  text,
  metadata: "{}",
  user_metadata: null,
  embedding: new Uint8Array(8),
  code: new Uint8Array(4),
  created_at: "2026-11-26T00:00:00.000Z"
})

/** The `seq`s of `knowledgeBaseId`'s chunks holding `word`, by the full-text index. */
const found = (chunks: ChunksRepo, knowledgeBaseId: string, word: string) =>
  Effect.map(chunks.lexical(knowledgeBaseId, [word], {}, 100), (rows) => rows.map((row) => row.key).sort((a, b) => a - b))

/** How many rows of the base the index holds (every row has the base's token). */
const indexed = (knowledgeBaseId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ n: number }>`SELECT COUNT(*) AS n FROM kb_chunks_fts WHERE kb_chunks_fts MATCH ${`part : "${knowledgeBaseId.replaceAll("-", "")}"`}`,
      (rows) => Number(rows[0]!.n)
    ))

const seqsOf = (artifactId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ seq: number }>`SELECT seq FROM kb_chunks WHERE artifact_id = ${artifactId} ORDER BY seq`, (rows) => rows.map((row) => Number(row.seq))))

const inMemory = Effect.provide(Layer.fresh(SqliteClient.layer({ filename: ":memory:" })))

describe("the chunks' full-text index (SQLite)", () => {
  it.effect("chunks written together are indexed once and found by word; replaced chunks are not found any more", () =>
    Effect.gen(function*() {
      yield* migrateAll
      const chunks = yield* Effect.provide(ChunksRepo, ChunksRepo.Default)
      const sql = yield* SqlClient.SqlClient
      yield* sql.withTransaction(chunks.replaceOfArtifacts(base, [
        { artifactId: "a1", chunks: [chunk(base, "a1", 0, "the zanzibar quokka"), chunk(base, "a1", 1, "tides and rivers")] },
        { artifactId: "a2", chunks: [chunk(base, "a2", 0, "a quokka again")] }
      ]))
      yield* sql.withTransaction(chunks.replaceOfArtifacts(other, [{ artifactId: "b1", chunks: [chunk(other, "b1", 0, "quokka elsewhere")] }]))
      const [a1, a2, b1] = [yield* seqsOf("a1"), yield* seqsOf("a2"), yield* seqsOf("b1")]
      assert.deepStrictEqual(yield* found(chunks, base, "quokka"), [a1[0]!, a2[0]!])
      assert.deepStrictEqual(yield* found(chunks, base, "tides"), [a1[1]!])
      assert.deepStrictEqual(yield* found(chunks, other, "quokka"), b1)
      assert.strictEqual(yield* indexed(base), 3)
      assert.strictEqual(yield* indexed(other), 1)

      // a1 read again: its old chunks and their index entries go, the new ones are found
      yield* sql.withTransaction(chunks.replaceOfArtifacts(base, [{ artifactId: "a1", chunks: [chunk(base, "a1", 0, "lanterns by the harbor")] }]))
      const [a1Again] = yield* seqsOf("a1")
      assert.deepStrictEqual(yield* found(chunks, base, "quokka"), a2)
      assert.deepStrictEqual(yield* found(chunks, base, "tides"), [])
      assert.deepStrictEqual(yield* found(chunks, base, "harbor"), [a1Again!])
      assert.strictEqual(yield* indexed(base), 2)
      assert.strictEqual(yield* indexed(other), 1)

      // the chunk with the greatest seq replaced: SQLite may draw its freed seq again, indexed all the same
      const [last] = yield* seqsOf("a1")
      yield* sql.withTransaction(chunks.replaceOfArtifacts(base, [{ artifactId: "a1", chunks: [chunk(base, "a1", 0, "valley forest")] }]))
      const [reused] = yield* seqsOf("a1")
      assert.strictEqual(reused, last)
      assert.deepStrictEqual(yield* found(chunks, base, "valley"), [reused!])
      assert.deepStrictEqual(yield* found(chunks, base, "harbor"), [])
    }).pipe(inMemory))

  it.effect("migration 0036 drops the insert trigger of a file made before it: what it indexed stays, new chunks are indexed once", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrateUpTo(35)
      const triggers = () =>
        Effect.map(sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'kb_chunks' ORDER BY name`, (rows) =>
          rows.map((row) => row.name))
      assert.deepStrictEqual(yield* triggers(), ["kb_chunks_fts_delete", "kb_chunks_fts_insert", "kb_chunks_fts_update"])
      // a chunk as the release before wrote it: indexed by the trigger
      yield* sql`INSERT INTO kb_chunks ${sql.insert({ ...chunk(base, "old", 0, "copper meadow") })}`
      yield* migrateAll
      assert.deepStrictEqual(yield* triggers(), ["kb_chunks_fts_delete", "kb_chunks_fts_update"])

      const chunks = yield* Effect.provide(ChunksRepo, ChunksRepo.Default)
      const old = yield* seqsOf("old")
      assert.deepStrictEqual(yield* found(chunks, base, "copper"), old)
      yield* sql.withTransaction(chunks.replaceOfArtifacts(base, [{ artifactId: "new", chunks: [chunk(base, "new", 0, "copper signal")] }]))
      const added = yield* seqsOf("new")
      assert.deepStrictEqual(yield* found(chunks, base, "copper"), [...old, ...added])
      assert.strictEqual(yield* indexed(base), 2)
      // the old artifact replaced: its trigger-indexed entry goes with its row
      yield* sql.withTransaction(chunks.replaceOfArtifacts(base, [{ artifactId: "old", chunks: [] }]))
      assert.deepStrictEqual(yield* found(chunks, base, "meadow"), [])
      assert.strictEqual(yield* indexed(base), 1)
    }).pipe(inMemory))
})
