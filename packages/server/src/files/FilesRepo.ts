import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { BetaFile, NotFound, PlatformFile } from "@platform-kit/schema"
import { Effect, Schema } from "effect"
import * as Crypto from "node:crypto"
import { ObjectStore } from "../platform/ObjectStore.js"
import { transactionLock } from "../sql/dialect.js"
import { makeDocuments } from "../sql/documents.js"
import { lockRow } from "../sql/rowLock.js"
import { containsPattern, likeEscape } from "../sql/like.js"

/** The bucket of the store's own (`ObjectStore.own`) that holds the files' bytes. */
export const filesBucket = "files"

/** A file as stored: the v5 resource, its account, and the object holding its bytes. */
export const StoredFile = Schema.Struct({ ...PlatformFile.fields, account_id: Schema.String, blob: Schema.String })
export type StoredFile = typeof StoredFile.Type

/** The file as `/v5/files` answers it. */
export const v5File = ({ account_id: _, blob: __, ...file }: StoredFile) => new PlatformFile(file, true)

/** The file as `/v4/beta/files` answers it. */
export const betaFile = (file: StoredFile) =>
  new BetaFile({
    id: file.id,
    created_at: file.created_at,
    created_by_user_id: file.created_by.id,
    filename: file.filename,
    md5_checksum: file.md5_checksum,
    mime_type: file.mime_type,
    size: file.size,
    object: "file"
  }, true)

/**
 * The object of the account's bytes whose SHA-256 is `sha256`: one per account and content
 * (identical bytes of one account are stored once; another account's never share them). The
 * account's folder is named by a digest of its id, so any account id makes a safe name.
 */
export const blobName = (accountId: string, sha256: string) =>
  `accounts/${Crypto.createHash("sha256").update(accountId).digest("hex").slice(0, 32)}/${sha256}`

/**
 * The files: their rows (documents) and their bytes in the object store, stored once per account
 * and content. Whatever touches a blob (a create naming it, a delete that may remove it) runs in
 * a transaction holding the blob's lock (`transactionLock`), so a delete never removes bytes a
 * concurrent create of the same bytes has just named.
 */
export class FilesRepo extends Effect.Service<FilesRepo>()("@platform-kit/server/FilesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const documents = yield* makeDocuments({
      table: "files",
      label: "File",
      schema: StoredFile,
      columns: (file) => ({
        id: file.id,
        account_id: file.account_id,
        created_at: file.created_at,
        filename: file.filename,
        filename_lower: file.filename.toLowerCase(),
        size: file.size,
        blob: file.blob
      })
    })
    const bucket = (yield* ObjectStore).own(filesBucket)
    const lockBlob = (blob: string) => Effect.orDie(transactionLock(sql, `file blob ${blob}`))

    /**
     * Stores `file`, its bytes written as object `incoming` and now named `file.blob` (replacing
     * the same bytes when the account has them already). `incoming` is removed whatever happens.
     */
    const create = (file: StoredFile, incoming: string) =>
      documents.transaction(Effect.gen(function*() {
        yield* lockBlob(file.blob)
        yield* documents.insert(file)
        yield* Effect.orDie(bucket.move(incoming, file.blob))
        return file
      })).pipe(Effect.onError(() => Effect.ignore(bucket.remove(incoming))))

    /**
     * Deletes file `id` of one of `accountIds` (404 otherwise), and its bytes when no other file
     * of the account has them.
     */
    const removeFile = (id: string, accountIds: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const { blob } = yield* documents.get(id, accountIds)
        return yield* documents.transaction(Effect.gen(function*() {
          yield* lockBlob(blob)
          // gone meanwhile (a delete at the same time): the second answers 404
          yield* documents.get(id, accountIds)
          yield* documents.remove(id)
          const others = yield* Effect.orDie(sql<{ n: number }>`SELECT 1 AS n FROM files WHERE blob = ${blob} LIMIT 1`)
          if (others.length === 0) {
            yield* bucket.remove(blob).pipe(
              Effect.catchTag("ObjectNotFound", () => Effect.void),
              Effect.orDie
            )
          }
        }))
      })

    /**
     * Replaces the tags of file `id` of one of `accountIds` (404 otherwise) when `tags` is given;
     * the row locked from the read to the write (`lockRow`), so concurrent updates apply in turn.
     */
    const replaceTags = (id: string, accountIds: ReadonlyArray<string>, tags: { readonly [x: string]: unknown } | undefined) =>
      documents.transaction(Effect.gen(function*() {
        yield* lockRow(sql, "files", id, accountIds)
        const current = yield* documents.get(id, accountIds)
        return tags === undefined ? current : yield* documents.update({ ...current, tags })
      }))

    /** The conditions of the list's `filename` filter (a case-insensitive part of the name). */
    const filters = (query: { readonly filename?: string | undefined }): ReadonlyArray<Statement.Fragment> =>
      query.filename === undefined || query.filename === ""
        ? []
        : [sql`filename_lower LIKE ${containsPattern(query.filename)} ${sql.literal(likeEscape)}`]

    /** File `id` of one of `accountIds` (404 otherwise) and its bytes, streamed from the store as read. */
    const content = (id: string, accountIds: ReadonlyArray<string>): Effect.Effect<{
      readonly file: StoredFile
      readonly bytes: ReturnType<typeof bucket.stream>
    }, NotFound> => Effect.map(documents.get(id, accountIds), (file) => ({ file, bytes: bucket.stream(file.blob) }))

    return { ...documents, create, removeFile, replaceTags, filters, content, bucket } as const
  }),
  dependencies: [ObjectStore.Default]
}) {}
