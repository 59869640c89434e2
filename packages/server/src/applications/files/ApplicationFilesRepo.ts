import { ApplicationFile, type NotFound } from "@platform-kit/schema"
import { Effect, Stream } from "effect"
import { ObjectStore, type ObjectStoreError } from "../../platform/ObjectStore.js"
import { makeDocuments } from "../../sql/documents.js"

/** The bucket of the store's own (`ObjectStore.own`) that holds the files' bytes, each object named by its file's id. */
export const filesBucket = "application-files"

/**
 * The files uploaded for applications: their rows (documents) and their bytes in the object store.
 * `content` is how other code (the document nodes of application processing) reads a file.
 */
export class ApplicationFilesRepo extends Effect.Service<ApplicationFilesRepo>()("@platform-kit/server/ApplicationFilesRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "application_files",
      label: "Application file",
      schema: ApplicationFile,
      columns: (file) => ({ id: file.id, account_id: file.account_id, created_at: file.created_at })
    })
    const bucket = (yield* ObjectStore).own(filesBucket)

    /**
     * File `id` of one of `accountIds` (404 naming it otherwise) and its bytes, streamed from the
     * store as they are read (a file whose bytes are gone fails the stream with `ObjectNotFound`).
     */
    const content = (
      id: string,
      accountIds: ReadonlyArray<string>
    ): Effect.Effect<{ readonly file: ApplicationFile; readonly bytes: Stream.Stream<Uint8Array, ObjectStoreError> }, NotFound> =>
      Effect.map(documents.get(id, accountIds), (file) => ({ file, bytes: bucket.stream(file.id) }))

    /** Deletes file `id` of one of `accountIds` (404 otherwise), then its bytes (a failure there is logged). */
    const removeFile = (id: string, accountIds: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        yield* documents.transaction(Effect.zipRight(documents.get(id, accountIds), documents.remove(id)))
        yield* bucket.remove(id).pipe(
          Effect.catchAll((error) => Effect.logWarning(`Application file ${id} deleted, its bytes not: ${error.message}`))
        )
      })

    return { ...documents, content, removeFile } as const
  }),
  dependencies: [ObjectStore.Default]
}) {}
