/**
 * An upload, a durable workflow (docs/knowledge-bases.md "Uploads", docs/engine.md): step `plan`,
 * then one step per batch of files (`ingest-<n>`: up to 16 files or 1 MiB; two at a time), then
 * `finish` (runner.ts says what each does). A batch that completed is not run again after a
 * restart; the ones a crash interrupted run again, and ingest only what no step completed before
 * (each file's chunks are replaced whole, in one transaction: never duplicated). A step that fails
 * on its database five times over fails the upload with the reason.
 */
import { Activity, Workflow, WorkflowEngine } from "@effect/workflow"
import { Effect, Layer, Option, Schema } from "effect"
import { Ids, nowIso } from "../../platform/Ids.js"
import { DataSourcesRepo } from "../data-sources/DataSourcesRepo.js"
import { UploadIngestion } from "../schedules/ingestion.js"
import { LifecycleEntity, lifecycleKey } from "../../engine/Lifecycles.js"
import { retried } from "../../engine/retried.js"
import { startOnBoot } from "../../engine/startOnBoot.js"
import { UploadRunner } from "./runner.js"
import { newUpload, taggingOfDataSource, UploadsRepo } from "./UploadsRepo.js"

export const KnowledgeBaseUpload = Workflow.make({
  name: "KnowledgeBaseUpload",
  payload: LifecycleEntity,
  idempotencyKey: lifecycleKey
})

const WorkflowLive = KnowledgeBaseUpload.toLayer(
  Effect.fn("KnowledgeBaseUpload")(function*(upload) {
    const runner = yield* UploadRunner
    const batches = yield* Activity.make({
      name: "plan",
      success: Schema.Array(Schema.Array(Schema.String)),
      execute: retried(runner.plan(upload), (cause) => Effect.as(runner.giveUp(upload, cause), []))
    })
    // two batches at a time: one reads and writes while the other's chunks are embedded (on the
    // embeddings' thread, ../retrieval/embeddingThread.ts)
    yield* Effect.forEach(
      batches,
      (names, i) => Activity.make({ name: `ingest-${i}`, execute: retried(runner.ingest(upload, names), (cause) => runner.giveUp(upload, cause)) }),
      { concurrency: 2, discard: true }
    )
    yield* Activity.make({ name: "finish", execute: retried(runner.finish(upload), (cause) => runner.giveUp(upload, cause)) })
  })
)

/** The workflow, and the run of every upload left running when the engine starts. Needs `UploadRunner`, `UploadsRepo`. */
export const KnowledgeBaseUploadLive = startOnBoot(
  "uploads",
  Effect.flatMap(UploadsRepo, (uploads) => uploads.running),
  (upload) => KnowledgeBaseUpload.execute(upload, { discard: true })
).pipe(Layer.provideMerge(WorkflowLive))

/**
 * The ingestion of an upload schedule's firing: an upload of the schedule's data source, with its
 * chunking, made once per firing (a firing repeated finds the one it made) and started on the
 * engine. The run it records says which upload it started; the upload's own status says how it went.
 */
export const UploadIngestionLive = Layer.effect(
  UploadIngestion,
  Effect.gen(function*() {
    const uploads = yield* UploadsRepo
    const dataSources = yield* DataSourcesRepo
    const ids = yield* Ids
    const engine = yield* WorkflowEngine.WorkflowEngine
    const start = (upload: { readonly id: string; readonly account_id: string }) =>
      KnowledgeBaseUpload.execute({ id: upload.id, account_id: upload.account_id }, { discard: true }).pipe(
        Effect.provideService(WorkflowEngine.WorkflowEngine, engine)
      )
    return {
      run: (schedule, firing) =>
        Effect.gen(function*() {
          const key = `${schedule.id}#${firing}`
          const made = yield* uploads.ofFiring(key, schedule.account_id)
          if (Option.isSome(made)) {
            yield* start(made.value)
            return `Upload ${made.value.id} started`
          }
          const source = yield* dataSources.findById(schedule.knowledge_base_data_source_id, [schedule.account_id])
          if (Option.isNone(source)) return yield* Effect.fail(`Data source ${schedule.knowledge_base_data_source_id} not found`)
          const upload = yield* uploads.insert(newUpload({
            id: yield* ids.make,
            knowledge_base_id: schedule.knowledge_base_id,
            data_source_config: source.value.data_source_config,
            data_source_id: source.value.id,
            chunking_strategy_config: schedule.chunking_strategy_config,
            force_reupload: false,
            tagging_information: taggingOfDataSource(source.value.tagging_information),
            chunks: null,
            created_by_schedule_id: schedule.id,
            schedule_firing: key,
            account_id: schedule.account_id,
            created_by_user_id: schedule.created_by_user_id,
            created_by_identity_type: schedule.created_by_identity_type,
            created_at: yield* nowIso
          }))
          yield* start(upload)
          return `Upload ${upload.id} started`
        })
    }
  })
)
