import { HttpServerResponse } from "@effect/platform"
import {
  BetaFileDelete,
  cursorOf,
  FailedFile,
  FileDeleteResponse,
  FileImportFromCloudResponse,
  FileImportResult,
  type CloudFile
} from "@platform-kit/schema"
import { Effect, Layer, Schema, Stream } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdByIdentity } from "../auth/access.js"
import { FileMaxBytes } from "../config.js"
import { downloadHeaders } from "../http/download.js"
import type { ImplementGroup } from "../http/groups.js"
import { freshIdentity } from "../platform/Ids.js"
import { ObjectStore, type ObjectStoreError } from "../platform/ObjectStore.js"
import { betaFile, blobName, FilesRepo, type StoredFile, v5File } from "./FilesRepo.js"
import { readFileForm, type ReceivedFile, writeIncoming } from "./upload.js"

const encodeImport = Schema.encodeSync(FileImportFromCloudResponse)

/** Why an object of the store could not be imported, as the import's `status`. */
const importStatus = (error: ObjectStoreError | { readonly _tag: "TooLarge" }): FileImportResult["status"] => {
  switch (error._tag) {
    case "BucketNotFound":
    case "ObjectNotFound":
    case "NotAFile":
      return "FAILED_FILE_DOES_NOT_EXIST"
    case "InvalidKey":
    case "ObjectNameTooLong":
    case "OutsideBucket":
      return "FAILED_INVALID_PERMISSIONS"
    case "ObjectStoreIoError":
      return (error.cause as { readonly reason?: string } | undefined)?.reason === "PermissionDenied"
        ? "FAILED_INVALID_PERMISSIONS"
        : "FAILED_UNKNOWN_ERROR"
    default:
      return "FAILED_UNKNOWN_ERROR"
  }
}

/**
 * What both groups share: an upload (the form read, then the file stored by its content), a read,
 * a download, a delete.
 */
const makeFiles = Effect.gen(function*() {
  const repo = yield* FilesRepo
  const store = yield* ObjectStore
  const maxFileBytes = yield* FileMaxBytes

  /** Stores the file of `received` for `account_id` (already checked) as the caller's. */
  const storeFile = (account_id: string, received: ReceivedFile) =>
    Effect.gen(function*() {
      const [id, created_at] = yield* freshIdentity
      const file: StoredFile = {
        id,
        created_at,
        created_by: yield* createdByIdentity,
        filename: received.filename,
        md5_checksum: received.md5,
        mime_type: received.mime_type,
        size: received.size,
        duration_seconds: null,
        object: "file",
        tags: {},
        account_id,
        blob: blobName(account_id, received.sha256)
      }
      return yield* repo.create(file, received.incoming)
    })

  const upload = (parts: Parameters<typeof readFileForm>[0], queryAccount: string | undefined) =>
    Effect.gen(function*() {
      // the form first (its file written as it arrives): a request's shape is checked before
      // what it names (docs/decisions.md "Wire"); past it, a failure removes the file
      const form = yield* readFileForm(parts, store, maxFileBytes)
      return yield* Effect.gen(function*() {
        const fromForm = queryAccount === undefined && form.account_id !== undefined
        const account_id = yield* accountForWrite(queryAccount ?? form.account_id, [fromForm ? "body" : "query", "account_id"])
        return yield* storeFile(account_id, form.file)
      }).pipe(Effect.onError(() => Effect.ignore(repo.bucket.remove(form.file.incoming))))
    })

  const owned = (id: string) => Effect.flatMap(callerAccounts, (accounts) => repo.get(id, accounts))

  /** The file's bytes as uploaded, streamed, typed as the file is. */
  const download = (id: string) =>
    Effect.gen(function*() {
      const { bytes, file } = yield* repo.content(id, yield* callerAccounts)
      // the bytes are there before the answer starts (missing ones are the server's 500)
      yield* Effect.orDie(repo.bucket.head(file.blob))
      return HttpServerResponse.stream(Stream.orDie(bytes), {
        contentType: file.mime_type,
        contentLength: file.size,
        headers: downloadHeaders(file.filename)
      })
    })

  const remove = (id: string) => Effect.flatMap(callerAccounts, (accounts) => repo.removeFile(id, accounts))

  /** Imports one object of the store (`CloudFile`): a file, or why not. */
  const importOne = (account_id: string, cloud: CloudFile) =>
    writeIncoming(store, store.stream(cloud.container, cloud.filepath), maxFileBytes).pipe(
      Effect.flatMap((written) =>
        storeFile(account_id, { ...written, filename: cloud.filename, mime_type: cloud.file_type })
      ),
      Effect.map((file) => new FileImportResult({ file: v5File(file), status: "SUCCESS" }, true)),
      Effect.catchAll((error) =>
        Effect.succeed(
          new FileImportResult({
            file: new FailedFile({ filename: cloud.filename, mime_type: cloud.file_type, object: "failed_file" }, true),
            status: importStatus(error)
          }, true)
        )
      )
    )

  const importFromCloud = (files: ReadonlyArray<CloudFile>, accountId: string | undefined) =>
    Effect.gen(function*() {
      const account_id = yield* accountForWrite(accountId)
      const results = yield* Effect.forEach(files, (cloud) => importOne(account_id, cloud), { concurrency: 4 })
      const response = new FileImportFromCloudResponse({ results }, true)
      // 207 (Multi-Status) when mixed: some imported, some not; 200 when all were, or none
      const imported = results.filter((result) => result.status === "SUCCESS").length
      return imported === 0 || imported === results.length
        ? response
        : HttpServerResponse.unsafeJson(encodeImport(response), { status: 207 })
    })

  const updateTags = (id: string, tags: { readonly [x: string]: unknown } | undefined) =>
    Effect.flatMap(callerAccounts, (accounts) => repo.replaceTags(id, accounts, tags))

  return { repo, upload, owned, download, remove, importFromCloud, updateTags } as const
})

