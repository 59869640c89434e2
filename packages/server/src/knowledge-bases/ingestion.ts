/**
 * The ingestion step an upload schedule's run calls (docs/knowledge-bases.md): reads the
 * schedule's data source into its knowledge base. A Layer, so the knowledge-base ingestion (its
 * own issue) replaces it, and a test can make runs fail. Until then the kit's step reads nothing,
 * and says so in the run it records.
 */
import type { UploadSchedule } from "@platform-kit/schema"
import { Context, Effect, Layer } from "effect"

export class UploadIngestion extends Context.Tag("@platform-kit/server/UploadIngestion")<UploadIngestion, {
  /** Runs one ingestion for `schedule`: a note on what it did, or fails with the reason. */
  readonly run: (schedule: UploadSchedule) => Effect.Effect<string | null, string>
}>() {
  /** Reads nothing yet: ingesting data sources is the knowledge-base issue's. */
  static readonly notYet = Layer.succeed(UploadIngestion, {
    run: () => Effect.succeed("Nothing was read: ingesting data sources is not implemented yet")
  })
}
