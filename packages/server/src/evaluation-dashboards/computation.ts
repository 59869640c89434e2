/**
 * Widgets computed (docs/evaluation-dashboards.md "Computing"): a request for a computation marks
 * the widget's result `pending` with the next `run` and a new `computation_job_id`; the
 * computation (a step of the `WidgetComputation` workflow, workflow.ts) reads the items of the
 * widget's evaluations and writes the result `completed` (or `failed` with `error_message`), unless
 * a newer request superseded it. While an evaluation it reads is running, the result stays
 * `pending`: that evaluation's end requests the computation again.
 */
import { EvaluationDashboardWidgetResult } from "@platform-kit/schema"
import { Cause, Effect, Option } from "effect"
import type { LifecycleEntity } from "../engine/Lifecycles.js"
import { EvaluationItemsRepo } from "../evaluations/EvaluationItemsRepo.js"
import { EvaluationsRepo } from "../evaluations/EvaluationsRepo.js"
import { Ids, nowIso } from "../platform/Ids.js"
import { computeWidget, type ItemRow } from "./compute.js"
import { DashboardsRepo, type StoredResult } from "./DashboardsRepo.js"

/** A computation to start: the widget, its account and the run it computes. */
export interface ComputationStart extends LifecycleEntity {
  readonly run: number
}

