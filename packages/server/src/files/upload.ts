/**
 * The form of `POST /v5/files` and `POST /v4/beta/files` (docs/files.md "Uploads"): its `file`
 * part streamed into the store's own bucket as it arrives, never whole in memory, as an object of
 * a name of its own (`incoming/<uuid>`), its size, MD5 and SHA-256 taken on the way; the caller
 * names it by its content once the form is read (FilesRepo `create`). The file's bytes are held to
 * `PLATFORM_FILE_MAX_BYTES`, the whole form to that and `formAllowanceBytes`: past either, a 413,
 * and the object being written is dropped. A problem of the form (no file, two, a `file` that is a
 * text field, a body that is no form) is a 422 of the contract's shape. Whatever fails, nothing is
 * left in the store. The parts are read by the uploads' reader (multipart.ts), as a build's are.
 */
import type { Multipart } from "@effect/platform"
import { ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Effect, Stream } from "effect"
import * as Crypto from "node:crypto"
import type { StreamedBodyRoute } from "../http/middleware.js"
import { Ids } from "../platform/Ids.js"
import type { ObjectStore } from "../platform/ObjectStore.js"
import { filesBucket } from "./FilesRepo.js"
import { formAllowanceBytes, isFormError, readUploadForm, storeFailuresAsDefects, TooLarge } from "./multipart.js"

export { formAllowanceBytes } from "./multipart.js"

/** The upload routes, each with the files' limit instead of the general body limit (http/middleware.ts). */
export const uploadRoutes = (maxFileBytes: number): ReadonlyArray<StreamedBodyRoute> =>
  ["/v5/files", "/v4/beta/files"].map((path) => ({
    method: "POST",
    path,
    maxBytes: maxFileBytes + formAllowanceBytes,
    detail: tooLargeDetail(maxFileBytes)
  }))

const tooLargeDetail = (maxFileBytes: number) => `File larger than ${maxFileBytes} bytes (PLATFORM_FILE_MAX_BYTES)`

/** The form's file, its bytes written to the files' bucket as object `incoming`. */
export interface ReceivedFile {
  readonly incoming: string
  readonly filename: string
  readonly mime_type: string
  readonly size: number
  readonly md5: string
  readonly sha256: string
}

/** The form, read: its file and its `account_id` field, if it had one. */
export interface FileForm {
  readonly file: ReceivedFile
  readonly account_id: string | undefined
}

const issue = (msg: string, type: string, input: unknown) => new ValidationIssue({ loc: ["body", "file"], msg, type, input })

const notAForm = () =>
  new ValidationError({ detail: [issue("Not a multipart/form-data body: send the file as a part named `file`", "value_error", null)] })

/** MIME types by extension, for a part sent without a type (or as `application/octet-stream`). */
const typesByExtension: Readonly<Record<string, string>> = {
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  html: "text/html",
  htm: "text/html",
  xml: "application/xml",
  json: "application/json",
  jsonl: "application/jsonl",
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  mp4: "video/mp4",
  zip: "application/zip",
  gz: "application/gzip",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation"
}

/** The type of a file named `filename` sent as `contentType`: the type sent, else one guessed from the name. */
export const mimeTypeOf = (filename: string, contentType: string) => {
  const sent = contentType.trim()
  if (sent !== "" && sent.toLowerCase() !== "application/octet-stream") return sent
  const extension = /\.([^./]+)$/.exec(filename)?.[1]?.toLowerCase()
  return (extension === undefined ? undefined : typesByExtension[extension]) ?? "application/octet-stream"
}

/**
 * Writes `bytes` to the files' bucket as a fresh `incoming/<uuid>` object, measured and hashed on
 * the way; fails with `TooLarge` (and nothing written) once they pass `maxBytes`, and as `bytes`
 * does. What the import from the object store writes through too.
 */
export const writeIncoming = <E, R>(store: ObjectStore, bytes: Stream.Stream<Uint8Array, E, R>, maxBytes: number) =>
  Effect.gen(function*() {
    const incoming = `incoming/${yield* (yield* Ids).make}`
    const md5 = Crypto.createHash("md5")
    const sha256 = Crypto.createHash("sha256")
    let size = 0
    const measured = Stream.mapEffect(bytes, (chunk) => {
      size += chunk.length
      if (size > maxBytes) return Effect.fail(new TooLarge())
      md5.update(chunk)
      sha256.update(chunk)
      return Effect.succeed(chunk)
    })
    yield* store.own(filesBucket).write(incoming, measured)
    return { incoming, size, md5: md5.digest("hex"), sha256: sha256.digest("hex") }
  })

/**
 * Reads `parts`, the file written to the files' bucket; fails with a 422 for every problem of the
 * form, a 413 past the limits, and nothing stored. The caller removes `file.incoming` if it fails later.
 */
export const readFileForm = (
  parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>,
  store: ObjectStore,
  maxFileBytes: number
) =>
  Effect.gen(function*() {
    const issues: Array<ValidationIssue> = []
    let file: ReceivedFile | undefined
    let files = 0
    let account_id: string | undefined

    const onFile = (part: Multipart.File) =>
      Effect.gen(function*() {
        files += 1
        if (files > 1) return yield* Stream.runDrain(part.content)
        if (part.name === "") {
          issues.push(issue("A file needs a name (the part's filename)", "value_error", null))
          return yield* Stream.runDrain(part.content)
        }
        const written = yield* storeFailuresAsDefects(writeIncoming(store, part.content, maxFileBytes), isFormError)
        file = { ...written, filename: part.name, mime_type: mimeTypeOf(part.name, part.contentType) }
      })

    const removeWritten = Effect.suspend(() =>
      file === undefined ? Effect.void : Effect.ignore(store.own(filesBucket).remove(file.incoming))
    )

    yield* readUploadForm({
      parts,
      maxFileBytes,
      tooLargeDetail: tooLargeDetail(maxFileBytes),
      notAForm,
      removeWritten,
      onPart: (part) => {
        if (part._tag === "File") return part.key === "file" ? onFile(part) : Stream.runDrain(part.content)
        if (part.key === "file") {
          // said once, however many such parts come
          if (issues.some((each) => each.msg.startsWith("Expected a file"))) return Effect.void
          return Effect.sync(() => void issues.push(issue("Expected a file (a part with a file name), got a text field", "value_error", part.value.slice(0, 100))))
        }
        if (part.key === "account_id") account_id = part.value
        return Effect.void
      }
    })

    if (files === 0 && issues.length === 0) issues.push(issue("Field required", "missing", null))
    if (files > 1) issues.push(issue(`One file is read, ${files} were sent`, "value_error", null))
    if (issues.length > 0 || file === undefined) {
      yield* removeWritten
      return yield* Effect.fail(new ValidationError({ detail: issues }))
    }
    const form: FileForm = { file, account_id }
    return form
  })
