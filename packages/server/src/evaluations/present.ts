/** Stored evaluations as the API answers them. */
import { Evaluation, EvaluationItemProgress, EvaluationProgress, EvaluationWorkflowProgress } from "@platform-kit/schema"
import type { EvaluationStatus, EvaluationView } from "@platform-kit/schema"
import { Effect, Struct } from "effect"
import { EvaluationDatasetsLookup } from "./datasets.js"
import type { StoredEvaluation } from "./EvaluationsRepo.js"

/**
 * The progress of a new evaluation: one workflow per task, all pending; its items pending when a
 * task will run on them (`running`), else done. Every `total` is the sum of its counters.
 */
export const initialProgress = (tasks: number, items: number, running: boolean) =>
  new EvaluationProgress({
    workflows: new EvaluationWorkflowProgress({ total: tasks, completed: 0, failed: 0, pending: tasks }),
    items: new EvaluationItemProgress({
      total: items,
      successful: running ? 0 : items,
      failed: 0,
      pending: running ? items : 0,
      failed_items: []
    })
  }, true)

/** The status of a new evaluation: `running` with work to do (a task that runs), else `completed`. */
export const initialStatus = (running: boolean): EvaluationStatus => (running ? "running" : "completed")

/**
 * The evaluations as answered: their datasets as they are now (name, tags, archive state, …; the
 * entry stored at create stands in for a dataset no longer there), and `tasks` only with the
 * `tasks` view. One query for the datasets of any number of evaluations.
 */
export const present = (stored: ReadonlyArray<StoredEvaluation>, views: ReadonlyArray<EvaluationView> = []) =>
  Effect.gen(function*() {
    const lookup = yield* EvaluationDatasetsLookup
    const current = yield* lookup.entries(
      stored.flatMap((evaluation) => evaluation.datasets.map((dataset) => dataset.id)),
      [...new Set(stored.map((evaluation) => evaluation.account_id))]
    )
    const withTasks = views.includes("tasks")
    return stored.map((evaluation) =>
      new Evaluation({
        ...Struct.omit(evaluation, "account_id", "tasks", "run"),
        datasets: evaluation.datasets.map((dataset) => {
          const now = current.get(dataset.id)
          return now !== undefined && now.accountId === evaluation.account_id ? now.entry : dataset
        }),
        ...(withTasks ? { tasks: evaluation.tasks } : {})
      }, true)
    )
  })
