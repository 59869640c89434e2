/**
 * The form of `POST /v4/training-datasets` (docs/training-datasets.md "The file"), read part by
 * part: the `file` streamed through the row reader (rows.ts) into the store's own bucket as it
 * arrives, never whole in memory; `account_id`, `name` and `schema_type` as text. The bytes stop
 * going to the store at the first malformed row, and the write then fails (a write is whole or
 * absent: nothing is stored); the rest of the file is still read, so every problem of the form is
 * answered at once, each at its field, as a 422 of the contract's shape.
 */
import type { Multipart } from "@effect/platform"
import { TrainingDatasetSchemaType, ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Cause, Data, Effect, Option, Schema, Stream } from "effect"
import type { ObjectStore } from "../platform/ObjectStore.js"
import { formatOfName, makeRowReader, type RowFormat } from "./rows.js"

/** The bucket of the store's own (`ObjectStore.own`) that holds the datasets' files, each named by its dataset's id. */
export const datasetsBucket = "training-datasets"

/** The form, read and checked, its file written to the store. */
export interface DatasetForm {
  readonly account_id: string
  readonly name: string
  readonly schema_type: "GENERATION"
  readonly format: RowFormat
  readonly row_count: number
}

/** A file with malformed rows: its write stops and leaves nothing. */
class RowsRejected extends Data.TaggedError("RowsRejected") {}

/** The store failed the write (not the form's fault: a 500). */
class StoreFailed extends Data.TaggedError("StoreFailed")<{ readonly cause: unknown }> {}

const issue = (field: string, msg: string, type: string, input?: unknown, ctx?: Record<string, unknown>) =>
  new ValidationIssue({ loc: ["body", field], msg, type, ...(input === undefined ? {} : { input }), ...(ctx === undefined ? {} : { ctx }) })

const notAForm = () =>
  new ValidationError({
    detail: [issue("file", "Not a multipart/form-data body: send the file and the fields as a form", "value_error", null)]
  })

const isSchemaType = Schema.is(TrainingDatasetSchemaType)

/**
 * Reads `parts` into the form, its file written as object `id` of the datasets' bucket; fails with
 * every problem found (and nothing stored). The caller removes the object if it fails later.
 */
export const readDatasetForm = (
  parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>,
  id: string,
  store: ObjectStore
) =>
  Effect.gen(function*() {
    const bucket = store.own(datasetsBucket)
    const fields = new Map<string, string>()
    const fileIssues: Array<ValidationIssue> = []
    let files = 0
    let written: { readonly format: RowFormat; readonly row_count: number } | undefined

    /** Checks the file's bytes row by row as they are written; a malformed row stops the write. */
    const writeFile = (name: string, content: Stream.Stream<Uint8Array, Multipart.MultipartError>) =>
      Effect.gen(function*() {
        const reader = makeRowReader(formatOfName(name))
        const clean = () => reader.problems().length === 0 && reader.moreProblems() === 0
        const checked = content.pipe(
          Stream.map((chunk) => {
            reader.feed(chunk)
            return chunk
          }),
          Stream.filter(clean),
          Stream.concat(Stream.suspend(() => {
            reader.end()
            return clean() && reader.count() > 0 ? Stream.empty : Stream.fail(new RowsRejected())
          }))
        )
        const outcome = yield* Effect.either(bucket.write(id, checked))
        if (outcome._tag === "Right") {
          written = { format: reader.format()!, row_count: reader.count() }
          return
        }
        const error = outcome.left
        if (error._tag === "MultipartError") return yield* error
        if (error._tag !== "RowsRejected") return yield* Effect.die(new StoreFailed({ cause: error }))
        for (const problem of reader.problems()) {
          fileIssues.push(issue("file", problem.message, "value_error", undefined, { line: problem.line }))
        }
        if (reader.moreProblems() > 0) {
          fileIssues.push(issue("file", `${reader.moreProblems()} more malformed rows`, "value_error"))
        }
        if (fileIssues.length === 0) {
          fileIssues.push(issue("file", "The file has no rows: a training dataset needs at least one", "value_error"))
        }
      })

    /** The one file; a second one is refused, read through and dropped. */
    const onFile = (name: string, content: Stream.Stream<Uint8Array, Multipart.MultipartError>) => {
      files += 1
      return files === 1 ? writeFile(name, content) : Stream.runDrain(content)
    }

    yield* Stream.runForEach(parts, (part) => {
      if (part._tag === "File") return part.key === "file" ? onFile(part.name, part.content) : Stream.runDrain(part.content)
      // a part sent as `application/json` is a field to the parser, whatever its file name
      if (part.key === "file") return onFile("", Stream.succeed(new TextEncoder().encode(part.value)))
      return Effect.sync(() => void fields.set(part.key, part.value))
    }).pipe(
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
      Effect.onError(() => written === undefined ? Effect.void : Effect.ignore(bucket.remove(id)))
    )

    const issues: Array<ValidationIssue> = []
    if (files === 0) issues.push(issue("file", "Field required", "missing", null))
    else if (files > 1) issues.push(issue("file", `One file is read, ${files} were sent`, "value_error"))
    issues.push(...fileIssues)
    const accountId = fields.get("account_id")
    if (accountId === undefined) issues.push(issue("account_id", "Field required", "missing", null))
    const name = fields.get("name")
    if (name === undefined) issues.push(issue("name", "Field required", "missing", null))
    else if (name === "") issues.push(issue("name", "String should have at least 1 characters", "string_too_short", name, { min_length: 1 }))
    const schemaType = fields.get("schema_type")
    if (schemaType === undefined) issues.push(issue("schema_type", "Field required", "missing", null))
    else if (!isSchemaType(schemaType)) {
      issues.push(issue("schema_type", "Input should be 'GENERATION' or 'RERANKING_QUESTIONS'", "literal_error", schemaType, {
        expected: "'GENERATION' or 'RERANKING_QUESTIONS'"
      }))
    } else if (schemaType !== "GENERATION") {
      issues.push(issue("schema_type", "Only GENERATION datasets are supported", "value_error", schemaType))
    }
    if (issues.length > 0 || written === undefined) {
      if (written !== undefined) yield* Effect.ignore(bucket.remove(id))
      return yield* Effect.fail(new ValidationError({ detail: issues }))
    }
    const form: DatasetForm = { account_id: accountId!, name: name!, schema_type: "GENERATION", ...written }
    return form
  })
