/**
 * The ingestion step an upload schedule's run calls (docs/knowledge-bases.md "Upload schedules"):
 * starts an upload of the schedule's data source. A Layer: the kit's own
 * (`UploadIngestionLive`, ../uploads/workflow.ts) makes the upload and starts its workflow; a test can
 * make runs fail.
 */
import type { UploadSchedule } from "@platform-kit/schema"
import { Context, type Effect } from "effect"

export class UploadIngestion extends Context.Tag("@platform-kit/server/UploadIngestion")<UploadIngestion, {
  /** Runs the ingestion of firing `firing` of `schedule`: a note on what it did, or fails with the reason. */
  readonly run: (schedule: UploadSchedule, firing: number) => Effect.Effect<string | null, string>
}>() {}