export class WidgetComputations extends Effect.Service<WidgetComputations>()("@platform-kit/server/WidgetComputations", {
  effect: Effect.gen(function*() {
    const dashboards = yield* DashboardsRepo
    const evaluations = yield* EvaluationsRepo
    const items = yield* EvaluationItemsRepo

    /** Marks the result of `widgetId` pending for its next run (call inside a transaction); the computation to start. */
    const request = (widgetId: string) =>
      Effect.gen(function*() {
        yield* dashboards.lockResult(widgetId)
        const found = yield* dashboards.resultOf(widgetId)
        if (Option.isNone(found)) return Option.none<ComputationStart>()
        const stored = found.value
        const run = stored.run + 1
        const job = yield* Effect.flatMap(Ids, (ids) => ids.make)
        yield* dashboards.saveResult({
          ...stored,
          run,
          result: new EvaluationDashboardWidgetResult({ ...stored.result, computation_status: "pending", computation_job_id: job })
        })
        return Option.some<ComputationStart>({ id: widgetId, account_id: stored.result.account_id, run })
      })

    /** Requests the computation of every widget that reads evaluation `evaluationId` (its query's, or its dashboard's). */
    const requestFor = (evaluationId: string, accountId: string) =>
      Effect.gen(function*() {
        const reading = (yield* dashboards.widgetsOfAccount(accountId)).filter(({ dashboard, widget }) =>
          widget.query.evaluation_ids.length > 0
            ? widget.query.evaluation_ids.includes(evaluationId)
            : dashboard.evaluation_id === evaluationId
        )
        const started = yield* Effect.forEach(reading, ({ widget }) => request(widget.id))
        return started.flatMap((start) => (Option.isSome(start) ? [start.value] : []))
      }).pipe(dashboards.transaction)

    /** Writes `stored`'s result as `change` makes it, unless a newer request superseded run `run`. */
    const settle = (widgetId: string, run: number, change: (stored: StoredResult) => Effect.Effect<StoredResult>) =>
      Effect.gen(function*() {
        yield* dashboards.lockResult(widgetId)
        const now = yield* dashboards.resultOf(widgetId)
        if (Option.isNone(now) || now.value.run !== run) return
        yield* dashboards.saveResult(yield* change(now.value))
      }).pipe(dashboards.transaction)

    const failed = (widgetId: string, run: number, message: string) =>
      settle(widgetId, run, (stored) =>
        Effect.map(nowIso, (computed_at) => ({
          ...stored,
          result: new EvaluationDashboardWidgetResult({
            ...stored.result,
            computation_status: "failed",
            error_message: message,
            computed_result: null,
            computed_at
          })
        })))

    const completed = (start: ComputationStart, computed_result: Readonly<Record<string, unknown>> | null) =>
      settle(start.id, start.run, (now) =>
        Effect.map(nowIso, (computed_at) => ({
          ...now,
          result: new EvaluationDashboardWidgetResult({
            ...now.result,
            computation_status: "completed",
            error_message: null,
            computed_result,
            computed_at
          })
        })))

    /** Computation `run` of widget `id`. */
    const compute = (start: ComputationStart) =>
      Effect.gen(function*() {
        const found = yield* dashboards.resultOf(start.id)
        if (Option.isNone(found) || found.value.run !== start.run) return
        const stored = found.value
        const widget = yield* Effect.option(dashboards.widgetOf(stored.dashboard_id, start.id, [start.account_id]))
        const dashboard = yield* Effect.option(dashboards.get(stored.dashboard_id, [start.account_id], true))
        if (Option.isNone(widget) || Option.isNone(dashboard)) return
        // a text widget: nothing to compute
        if (widget.value.type === "markdown" || widget.value.type === "heading") return yield* completed(start, null)
        const ids = widget.value.query.evaluation_ids.length > 0
          ? widget.value.query.evaluation_ids
          : dashboard.value.evaluation_id === null
          ? []
          : [dashboard.value.evaluation_id]
        if (ids.length === 0) {
          return yield* failed(start.id, start.run, "The widget reads no evaluation: give its query evaluation_ids, or its dashboard an evaluation_id")
        }
        const read = yield* Effect.forEach(ids, (id) => Effect.option(evaluations.get(id, [start.account_id], true)))
        const missing = ids.find((_, i) => Option.isNone(read[i]!))
        if (missing !== undefined) return yield* failed(start.id, start.run, `Evaluation ${missing} not found`)
        const read_ = read.map((evaluation) => Option.getOrThrow(evaluation))
        // an evaluation still running: its end asks for this widget again
        if (read_.some((evaluation) => evaluation.status === "running")) return
        const byId = new Map(read_.map((evaluation) => [evaluation.id, evaluation]))
        const rows: Array<ItemRow> = (yield* items.ofEvaluations(ids)).map((item) => {
          const evaluation = byId.get(item.evaluation_id)!
          return { item, evaluation: { id: evaluation.id, name: evaluation.name, status: evaluation.status } }
        })
        const computed = yield* Effect.try(() => computeWidget(widget.value.type, widget.value.query, rows)).pipe(Effect.either)
        if (computed._tag === "Left") return yield* failed(start.id, start.run, `The widget's query could not be computed: ${String(computed.left.error)}`)
        yield* completed(start, computed.right)
      })

    /**
     * What the engine's start computes: every result left `pending`. A computation a crash
     * interrupted is started again under its own run (a no-op when its workflow is under way or
     * done: one that ends always writes, `completed` or `failed`, unless a newer run superseded it
     * or an evaluation it reads still runs, whose end asks again); a result written before
     * computations existed (run 0) is requested anew.
     */
    const unfinished = Effect.flatMap(dashboards.pendingResults, (pending) =>
      Effect.forEach(pending, (stored) =>
        stored.run > 0
          ? Effect.succeed(Option.some<ComputationStart>({ id: stored.result.widget_id, account_id: stored.result.account_id, run: stored.run }))
          : request(stored.result.widget_id).pipe(dashboards.transaction))).pipe(
        Effect.map((starts) => starts.flatMap((start) => Option.toArray(start)))
      )

    /** What a computation that kept failing (`retried`) leaves: the result `failed` with the error. */
    const giveUp = (start: ComputationStart, cause: Cause.Cause<unknown>) =>
      failed(start.id, start.run, `The widget could not be computed: ${Cause.pretty(cause).split("\n")[0]}`).pipe(
        Effect.catchAllCause((again) => Effect.logError("a widget's computation could not record its failure", again))
      )

    return { request, requestFor, compute, unfinished, giveUp } as const
  }),
  dependencies: [DashboardsRepo.Default, EvaluationsRepo.Default, EvaluationItemsRepo.Default]
}) {}
