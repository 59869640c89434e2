import { Effect } from "effect"
import { countRows } from "../../sql/documentCounts.js"
import { documentTable } from "../../sql/documents.js"

/** The table of application files: plain documents; each file's bytes are in the object store. */
const created = Effect.gen(function*() {
  yield* documentTable("application_files")
  yield* countRows("application_files", { archived: false })
})

/** The application files migrations, by id (listed in ../../migrations.ts). */
export const applicationFilesMigrations = {
  "0052_application_files": created
}
