/**
 * The reading of an upload form (multipart/form-data) whose file is streamed into the object store
 * as it arrives: what the files' upload (upload.ts) and a build's context (builds/form.ts) share.
 * The caller says what to do with each part (`onPart`) and how to drop what it wrote
 * (`removeWritten`); this reads the parts with the uploads' limits (every part with a file name a
 * file, the form held to its file's limit and `formAllowanceBytes`, at most `maxFormParts` parts)
 * and maps what fails to the contract's answers: past a limit a 413, a failure the caller names a
 * 422 of its own, any other problem of the form the caller's `notAForm` 422, a store that fails a
 * 500. Whatever fails, what was written is removed.
 */
import { Multipart } from "@effect/platform"
import { PayloadTooLarge, type ValidationError } from "@platform-kit/schema"
import { Cause, Data, Effect, Option, Stream } from "effect"

/** What a form may carry besides its file's bytes (boundaries, part headers, its text fields). */
export const formAllowanceBytes = 64 * 1024

/** The most parts an upload form may have (its file, its fields, a client's extras): more is a 422. */
export const maxFormParts = 16

/** The file grew past the limit. */
export class TooLarge extends Data.TaggedError("TooLarge") {}

/** The store failed a write (not the form's fault: a 500). */
export class StoreFailed extends Data.TaggedError("StoreFailed")<{ readonly cause: unknown }> {}

/**
 * `write` (of the form's file to the store) with the failures of the store made `StoreFailed`
 * defects, those of the form (`ofForm`: the body's, a limit, a bad file) kept as they are.
 */
export const storeFailuresAsDefects = <A, E, R>(write: Effect.Effect<A, E, R>, ofForm: (error: E) => boolean) =>
  Effect.catchAll(write, (error) => (ofForm(error) ? Effect.fail(error) : Effect.die(new StoreFailed({ cause: error }))))

/** Whether `error` is one of the body's own (a `MultipartError`) or the file's limit (`TooLarge`). */
export const isFormError = (error: { readonly _tag: string }) => error._tag === "MultipartError" || error._tag === "TooLarge"

/** Reads `parts` through `onPart`; fails with the contract's 413 or 422, what was written removed. */
export const readUploadForm = <E, R>(options: {
  readonly parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>
  /** The limit of the form's file (`PLATFORM_FILE_MAX_BYTES`). */
  readonly maxFileBytes: number
  readonly onPart: (part: Multipart.Part) => Effect.Effect<void, E, R>
  /** The 413's detail. */
  readonly tooLargeDetail: string
  /** The 422 of a body that is no form (or a form that cannot be read). */
  readonly notAForm: () => ValidationError
  /** The 422 of a failure of the caller's (a file that is not what it must be), if it is one. */
  readonly invalid?: (failure: unknown) => ValidationError | undefined
  /** Removes what the caller wrote so far (nothing when it wrote nothing). */
  readonly removeWritten: Effect.Effect<void>
}): Effect.Effect<void, ValidationError | PayloadTooLarge, R> =>
  Stream.runForEach(options.parts, options.onPart).pipe(
    // every part with a file name is a file (a JSON file stays bytes); the form may pass the
    // general body limit up to the files' (the middleware let it through: the upload routes)
    Multipart.withFieldMimeTypes([]),
    Multipart.withLimits({ maxTotalSize: Option.some(options.maxFileBytes + formAllowanceBytes), maxParts: Option.some(maxFormParts) }),
    Effect.catchAllCause((cause): Effect.Effect<never, ValidationError | PayloadTooLarge> => {
      if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
      const failure = Option.getOrUndefined(Cause.failureOption(cause))
      const invalid = failure === undefined ? undefined : options.invalid?.(failure)
      if (invalid !== undefined) return Effect.fail(invalid)
      const tagged = failure as { readonly _tag?: string; readonly reason?: string } | undefined
      if (tagged?._tag === "TooLarge" || (tagged?._tag === "MultipartError" && (tagged.reason === "BodyTooLarge" || tagged.reason === "FileTooLarge"))) {
        return Effect.fail(new PayloadTooLarge({ detail: options.tooLargeDetail }))
      }
      // a failure of the store is the server's, not the form's
      return Option.match(Cause.dieOption(cause), {
        onSome: (defect) => (defect instanceof StoreFailed ? Effect.die(defect.cause) : Effect.fail(options.notAForm())),
        onNone: () => Effect.fail(options.notAForm())
      })
    }),
    Effect.onError(() => options.removeWritten)
  )
