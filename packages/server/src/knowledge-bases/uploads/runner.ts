/**
 * What an upload does, step by step (docs/knowledge-bases.md "Uploads"); the workflow
 * (workflow.ts) runs the steps on the engine:
 *
 * 1. `plan`: lists what the upload reads (the files of a folder of the object store, or the one
 *    artifact of chunks given), hashes each file whose artifact was completed (SHA-256; a new
 *    file is hashed when its batch reads it), and in one transaction writes the
 *    artifact of each file to read `Pending` (a new one, or the file's artifact of an earlier
 *    upload), of each file that cannot be read `Failed` with the reason, leaves a file whose
 *    content is unchanged since its artifact was completed as it is (unless `force_reupload`),
 *    and, for an upload of a stored data source, deletes the artifacts (and chunks) of the files
 *    no longer there. Answers the names to ingest.
 * 2. `ingest`, a batch of names at a time: the batch's artifacts `Chunking`; each file read, its
 *    text extracted and chunked as the upload says; the batch's artifacts `Embedding` (their
 *    chunks pending); their chunks embedded together, then written in place of each artifact's
 *    old ones (`Completed`) in one transaction, in one write of the batch's chunks. A file that
 *    fails is its artifact `Failed` with the reason; the others go on.
 * 3. `finish`: the upload `Completed` (or `Failed` when every artifact failed), with a summary.
 *
 * Every write checks, under the upload's row lock, that the upload is still `Running` (a cancel
 * stops it) and that the artifact is still this upload's (a later upload of the same file takes
 * it over): a step repeated after a crash writes nothing twice, and no artifact ever has two sets
 * of chunks. Every transaction that writes chunks or artifacts in bulk locks the knowledge base
 * first (ChunksRepo.lockBase): one lock order, no deadlock between uploads on PostgreSQL.
 */
import {
  type ArtifactSource,
  type ArtifactStatus,
  ChunksStatus,
  KnowledgeBaseArtifact,
  type UploadDataSourceConfig
} from "@platform-kit/schema"
import { Array as Arr, Cause, Data, Effect, Either, Option } from "effect"
import * as Crypto from "node:crypto"
import type { LifecycleEntity } from "../../engine/Lifecycles.js"
import { Ids, nowIso } from "../../platform/Ids.js"
import { ObjectStore, type ObjectStoreError } from "../../platform/ObjectStore.js"
import { ArtifactsRepo, inProgress } from "../artifacts/ArtifactsRepo.js"
import { chunkCharacters, chunkTokens, loadTokenizer, preChunked, type TokenChunking } from "./chunking.js"
import { ChunksRepo, type NewChunk } from "../artifacts/ChunksRepo.js"
import { KnowledgeBaseEmbedder } from "../retrieval/embedding.js"
import { extractText } from "./extract.js"
import { KnowledgeBasesRepo, type StoredKnowledgeBase } from "../KnowledgeBasesRepo.js"
import { StoredUpload, UploadsRepo } from "./UploadsRepo.js"
import { signCode, toBytes } from "../retrieval/vectorIndex.js"

/** The folder of the object store a config names. */
const folderOf = (config: UploadDataSourceConfig) =>
  config.source === "OBJECT_STORE"
    ? { bucket: config.object_store_bucket, prefix: config.object_store_prefix }
    : config.source === "S3"
    ? { bucket: config.s3_bucket, prefix: config.s3_prefix }
    : undefined

/** The URI of object `name` of `bucket`: the object store stands in for S3. */
export const objectUri = (bucket: string, name: string) => `s3://${bucket}/${name}`

/** The URI of a file posted with an upload (`upload_files`): a later file of that name replaces its artifact. */
export const postedUri = (name: string) => `local://${name}`

/** Why a file of an upload cannot be read: the reason its artifact (or the upload) fails with. */
class Unreadable extends Data.TaggedError("Unreadable")<{ readonly reason: string }> {}

/** A failure of the object store as an upload states it: the error's message. */
const unreadable = (error: ObjectStoreError) => new Unreadable({ reason: error.message })

