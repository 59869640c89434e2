/**
 * Files (v5 `/v5/files` and the v4 `beta.files` over the same store; docs/files.md): uploaded
 * bytes with their checksum, type and size, kept once per account however many files share them.
 */
import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { DateTimeString, Id, Identity, JsonObject, Nullable, Optional, V5List, V5PageQuery } from "./common.js"

/**
 * A file (the v5 SDK's `File`; `PlatformFile` here, not to shadow the global `File`).
 * `md5_checksum` is the hex MD5 of the bytes, `mime_type` the type the upload gave (or guessed
 * from the name), `size` the bytes' length; `duration_seconds` is always `null` here (the kit
 * does not read media); `tags` `{}` until set.
 */
export class PlatformFile extends Schema.Class<PlatformFile>("File")({
  id: Id,
  created_at: DateTimeString,
  created_by: Identity,
  filename: Schema.String,
  md5_checksum: Schema.String,
  mime_type: Schema.String,
  size: Schema.Int,
  duration_seconds: Nullable(Schema.Int),
  object: Schema.Literal("file"),
  tags: JsonObject
}) {}

/** What `DELETE /v5/files/{file_id}` answers (the SDK's `FileDeleteResponse`): the file is gone. */
export class FileDeleteResponse extends Schema.Class<FileDeleteResponse>("FileDeleteResponse")({
  id: Id,
  deleted: Schema.Boolean,
  object: Schema.Literal("file")
}) {}

/** `PATCH /v5/files/{file_id}`: `tags`, when given, replace the file's tags (absent or `null`: unchanged). */
export class UpdateFile extends Schema.Class<UpdateFile>("UpdateFile")({
  tags: Optional(JsonObject)
}) {}

/** `GET /v5/files`: the v5 cursor, `filename` (case-insensitive substring), `account_id`. */
export const FileListQuery = Schema.Struct({
  ...V5PageQuery(["created_at", "filename", "size"]),
  filename: Schema.optionalWith(Schema.String, { exact: true }),
  account_id: Schema.optionalWith(Id, { exact: true })
})

/** The query of the uploads: the account the file is for (else the selected or only account). */
export const UploadFileQuery = Schema.Struct({
  account_id: Schema.optionalWith(Id, { exact: true })
})

/**
 * The form of `POST /v5/files` and `POST /v4/beta/files` (multipart/form-data), as the OpenAPI
 * document shows it: read part by part by the server, the file streamed into the object store.
 */
export const UploadFileForm = Schema.Struct({
  file: Schema.String.annotations({ description: "the file: one part named `file`, with a file name and a content type" })
}).annotations({ identifier: "UploadFileForm" })

/** A MIME type, `type/subtype` with parameters (what a download's `content-type` will be). */
const MimeType = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(\s*;[^\r\n]*)?$/, { message: () => "a MIME type: type/subtype" })
)

/** One object of the kit's object store to import: `container` is the bucket, `filepath` the object's name in it. */
export const CloudFile = Schema.Struct({
  container: Schema.String.pipe(Schema.minLength(1)),
  file_type: MimeType,
  filename: Schema.String.pipe(Schema.minLength(1)),
  filepath: Schema.String.pipe(Schema.minLength(1))
}).annotations({ identifier: "CloudFile" })
export type CloudFile = typeof CloudFile.Type

/**
 * `POST /v5/files/cloud_imports`: 1 to 100 objects, each imported on its own; `account_id` (a kit
 * extension) the account the files are for, else the selected or only account.
 */
export class FileImportFromCloudRequest extends Schema.Class<FileImportFromCloudRequest>("FileImportFromCloudRequest")({
  files: Schema.Array(CloudFile).pipe(Schema.minItems(1), Schema.maxItems(100)),
  account_id: Optional(Id)
}) {}

/** A file an import could not make: the name and type asked for. */
export class FailedFile extends Schema.Class<FailedFile>("FailedFile")({
  filename: Schema.String,
  mime_type: Schema.String,
  object: Schema.Literal("failed_file")
}) {}

export const FileImportStatus = Schema.Literal(
  "SUCCESS",
  "FAILED_FILE_DOES_NOT_EXIST",
  "FAILED_INVALID_PERMISSIONS",
  "FAILED_UNKNOWN_ERROR"
).annotations({ identifier: "FileImportStatus" })

/** One object's import: the file made, or the failed file and why. */
export class FileImportResult extends Schema.Class<FileImportResult>("FileImportResult")({
  file: Schema.Union(PlatformFile, FailedFile),
  status: FileImportStatus
}) {}

/** What a cloud import answers: one result per object asked for, in order (207 when mixed, else 200). */
export class FileImportFromCloudResponse extends Schema.Class<FileImportFromCloudResponse>("FileImportFromCloudResponse")({
  results: Schema.Array(FileImportResult)
}) {}

/** The same answer, as a 207 (some objects imported, some not): for the client and the OpenAPI document. */
export const FileImportFromCloudPartial = Schema.Struct(FileImportFromCloudResponse.fields).annotations({
  ...HttpApiSchema.annotations({ status: 207 }),
  identifier: "FileImportFromCloudPartialResponse"
})

// ---------------------------------------------------------------------------------------------
// v4 beta files

/** A file as the v4 `beta.files` answer it (the SDK's `beta.File`): the same file, its creator by id. */
export class BetaFile extends Schema.Class<BetaFile>("BetaFile")({
  id: Id,
  created_at: DateTimeString,
  created_by_user_id: Id,
  filename: Schema.String,
  md5_checksum: Schema.String,
  mime_type: Schema.String,
  size: Schema.Int,
  object: Schema.Literal("file")
}) {}

/** What `DELETE /v4/beta/files/{file_id}` answers (the SDK's `FileDelete`). */
export class BetaFileDelete extends Schema.Class<BetaFileDelete>("BetaFileDelete")({
  id: Id,
  deleted: Schema.Boolean,
  object: Schema.Literal("file")
}) {}

/** `GET /v4/beta/files`: the cursor (`limit`, `starting_after`, `ending_before`), newest first; `account_id`. */
export const BetaFileListQuery = Schema.Struct({
  limit: V5PageQuery(["created_at"]).limit,
  starting_after: Schema.optionalWith(Id, { exact: true }),
  ending_before: Schema.optionalWith(Id, { exact: true }),
  account_id: Schema.optionalWith(Id, { exact: true })
})

/** The v4 list envelope (`FileList`): `{items, total, has_more, limit, object: "list"}`. */
export const BetaFileList = V5List(BetaFile)