export const FilesHttp = (group: ImplementGroup) =>
  group("files", (handlers) =>
    Effect.gen(function*() {
      const files = yield* makeFiles
      return handlers
        .handle("create", ({ payload, urlParams }) => Effect.map(files.upload(payload, urlParams.account_id), v5File))
        .handle("list", ({ urlParams }) =>
          Effect.gen(function*() {
            const accountIds = yield* accountsForRead(urlParams.account_id)
            const page = yield* files.repo.cursorPage({ accountIds, ...cursorOf(urlParams), where: files.repo.filters(urlParams) })
            return { ...page, items: page.items.map(v5File) }
          }))
        .handle("importFromCloud", ({ payload }) => files.importFromCloud(payload.files, payload.account_id))
        .handle("get", ({ path }) => Effect.map(files.owned(path.file_id), v5File))
        .handle("update", ({ path, payload }) => Effect.map(files.updateTags(path.file_id, payload.tags), v5File))
        .handle("delete", ({ path }) =>
          Effect.as(files.remove(path.file_id), new FileDeleteResponse({ id: path.file_id, deleted: true, object: "file" }, true)))
        .handle("content", ({ path }) => files.download(path.file_id))
    })
  ).pipe(Layer.provide([FilesRepo.Default, ObjectStore.Default]))

export const BetaFilesHttp = (group: ImplementGroup) =>
  group("betaFiles", (handlers) =>
    Effect.gen(function*() {
      const files = yield* makeFiles
      return handlers
        .handle("create", ({ payload, urlParams }) => Effect.map(files.upload(payload, urlParams.account_id), betaFile))
        .handle("list", ({ urlParams }) =>
          Effect.gen(function*() {
            const accountIds = yield* accountsForRead(urlParams.account_id)
            const page = yield* files.repo.cursorPage({ accountIds, ...cursorOf(urlParams) })
            return { ...page, items: page.items.map(betaFile) }
          }))
        .handle("get", ({ path }) => Effect.map(files.owned(path.file_id), betaFile))
        .handle("delete", ({ path }) =>
          Effect.as(files.remove(path.file_id), new BetaFileDelete({ id: path.file_id, deleted: true, object: "file" }, true)))
        .handle("content", ({ path }) => files.download(path.file_id))
    })
  ).pipe(Layer.provide([FilesRepo.Default, ObjectStore.Default]))
