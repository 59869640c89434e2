/** Files uploaded for applications (the real SDK's `applications.upload_files`; docs/applications.md "Files"). */
import { Schema } from "effect"
import { DateTimeString, Id } from "./common.js"

/**
 * A file uploaded for applications (the SDK's `ApplicationFile`), its bytes in the object store.
 * `file_artifact_blob_path` is always `null` here: a file is named by its `id` (the kit's store
 * has no path a caller could use).
 */
export class ApplicationFile extends Schema.Class<ApplicationFile>("ApplicationFile")({
  id: Id,
  account_id: Id,
  created_at: DateTimeString,
  created_by_user_id: Id,
  file_name: Schema.String,
  file_size_bytes: Schema.Int,
  file_artifact_blob_path: Schema.NullOr(Schema.String)
}) {}

/** What `POST /v4/applications/upload-files` answers (the SDK's `ApplicationUploadFilesResponse`): a bare array. */
export const ApplicationUploadFilesResponse = Schema.Array(ApplicationFile).annotations({
  identifier: "ApplicationUploadFilesResponse"
})

/** The query of `upload-files`: the account the files are for (the caller's only or selected one when absent). */
export const UploadApplicationFilesQuery = Schema.Struct({
  account_id: Schema.optionalWith(Id, { exact: true })
})

/**
 * The form of `POST /v4/applications/upload-files` (multipart/form-data), as the OpenAPI document
 * shows it: read part by part by the server, each file streamed into the object store.
 */
export const UploadApplicationFilesForm = Schema.Struct({
  files: Schema.Array(Schema.String).annotations({
    description: "the files, one part each, named `files[]` (as the SDK sends them) or `files`"
  })
}).annotations({ identifier: "UploadApplicationFilesForm" })
