import { HttpServerResponse } from "@effect/platform"
import { Conflict, GenericDeleteResponse, pageOf, TrainingDataset, V4Page } from "@platform-kit/schema"
import { Effect, Layer, Stream } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import { FineTuningJobsRepo } from "../fine-tuning-jobs/FineTuningJobsRepo.js"
import type { ImplementGroup } from "../http/groups.js"
import { pageResponse, storedResponse } from "../http/storedResponses.js"
import { ObjectStore } from "../platform/ObjectStore.js"
import { freshIdentity } from "../platform/Ids.js"
import { makeRowReader, type GenerationRow } from "./rows.js"
import { TrainingDatasetsRepo, type StoredFile } from "./TrainingDatasetsRepo.js"
import { datasetsBucket, readDatasetForm } from "./upload.js"

const encoder = new TextEncoder()

/**
 * The rows of a dataset's file as the JSON array `contents` answers, streamed: read from the
 * store chunk by chunk, each chunk's rows written out as they are read (checked at the upload;
 * a file that no longer reads as it did fails the stream, which cuts the response).
 */
const contentsBody = (store: ObjectStore, file: StoredFile) =>
  Stream.suspend(() => {
    const reader = makeRowReader(file.format)
    let first = true
    const text = (rows: ReadonlyArray<GenerationRow>) => {
      let out = ""
      for (const row of rows) {
        out += `${first ? "" : ","}${JSON.stringify({ input: row.input, output: row.output, schema_type: "GENERATION" })}`
        first = false
      }
      return out
    }
    const rows = store.own(datasetsBucket).stream(file.id).pipe(
      Stream.map((chunk) => text(reader.feed(chunk))),
      Stream.concat(Stream.sync(() => text(reader.end()))),
      Stream.concat(Stream.suspend(() =>
        reader.problems().length === 0
          ? Stream.empty
          : Stream.dieMessage(`Training dataset ${file.id}: its file no longer reads as uploaded (${reader.problems()[0]!.message})`)
      ))
    )
    return Stream.make("[").pipe(
      Stream.concat(rows),
      Stream.concat(Stream.make("]")),
      Stream.filter((piece) => piece !== ""),
      Stream.map((piece) => encoder.encode(piece)),
      Stream.orDie
    )
  })

export const TrainingDatasetsHttp = (group: ImplementGroup) =>
  group("trainingDatasets", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* TrainingDatasetsRepo
    const jobs = yield* FineTuningJobsRepo
    const store = yield* ObjectStore
    const bucket = store.own(datasetsBucket)
    const listResponse = pageResponse(V4Page(TrainingDataset))
    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const [id, created_at] = yield* freshIdentity
          // the form first (its file written as it is checked): a request's shape is checked
          // before what it names (docs/decisions.md "Wire"); past it, a failure removes the file
          const form = yield* readDatasetForm(payload, id, store)
          return yield* Effect.gen(function*() {
            const account_id = yield* accountForWrite(form.account_id)
            const { created_by_user_id } = yield* createdBy
            return yield* repo.create(
              new TrainingDataset({
                id,
                account_id,
                created_at,
                created_by_user_id,
                data_source: "LocalFile",
                name: form.name,
                schema_type: form.schema_type
              }, true),
              { format: form.format, row_count: form.row_count }
            )
          }).pipe(Effect.onError(() => Effect.ignore(bucket.remove(id))))
        }))
      .handle("get", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) => Effect.map(repo.getText(path.training_dataset_id, accounts), storedResponse)))
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          Effect.map(repo.pageOfTexts({ accountIds, ...pageOf(urlParams) }), listResponse)))
      // refused while a job that will train on it has not ended; the file goes once the row has
      .handle("delete", ({ path }) =>
        Effect.gen(function*() {
          const accounts = yield* callerAccounts
          const id = path.training_dataset_id
          yield* repo.transaction(Effect.gen(function*() {
            const dataset = yield* repo.get(id, accounts)
            const using = yield* jobs.unfinishedNaming(id, dataset.account_id)
            if (using.length > 0) {
              return yield* Effect.fail(
                new Conflict({
                  detail: `Training dataset ${id} is named by fine-tuning job ${using[0]!.id}, which is ${
                    using[0]!.status
                  }: delete the dataset once the job has ended (or delete the job to cancel it)`
                })
              )
            }
            yield* repo.remove(id)
          }))
          yield* bucket.remove(id).pipe(
            Effect.catchAll((error) =>
              Effect.logWarning(`Training dataset ${id} deleted, its file not: ${error.message}`)
            )
          )
          return new GenericDeleteResponse({ count: 1, success: true })
        }))
      .handle("contents", ({ path }) =>
        Effect.gen(function*() {
          const file = yield* repo.file(path.training_dataset_id, yield* callerAccounts)
          // the file is there before the answer starts (a missing one is the server's 500)
          yield* Effect.orDie(bucket.head(file.id))
          return HttpServerResponse.stream(contentsBody(store, file), { contentType: "application/json" })
        }))
  })
).pipe(Layer.provide([TrainingDatasetsRepo.Default, FineTuningJobsRepo.Default, ObjectStore.Default]))
