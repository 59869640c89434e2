import { HttpServerResponse } from "@effect/platform"
import { ApplicationFile, GenericDeleteResponse, pageOf, V4Page } from "@platform-kit/schema"
import { Effect, Layer, Stream } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../../auth/access.js"
import { downloadHeaders } from "../../http/download.js"
import type { ImplementGroup } from "../../http/groups.js"
import { pageResponse, storedResponse } from "../../http/storedResponses.js"
import { nowIso } from "../../platform/Ids.js"
import { ObjectStore } from "../../platform/ObjectStore.js"
import { ApplicationFilesRepo, filesBucket } from "./ApplicationFilesRepo.js"
import { readFilesForm, removeFiles } from "./upload.js"

export const ApplicationFilesHttp = (group: ImplementGroup) =>
  group("applicationFiles", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* ApplicationFilesRepo
    const store = yield* ObjectStore
    const listResponse = pageResponse(V4Page(ApplicationFile))
    return handlers
      .handle("upload", ({ payload, urlParams }) =>
        Effect.gen(function*() {
          // the form first (its files written as they arrive): a request's shape is checked
          // before what it names (docs/decisions.md "Wire"); past it, a failure removes the files
          const form = yield* readFilesForm(payload, store)
          return yield* Effect.gen(function*() {
            // the query's `account_id` (the SDK's), else a form field of that name
            const fromForm = urlParams.account_id === undefined && form.account_id !== undefined
            const account_id = yield* accountForWrite(urlParams.account_id ?? form.account_id, [fromForm ? "body" : "query", "account_id"])
            const { created_by_user_id } = yield* createdBy
            const created_at = yield* nowIso
            const files = form.files.map((file) =>
              new ApplicationFile({ ...file, account_id, created_at, created_by_user_id, file_artifact_blob_path: null }, true)
            )
            yield* repo.insertAll(files)
            return files
          }).pipe(Effect.onError(() => removeFiles(store, form.files)))
        }))
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          Effect.map(repo.pageOfTexts({ accountIds, ...pageOf(urlParams) }), listResponse)))
      .handle("get", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) => Effect.map(repo.getText(path.application_file_id, accounts), storedResponse)))
      .handle("content", ({ path }) =>
        Effect.gen(function*() {
          const { bytes, file } = yield* repo.content(path.application_file_id, yield* callerAccounts)
          // the bytes are there before the answer starts (missing ones are the server's 500)
          yield* Effect.orDie(store.own(filesBucket).head(file.id))
          return HttpServerResponse.stream(Stream.orDie(bytes), {
            contentType: "application/octet-stream",
            contentLength: file.file_size_bytes,
            headers: downloadHeaders(file.file_name)
          })
        }))
      .handle("delete", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) =>
          Effect.as(repo.removeFile(path.application_file_id, accounts), new GenericDeleteResponse({ count: 1, success: true }))))
  })
).pipe(Layer.provide([ApplicationFilesRepo.Default, ObjectStore.Default]))
