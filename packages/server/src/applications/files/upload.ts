/**
 * The form of `POST /v4/applications/upload-files` (docs/applications.md "Files"), read part by
 * part as training datasets' is (training-datasets/upload.ts): each part named `files[]` or
 * `files` streamed into the store's own bucket as it arrives, never whole in memory, as an object
 * named by a fresh id. A part with a file name is a file whatever its content type (a JSON file
 * stays bytes). A problem of the form (no file, a `files` part that is a text field, a body that
 * is no form) is a 422 of the contract's shape, and what was written is removed: nothing is stored.
 */
import { Multipart } from "@effect/platform"
import { ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Cause, Data, Effect, Option, Stream } from "effect"
import { Ids } from "../../platform/Ids.js"
import type { ObjectStore } from "../../platform/ObjectStore.js"
import { filesBucket } from "./ApplicationFilesRepo.js"

/** A file of the form, its bytes written to the store as object `id`. */
export interface ReceivedFile {
  readonly id: string
  readonly file_name: string
  readonly file_size_bytes: number
}

/** The form, read: its files (in the order sent) and its `account_id` field, if it had one. */
export interface FilesForm {
  readonly files: ReadonlyArray<ReceivedFile>
  readonly account_id: string | undefined
}

/** The store failed a write (not the form's fault: a 500). */
class StoreFailed extends Data.TaggedError("StoreFailed")<{ readonly cause: unknown }> {}

const isFilesKey = (key: string) => key === "files" || key === "files[]"

const issue = (msg: string, type: string, input: unknown) =>
  new ValidationIssue({ loc: ["body", "files"], msg, type, input })

const notAForm = () =>
  new ValidationError({ detail: [issue("Not a multipart/form-data body: send each file as a part named `files[]`", "value_error", null)] })

/**
 * Reads `parts`, each file written to the files' bucket; fails with every problem found (and
 * nothing stored). The caller removes the objects (`removeFiles`) if it fails later.
 */
export const readFilesForm = (parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>, store: ObjectStore) =>
  Effect.gen(function*() {
    const bucket = store.own(filesBucket)
    const ids = yield* Ids
    const files: Array<ReceivedFile> = []
    const issues: Array<ValidationIssue> = []
    let account_id: string | undefined

    const writeFile = (name: string, content: Stream.Stream<Uint8Array, Multipart.MultipartError>) =>
      Effect.gen(function*() {
        const id = yield* ids.make
        let size = 0
        const counted = Stream.tap(content, (chunk) => Effect.sync(() => void (size += chunk.length)))
        yield* bucket.write(id, counted).pipe(
          Effect.catchAll((error) => error._tag === "MultipartError" ? Effect.fail(error) : Effect.die(new StoreFailed({ cause: error })))
        )
        files.push({ id, file_name: name, file_size_bytes: size })
      })

    yield* Stream.runForEach(parts, (part) => {
      if (part._tag === "File") return isFilesKey(part.key) ? writeFile(part.name, part.content) : Stream.runDrain(part.content)
      if (isFilesKey(part.key)) {
        return Effect.sync(() =>
          void issues.push(issue("Expected a file (a part with a file name), got a text field", "value_error", part.value.slice(0, 100)))
        )
      }
      if (part.key === "account_id") account_id = part.value
      return Effect.void
    }).pipe(
      // every part with a file name is a file: none is read as a field because of its content type
      Multipart.withFieldMimeTypes([]),
      // a body that is no form (JSON, a broken form) fails the parser, as a failure or a defect
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.failCause(cause as Cause.Cause<never>)
          : Option.match(Cause.dieOption(cause), {
            // a failure of the store is the server's, not the form's
            onSome: (defect) => defect instanceof StoreFailed ? Effect.die(defect.cause) : Effect.fail(notAForm()),
            onNone: () => Effect.fail(notAForm())
          })
      ),
      Effect.onError(() => removeFiles(store, files))
    )

    if (files.length === 0 && issues.length === 0) issues.push(issue("Field required: send at least one file", "missing", null))
    if (issues.length > 0) {
      yield* removeFiles(store, files)
      return yield* Effect.fail(new ValidationError({ detail: issues }))
    }
    const form: FilesForm = { files, account_id }
    return form
  })

/** Removes the objects of `files` (what a failed upload wrote), ignoring failures. */
export const removeFiles = (store: ObjectStore, files: ReadonlyArray<ReceivedFile>) =>
  Effect.forEach(files, (file) => Effect.ignore(store.own(filesBucket).remove(file.id)), { discard: true })