/** The files an upload reads, wherever they are (`filesOf`). */
interface Files {
  readonly source: ArtifactSource
  readonly uri: (name: string) => string
  readonly list: Effect.Effect<{
    readonly objects: ReadonlyArray<{ readonly name: string; readonly size: number }>
    readonly refused: ReadonlyArray<{ readonly name: string; readonly reason: string }>
  }, Unreadable>
  readonly read: (names: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Either.Either<Uint8Array, Unreadable>>, Unreadable>
}

const sha256 = (bytes: Uint8Array) => Crypto.createHash("sha256").update(bytes).digest("hex")

/** Files a batch (one step of the workflow) ingests at most, and their bytes at most (a larger file alone). */
const batchFiles = 16
const batchBytes = 1024 * 1024

/** `files` in batches of at most `batchFiles` files and `batchBytes` bytes (a file over that alone). */
const batches = (files: ReadonlyArray<{ readonly name: string; readonly size: number }>): Array<Array<string>> => {
  const out: Array<Array<string>> = []
  let bytes = 0
  for (const file of files) {
    const last = out.at(-1)
    if (last === undefined || last.length >= batchFiles || bytes + file.size > batchBytes) {
      out.push([file.name])
      bytes = file.size
    } else {
      last.push(file.name)
      bytes += file.size
    }
  }
  return out
}

const noChunks = new ChunksStatus({ chunks_completed: 0, chunks_failed: 0, chunks_pending: 0 })

/** What a file (or a chunk set) of an upload is, once planned. */
interface Planned {
  readonly name: string
  readonly uri: string
  readonly source: ArtifactSource
}

/** The texts of `text` chunked by the upload's strategy, or why not. */
const chunksOf = (text: string, upload: StoredUpload) =>
  Effect.gen(function*() {
    const config = upload.chunking_strategy_config
    if (config === null || config.strategy === "character") return Either.right(chunkCharacters(text, config ?? {}))
    if (config.strategy === "token") return Either.right(chunkTokens(text, config as TokenChunking, yield* loadTokenizer))
    if (config.strategy === "pre_chunked") return Either.right(preChunked([text]))
    return Either.left(`The ${config.strategy} chunking strategy is not served by this kit: use character, token or pre_chunked`)
  })

export class UploadRunner extends Effect.Service<UploadRunner>()("@platform-kit/server/UploadRunner", {
  effect: Effect.gen(function*() {
    const uploads = yield* UploadsRepo
    const artifacts = yield* ArtifactsRepo
    const chunks = yield* ChunksRepo
    const knowledgeBases = yield* KnowledgeBasesRepo
    const store = yield* ObjectStore
    const embedder = yield* KnowledgeBaseEmbedder
    const ids = yield* Ids

    /**
     * Where an upload's files are: a folder of the object store (its data source's or config's),
     * or the files posted with it (`upload_files`); none for chunks given in the body.
     */
    const filesOf = (upload: StoredUpload): Files | undefined => {
      const config = upload.data_source_config
      const folder = folderOf(config)
      if (folder !== undefined) {
        return {
          source: "S3",
          uri: (name) => objectUri(folder.bucket, name),
          list: Effect.mapError(store.list(folder.bucket, folder.prefix), unreadable),
          read: (names) =>
            store.readAll(folder.bucket, names).pipe(
              Effect.map((results) => results.map(Either.mapLeft(unreadable))),
              Effect.mapError(unreadable)
            )
        }
      }
      if (config.source !== "LocalFile") return undefined
      return {
        source: "LocalFile",
        uri: postedUri,
        list: Effect.map(uploads.fileSizes(upload.id), (objects) => ({ objects, refused: [] })),
        read: (names) =>
          Effect.map(uploads.readFiles(upload.id, names), (found) =>
            found.map((content, i) =>
              Option.match(content, {
                onNone: () => Either.left(new Unreadable({ reason: `File ${names[i]} is no longer there` })),
                onSome: (bytes) => Either.right(Uint8Array.from(bytes))
              })
            ))
      }
    }

    /** The upload, when it is still running, and its knowledge base. */
    const runningUpload = (entity: LifecycleEntity) =>
      Effect.gen(function*() {
        const upload = yield* uploads.findById(entity.id, [entity.account_id])
        if (Option.isNone(upload) || upload.value.status !== "Running") return Option.none()
        const kb = yield* knowledgeBases.findById(upload.value.knowledge_base_id, [entity.account_id])
        // its base deleted just as it was made (a delete takes its uploads with it, in one transaction)
        if (Option.isNone(kb)) yield* end(entity, "Failed", "Its knowledge base was deleted")
        return Option.map(kb, (kb) => ({ upload: upload.value, kb }))
      })

    /** The upload ended: its status and reason (when it still runs). */
    const end = (entity: LifecycleEntity, status: "Completed" | "Failed", status_reason: string) =>
      uploads.transaction(Effect.gen(function*() {
        const upload = yield* uploads.findById(entity.id, [entity.account_id])
        if (Option.isNone(upload) || upload.value.status !== "Running") return
        yield* uploads.update(new StoredUpload({ ...upload.value, status, status_reason, updated_at: yield* nowIso }, true))
      }))

    /** The tags an upload gives the artifact of `name` (none: it keeps its own). */
    const tagsFor = (upload: StoredUpload, name: string): Record<string, unknown> | undefined => {
      const tagging = upload.tagging_information
      if (tagging === null) return undefined
      if (tagging.type === "all") return { ...tagging.tags_to_apply }
      const own = tagging.tags_to_apply[name]
      return typeof own === "object" && own !== null && !Array.isArray(own) ? { ...own as Record<string, unknown> } : {}
    }

    /**
     * Writes the artifact of `file` as this upload's, in `status` (`existing`, the URI's row read in
     * the same transaction, when it has one); inside the plan's transaction.
     */
    const claim = (
      kb: StoredKnowledgeBase,
      upload: StoredUpload,
      file: Planned,
      existing: Option.Option<KnowledgeBaseArtifact>,
      status: ArtifactStatus,
      status_reason: string | null
    ) =>
      Effect.gen(function*() {
        const updated_at = yield* nowIso
        const fields = {
          artifact_name: file.name,
          source: file.source,
          status,
          status_reason,
          upload_id: upload.id,
          chunking_strategy_config: upload.chunking_strategy_config,
          updated_at
        }
        if (Option.isSome(existing)) {
          const tags = tagsFor(upload, file.name) ?? existing.value.tags
          return yield* artifacts.update(
            new KnowledgeBaseArtifact({
              ...existing.value,
              ...fields,
              tags,
              knowledge_base_data_source_id: upload.data_source_id ?? existing.value.knowledge_base_data_source_id
            }, true)
          )
        }
        return yield* artifacts.insert(
          new KnowledgeBaseArtifact({
            ...fields,
            artifact_id: yield* ids.make,
            knowledge_base_id: kb.knowledge_base_id,
            artifact_uri: file.uri,
            artifact_uri_public: null,
            tags: tagsFor(upload, file.name) ?? {},
            chunks_status: noChunks,
            knowledge_base_data_source_id: upload.data_source_id,
            content_modification_identifier: null,
            account_id: kb.account_id,
            created_by_user_id: upload.created_by_user_id,
            created_by_identity_type: upload.created_by_identity_type,
            created_at: updated_at
          }, true)
        )
      })

    /** Runs `write` in one transaction holding the base, if the upload still runs; answers whether it ran. */
    const whileRunning = <A>(kb: StoredKnowledgeBase, entity: LifecycleEntity, write: (upload: StoredUpload) => Effect.Effect<A>) =>
      uploads.transaction(Effect.gen(function*() {
        yield* chunks.lockBase(kb.knowledge_base_id)
        const upload = yield* uploads.findById(entity.id, [entity.account_id])
        if (Option.isNone(upload) || upload.value.status !== "Running") return Option.none<A>()
        return Option.some(yield* write(upload.value))
      }))

    /** Step 1 (see the module comment): the names to ingest, in batches. */
    const plan = (entity: LifecycleEntity): Effect.Effect<ReadonlyArray<ReadonlyArray<string>>> =>
      Effect.gen(function*() {
        const found = yield* runningUpload(entity)
        if (Option.isNone(found)) return []
        const { kb, upload } = found.value
        const config = upload.data_source_config
        if (config.source === "LocalChunks") {
          const file: Planned = { name: config.artifact_name, uri: config.artifact_uri, source: "LocalChunks" }
          const planned = yield* whileRunning(kb, entity, (upload) =>
            Effect.gen(function*() {
              const existing = yield* artifacts.findByUri(kb.knowledge_base_id, kb.account_id, file.uri)
              if (config.deduplication_strategy === "Fail" && Option.isSome(existing) && existing.value.upload_id !== upload.id) {
                yield* uploads.update(new StoredUpload({
                  ...upload,
                  status: "Failed",
                  status_reason: `An artifact with URI ${file.uri} exists already (deduplication_strategy Fail)`,
                  updated_at: yield* nowIso
                }, true))
                return []
              }
              yield* claim(kb, upload, file, existing, "Pending", null)
              return [[file.uri]]
            }))
          return Option.getOrElse(planned, () => [])
        }
        const files = filesOf(upload)
        if (files === undefined) {
          yield* end(entity, "Failed", `A ${config.source} upload has no files to read`)
          return []
        }
        const listed = yield* Effect.either(files.list)
        if (Either.isLeft(listed)) {
          yield* end(entity, "Failed", listed.left.reason)
          return []
        }
        // the content hash of each file whose artifact was completed (or why it cannot be read),
        // before the transaction: a new or unfinished file is read once, by its batch
        const completed = new Set(
          (yield* artifacts.ofUris(kb.knowledge_base_id, kb.account_id, listed.right.objects.map((object) => files.uri(object.name))))
            .filter((artifact) => artifact.status === "Completed")
            .map((artifact) => artifact.artifact_uri)
        )
        const toHash = upload.force_reupload ? [] : listed.right.objects.filter((object) => completed.has(files.uri(object.name)))
        // 16 files at a time, only their hashes kept
        const hashes = new Map<string, Either.Either<string, Unreadable>>()
        for (const group of Arr.chunksOf(toHash.map((object) => object.name), 16)) {
          const contents = yield* Effect.either(files.read(group))
          if (Either.isLeft(contents)) {
            yield* end(entity, "Failed", contents.left.reason)
            return []
          }
          group.forEach((name, i) => hashes.set(name, Either.map(contents.right[i]!, sha256)))
        }
        const planned = yield* whileRunning(kb, entity, (upload) =>
          Effect.gen(function*() {
            // the listed files' artifacts as they stand now, in one read
            const listedUris = [...listed.right.objects, ...listed.right.refused].map((object) => files.uri(object.name))
            const existingOf = new Map(
              (yield* artifacts.ofUris(kb.knowledge_base_id, kb.account_id, listedUris)).map((artifact) => [artifact.artifact_uri, artifact])
            )
            const toRead: Array<{ readonly name: string; readonly size: number }> = []
            let unchanged = 0
            for (const object of listed.right.objects) {
              const file: Planned = { name: object.name, uri: files.uri(object.name), source: files.source }
              const existing = Option.fromNullable(existingOf.get(file.uri))
              const read = hashes.get(object.name)
              if (read !== undefined && Either.isLeft(read)) {
                yield* claim(kb, upload, file, existing, "Failed", read.left.reason)
                continue
              }
              if (
                read !== undefined && Option.isSome(existing) && existing.value.status === "Completed" &&
                existing.value.content_modification_identifier === read.right
              ) {
                unchanged++
                continue
              }
              yield* claim(kb, upload, file, existing, "Pending", null)
              toRead.push({ name: file.name, size: object.size })
            }
            for (const refused of listed.right.refused) {
              const file: Planned = { name: refused.name, uri: files.uri(refused.name), source: files.source }
              yield* claim(kb, upload, file, Option.fromNullable(existingOf.get(file.uri)), "Failed", refused.reason)
            }
            // the artifacts of a stored data source whose files are gone go with their chunks
            let removed = 0
            if (upload.data_source_id !== null) {
              const present = new Set(listedUris)
              const gone = (yield* artifacts.ofDataSource(kb.knowledge_base_id, upload.data_source_id, kb.account_id))
                .filter((artifact) => artifact.artifact_uri !== null && !present.has(artifact.artifact_uri))
                .map((artifact) => artifact.artifact_id)
              yield* chunks.removeOfArtifacts(kb.knowledge_base_id, gone)
              yield* artifacts.removeAll(gone)
              removed = gone.length
            }
            // a plan run again after a crash finds the removed files' artifacts gone: their count stays
            yield* uploads.update(new StoredUpload({ ...upload, unchanged, removed: Math.max(upload.removed, removed), updated_at: yield* nowIso }, true))
            return batches(toRead)
          }))
        return Option.getOrElse(planned, () => [])
      })

    /**
     * Moves the artifacts of `uris` on (each by `change`, or leaves it when `change` answers
     * nothing), in one transaction, while the upload runs and each artifact is its own and still
     * in progress; answers the artifacts as written, by URI (none for one another upload took over).
     */
    const move = (
      kb: StoredKnowledgeBase,
      entity: LifecycleEntity,
      uris: ReadonlyArray<string>,
      change: (artifact: KnowledgeBaseArtifact) => Partial<KnowledgeBaseArtifact> | undefined
    ) =>
      uploads.transaction(Effect.gen(function*() {
        const moved = new Map<string, KnowledgeBaseArtifact>()
        yield* chunks.lockBase(kb.knowledge_base_id)
        const upload = yield* uploads.findById(entity.id, [entity.account_id])
        if (Option.isNone(upload) || upload.value.status !== "Running") return moved
        const updated_at = yield* nowIso
        for (const uri of uris) {
          const artifact = yield* artifacts.findByUri(kb.knowledge_base_id, kb.account_id, uri)
          if (Option.isNone(artifact) || artifact.value.upload_id !== entity.id || !inProgress.includes(artifact.value.status)) continue
          const fields = change(artifact.value)
          moved.set(uri, fields === undefined ? artifact.value : yield* artifacts.update(new KnowledgeBaseArtifact({ ...artifact.value, ...fields, updated_at }, true)))
        }
        return moved
      }))

    /** What a file (or chunk set) of a batch became once read and chunked: its texts, or why it failed. */
    type Read =
      | { readonly uri: string; readonly failed: string }
      | {
        readonly uri: string
        readonly hash: string
        readonly pieces: ReadonlyArray<{ readonly text: string; readonly position: number; readonly metadata: Record<string, unknown> | null }>
      }

    /** Reads, extracts and chunks the files (or the chunk set) `names` of the upload. */
    const readAll = (upload: StoredUpload, names: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Read>> =>
      Effect.gen(function*() {
        const config = upload.data_source_config
        if (config.source === "LocalChunks") {
          return names.map((name) => ({
            uri: name,
            hash: sha256(new TextEncoder().encode(JSON.stringify(upload.chunks ?? []))),
            pieces: (upload.chunks ?? []).filter((chunk) => chunk.text.trim() !== "").map((chunk) => ({
              text: chunk.text,
              position: chunk.chunk_position,
              metadata: chunk.metadata === undefined ? null : { ...chunk.metadata }
            }))
          }))
        }
        const files = filesOf(upload)
        if (files === undefined) return names.map((name) => ({ uri: name, failed: `A ${config.source} upload has no files to read` }))
        const contents = yield* Effect.either(files.read(names))
        const one = (name: string, i: number): Effect.Effect<Read> =>
          Effect.gen(function*() {
            const uri = files.uri(name)
            if (Either.isLeft(contents)) return { uri, failed: contents.left.reason }
            const bytes = contents.right[i]!
            if (Either.isLeft(bytes)) return { uri, failed: bytes.left.reason }
            const text = extractText(name, bytes.right)
            if (Either.isLeft(text)) return { uri, failed: text.left }
            const texts = yield* chunksOf(text.right, upload)
            if (Either.isLeft(texts)) return { uri, failed: texts.left }
            return { uri, hash: sha256(bytes.right), pieces: texts.right.map((text, position) => ({ text, position, metadata: null })) }
          })
        return yield* Effect.forEach(names, one)
      })

    /**
     * Step 2 (see the module comment) for the files (or chunk set) `names`, together: `Chunking`,
     * read and chunked; `Embedding` (or `Failed`); embedded in one go; their chunks written and
     * `Completed` in one transaction. Three commits a batch, whatever its size.
     */
    const ingest = (entity: LifecycleEntity, names: ReadonlyArray<string>): Effect.Effect<void> =>
      Effect.gen(function*() {
        const found = yield* runningUpload(entity)
        if (Option.isNone(found)) return
        const { kb, upload } = found.value
        const files = filesOf(upload)
        const uris = names.map((name) => (files === undefined ? name : files.uri(name)))
        const chunking = yield* move(kb, entity, uris, () => ({ status: "Chunking", status_reason: null }))
        const read = yield* readAll(upload, names.filter((_, i) => chunking.has(uris[i]!)))
        const ready = read.filter((one): one is Extract<Read, { hash: string }> => "hash" in one)
        const failures = new Map(read.flatMap((one) => ("failed" in one ? [[one.uri, one.failed] as const] : [])))
        const pending = new Map(ready.map((one) => [one.uri, one.pieces.length]))
        const embedding = yield* move(kb, entity, read.map((one) => one.uri), (artifact) => {
          const reason = failures.get(artifact.artifact_uri ?? "")
          return reason !== undefined
            ? { status: "Failed", status_reason: reason, chunks_status: noChunks }
            : {
              status: "Embedding",
              chunks_status: new ChunksStatus({ chunks_completed: 0, chunks_failed: 0, chunks_pending: pending.get(artifact.artifact_uri ?? "") ?? 0 })
            }
        })
        const toEmbed = ready.filter((one) => embedding.has(one.uri))
        if (toEmbed.length === 0) return
        const vectors = yield* Effect.either(
          embedder.embedTexts(kb.embedding_config, kb.account_id, toEmbed.flatMap((one) => one.pieces.map((piece) => piece.text)), {
            account_id: upload.account_id,
            caller_id: upload.created_by_user_id,
            caller_type: upload.created_by_identity_type
          })
        )
        if (Either.isLeft(vectors)) {
          const reason = `Embedding failed: ${vectors.left.detail}`
          yield* move(kb, entity, toEmbed.map((one) => one.uri), () => ({ status: "Failed", status_reason: reason, chunks_status: noChunks }))
          return
        }
        const created_at = yield* nowIso
        // the rows of each file, its chunks' vectors in the order they were sent; their metadata is
        // the artifact's as the final transaction finds it (a tags PATCH may come in between)
        let next = 0
        const rowsOf = new Map<string, Array<Omit<NewChunk, "metadata" | "artifact_id">>>()
        for (const one of toEmbed) {
          const rows: Array<Omit<NewChunk, "metadata" | "artifact_id">> = []
          for (const piece of one.pieces) {
            const vector = vectors.right[next++]!
            rows.push({
              id: yield* ids.make,
              account_id: kb.account_id,
              knowledge_base_id: kb.knowledge_base_id,
              chunk_position: piece.position,
              status: "Completed",
              text: piece.text,
              user_metadata: piece.metadata === null ? null : JSON.stringify(piece.metadata),
              embedding: toBytes(vector),
              code: toBytes(signCode(vector)),
              created_at
            })
          }
          rowsOf.set(one.uri, rows)
        }
        const hashes = new Map(toEmbed.map((one) => [one.uri, one.hash]))
        yield* whileRunning(kb, entity, () =>
          Effect.gen(function*() {
            const writes: Array<{ readonly artifactId: string; readonly chunks: ReadonlyArray<NewChunk> }> = []
            for (const one of toEmbed) {
              const current = yield* artifacts.findByUri(kb.knowledge_base_id, kb.account_id, one.uri)
              if (Option.isNone(current) || current.value.upload_id !== entity.id || !inProgress.includes(current.value.status)) continue
              const rows = rowsOf.get(one.uri)!.map((row, i) => ({
                ...row,
                artifact_id: current.value.artifact_id,
                metadata: JSON.stringify(chunkMetadata(current.value, row.chunk_position, one.pieces[i]!.metadata))
              }))
              writes.push({ artifactId: current.value.artifact_id, chunks: rows })
              yield* artifacts.update(new KnowledgeBaseArtifact({
                ...current.value,
                status: "Completed",
                status_reason: rows.length === 0 ? "No text to chunk" : null,
                content_modification_identifier: hashes.get(one.uri)!,
                chunks_status: new ChunksStatus({ chunks_completed: rows.length, chunks_failed: 0, chunks_pending: 0 }),
                updated_at: created_at
              }, true))
            }
            // every file's chunks in one write: their full-text index in one statement
            yield* chunks.replaceOfArtifacts(kb.knowledge_base_id, writes)
          }))
      })

    /** Step 3: the upload's end, with a summary of its artifacts. */
    const finish = (entity: LifecycleEntity): Effect.Effect<void> =>
      Effect.gen(function*() {
        // the files posted with it are read: no step needs them any more
        yield* uploads.dropFiles(entity.id)
        const found = yield* runningUpload(entity)
        if (Option.isNone(found)) return
        const { upload } = found.value
        const counts = yield* artifacts.countsOfUpload(upload.id)
        const { artifacts_completed: completed, artifacts_failed: failed } = counts.status
        const parts = [
          counts.total === 0 && upload.unchanged === 0 ? "Nothing to read" : `${completed} of ${counts.total} artifacts completed`,
          ...(failed > 0 ? [`${failed} failed`] : []),
          ...(upload.unchanged > 0 ? [`${upload.unchanged} unchanged (not read again)`] : []),
          ...(upload.removed > 0 ? [`${upload.removed} removed with their files`] : [])
        ]
        const everyOneFailed = counts.total > 0 && failed === counts.total
        yield* end(entity, everyOneFailed ? "Failed" : "Completed", parts.join("; "))
      })

    /** A step that failed for good (its database, five times over): the upload fails with why, its artifacts in progress too. */
    const giveUp = (entity: LifecycleEntity, cause: Cause.Cause<unknown>) =>
      Effect.gen(function*() {
        const reason = `Ingestion stopped: ${Cause.pretty(cause).split("\n")[0]}`
        yield* Effect.logError("an upload's step failed for good", cause)
        yield* Effect.ignore(uploads.dropFiles(entity.id))
        // its base read before the transaction (a base never changes): the base locked first, as everywhere
        const before = yield* uploads.findById(entity.id, [entity.account_id])
        if (Option.isNone(before)) return
        yield* uploads.transaction(Effect.gen(function*() {
          yield* chunks.lockBase(before.value.knowledge_base_id)
          const upload = yield* uploads.findById(entity.id, [entity.account_id])
          if (Option.isNone(upload) || upload.value.status !== "Running") return
          const updated_at = yield* nowIso
          yield* uploads.update(new StoredUpload({ ...upload.value, status: "Failed", status_reason: reason, updated_at }, true))
          for (const artifact of yield* artifacts.ofUpload(entity.id, entity.account_id)) {
            if (inProgress.includes(artifact.status)) {
              yield* artifacts.update(new KnowledgeBaseArtifact({ ...artifact, status: "Failed", status_reason: reason, updated_at }, true))
            }
          }
        }))
      }).pipe(Effect.orDie)

    return { plan, ingest, finish, giveUp } as const
  })
}) {}

/**
 * A chunk's metadata: the chunk's own (a `LocalChunks` upload's), the artifact's tags, then the
 * artifact's fields (`artifact_id`, `artifact_name`, `artifact_uri`, `source`) and the chunk's
 * `chunk_position`, which win over the others.
 */
export const chunkMetadata = (artifact: KnowledgeBaseArtifact, position: number, own: Record<string, unknown> | null) => ({
  ...own,
  ...artifact.tags,
  artifact_id: artifact.artifact_id,
  artifact_name: artifact.artifact_name,
  artifact_uri: artifact.artifact_uri,
  source: artifact.source,
  chunk_position: position
})
