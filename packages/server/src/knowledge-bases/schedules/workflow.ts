/**
 * An upload schedule's firings, durable workflows (docs/knowledge-bases.md, docs/engine.md): one
 * execution per firing, keyed by the schedule and the firing's number. A firing waits on a durable
 * timer until the schedule's `next_run_at`, then runs (`UploadSchedulesRepo.fire`: the ingestion
 * step, the run recorded, the next run planned) and starts the next firing. A change to the
 * schedule (PATCH: interval, next run, pause) moves its firing number on, so a firing planned
 * before it finds itself replaced and does nothing; the handler starts the new one.
 */
import { Activity, DurableClock, Workflow } from "@effect/workflow"
import { Clock, Duration, Effect, Layer, Schedule, Schema } from "effect"
import { LifecycleEntity, lifecycleKey } from "../../engine/Lifecycles.js"
import { startOnBoot } from "../../engine/startOnBoot.js"
import { UploadSchedulesRepo } from "./UploadSchedulesRepo.js"

/**
 * How a firing's step is tried again after a database error: soon at first, then every 30 s at
 * most, until it succeeds (a firing that failed for good would end the schedule's chain: its next
 * firing is started by this one).
 */
const untilDone = Schedule.union(Schedule.exponential("200 millis"), Schedule.spaced("30 seconds"))

export const UploadScheduleFiring = Workflow.make({
  name: "UploadScheduleFiring",
  payload: LifecycleEntity,
  idempotencyKey: lifecycleKey
})

const WorkflowLive = UploadScheduleFiring.toLayer(
  Effect.fn("UploadScheduleFiring")(function*(firing) {
    const repo = yield* UploadSchedulesRepo
    const due = yield* Activity.make({ name: "due", success: Schema.NullOr(Schema.String), execute: repo.dueAt(firing) })
    if (due === null) return
    const now = yield* Clock.currentTimeMillis
    yield* DurableClock.sleep({
      name: "until-due",
      duration: Duration.millis(Math.max(0, Date.parse(due) - now)),
      inMemoryThreshold: Duration.zero
    })
    const again = yield* Activity.make({
      name: "fire",
      success: Schema.Boolean,
      execute: repo.fire(firing).pipe(
        Effect.sandbox,
        Effect.tapError((cause) => Effect.logWarning("an upload schedule's firing failed; trying again", cause)),
        Effect.retry(untilDone),
        Effect.unsandbox
      )
    })
    if (again) yield* UploadScheduleFiring.execute({ ...firing, run: (firing.run ?? 0) + 1 }, { discard: true })
  })
)

/** The workflow, and the next firing of every schedule that fires when the engine starts. Needs `UploadSchedulesRepo`, `UploadIngestion`, `Ids`. */
export const UploadScheduleFiringLive = startOnBoot(
  "upload schedules",
  Effect.flatMap(UploadSchedulesRepo, (repo) => repo.active),
  (firing) => UploadScheduleFiring.execute(firing, { discard: true })
).pipe(Layer.provideMerge(WorkflowLive))
