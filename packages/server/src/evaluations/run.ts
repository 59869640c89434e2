/**
 * An evaluation's run (docs/evaluations.md "Running"): its tasks on each of its items, one item
 * after the other in task order (a task reads the results of the tasks before it), up to
 * `concurrency` items at once. The run goes batch by batch (`step`, one durable step of the
 * evaluation's workflow each, evaluations/workflow.ts): a batch is the next pending items; their
 * results and the evaluation's progress and status are written together, in one transaction, so a
 * poller sees counts that add up and a restart runs only what no batch wrote.
 */
import type { ChatCompletionConfiguration, EvaluationTask, MetricConfiguration } from "@platform-kit/schema"
import { EvaluationItemProgress, EvaluationProgress, EvaluationWorkflowProgress, taskAlias } from "@platform-kit/schema"
import { Cause, Effect, Either, Option } from "effect"
import type { GenerationOptions, Message, Provider } from "../models/inference/Provider.js"
import { recorded } from "../models/inference/metered.js"
import type { LifecycleEntity } from "../engine/Lifecycles.js"
import { ModelResolver } from "../models/inference/ModelResolver.js"
import { ModelUsageRepo } from "../models/usage/ModelUsageRepo.js"
import { Ids } from "../platform/Ids.js"
import { recordedSpan } from "../spans/tracer.js"
import { EvaluationItemsRepo, type StoredEvaluationItem } from "./EvaluationItemsRepo.js"
import { EvaluationsRepo, StoredEvaluation } from "./EvaluationsRepo.js"
import { asText, resolve } from "./locators.js"
import { computeMetric } from "./metrics.js"
import { runs } from "./tasks.js"

/** Items run at once, per evaluation (each model deployment bounds its own calls too: `max_concurrency`). */
export const concurrency = 16
/** Items per batch: per durable step. */
export const batchSize = 64
/** Failed items `progress.items.failed_items` lists at most (the counters count them all). */
const failedItemsListed = 1000

/** Why a task failed on an item. */
interface UnitFailure {
  readonly error: string
  readonly error_type: string
}

const failure = (error: string, error_type: string): UnitFailure => ({ error, error_type })


/** A message of a resolved `messages` as the provider takes it (text parts joined; images not read). */
const messageOf = (value: unknown): Either.Either<Message, string> => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return Either.left("a message is not an object")
  const { content, role } = value as Record<string, unknown>
  const text = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.flatMap((part) => (typeof part?.text === "string" ? [part.text] : [])).join("\n")
    : content === undefined || content === null
    ? ""
    : asText(content)
  return Either.right({ role: role === "system" || role === "assistant" ? role : "user", content: text })
}

const number = (value: unknown) => (typeof value === "number" ? value : undefined)

/** The generation options of a resolved configuration. */
const optionsOf = (configuration: Record<string, unknown>): GenerationOptions => ({
  max_tokens: number(configuration.max_tokens) ?? number(configuration.max_completion_tokens),
  temperature: number(configuration.temperature),
  top_p: number(configuration.top_p),
  top_k: number(configuration.top_k),
  frequency_penalty: number(configuration.frequency_penalty),
  presence_penalty: number(configuration.presence_penalty),
  stop: typeof configuration.stop === "string"
    ? [configuration.stop]
    : Array.isArray(configuration.stop) && configuration.stop.every((one) => typeof one === "string")
    ? configuration.stop
    : undefined,
  logprobs: typeof configuration.logprobs === "boolean" ? configuration.logprobs : undefined,
  top_logprobs: number(configuration.top_logprobs)
})

export class EvaluationRunner extends Effect.Service<EvaluationRunner>()("@platform-kit/server/EvaluationRunner", {
  effect: Effect.gen(function*() {
    const evaluations = yield* EvaluationsRepo
    const items = yield* EvaluationItemsRepo
    const resolver = yield* ModelResolver
    const usage = yield* ModelUsageRepo
    const ids = yield* Ids

    /** A chat completion on `data`: the model's answer text. */
    const chat = (
      given: ChatCompletionConfiguration,
      data: Record<string, unknown>,
      providerOf: (model: string) => Effect.Effect<Provider, UnitFailure>
    ) =>
      Effect.gen(function*() {
        const resolved = resolve(given, data)
        if (Either.isLeft(resolved)) return yield* Effect.fail(failure(resolved.left, "ItemLocatorError"))
        const configuration = resolved.right as Record<string, unknown>
        const messages = configuration.messages
        if (!Array.isArray(messages) || messages.length === 0) {
          return yield* Effect.fail(failure("The task's messages are not a non-empty array of messages", "ConfigurationError"))
        }
        const conversation: Array<Message> = []
        for (const message of messages) {
          const one = messageOf(message)
          if (Either.isLeft(one)) return yield* Effect.fail(failure(one.left, "ConfigurationError"))
          conversation.push(one.right)
        }
        const provider = yield* providerOf(String(configuration.model))
        const generated = yield* provider.chat(conversation, optionsOf(configuration)).pipe(
          Effect.mapError((error) => failure(error.detail, error._tag))
        )
        return generated.text
      })

    /** A metric between two texts of `data`. */
    const metric = (configuration: typeof MetricConfiguration.Type, data: Record<string, unknown>) =>
      Effect.gen(function*() {
        const candidate = resolve(configuration.candidate, data)
        if (Either.isLeft(candidate)) return yield* Effect.fail(failure(candidate.left, "ItemLocatorError"))
        const reference = resolve(configuration.reference, data)
        if (Either.isLeft(reference)) return yield* Effect.fail(failure(reference.left, "ItemLocatorError"))
        return computeMetric(configuration.type, asText(candidate.right), asText(reference.right))
      })

    /** `item` with every task that runs done on it, in order, or failed at the first that failed. */
    const runItem = (
      item: StoredEvaluationItem,
      tasks: ReadonlyArray<EvaluationTask>,
      providerOf: (model: string) => Effect.Effect<Provider, UnitFailure>
    ) =>
      Effect.gen(function*() {
        const data: Record<string, unknown> = { ...item.data }
        for (const task of tasks.filter(runs)) {
          const alias = taskAlias(task)
          const result = yield* Effect.either<unknown, UnitFailure, never>(
            // the task in the kit's own trace of the item (spans/tracer.ts; the item's span is `step`'s)
            recordedSpan<unknown, UnitFailure, never>(
              task.task_type === "chat_completion"
                ? chat(task.configuration, data, providerOf)
                : metric(task.configuration as typeof MetricConfiguration.Type, data),
              "evaluation.task",
              {
                type: "EVALUATION",
                attributes: { evaluation_id: item.evaluation_id, item_id: item.id, task_alias: alias, task_type: task.task_type },
                output: (value) => ({ [alias]: value })
              }
            )
          )
          if (Either.isLeft(result)) {
            return { ...item, data, run_status: "failed" as const, run_error: { alias, ...result.left } }
          }
          data[alias] = result.right
        }
        return { ...item, data, run_status: "successful" as const, run_error: null }
      })

    /** The evaluation's progress and status from where its items stand (`stopped`: archived with items left). */
    const settle = (evaluation: StoredEvaluation, stopped: boolean) =>
      Effect.gen(function*() {
        const tally = yield* items.tally(evaluation.id, failedItemsListed)
        const total = tally.pending + tally.successful + tally.failed
        const finished = tally.pending === 0
        const failedAliases = new Set(tally.failedAliases)
        const running = evaluation.tasks.filter(runs)
        const failedTasks = finished ? running.filter((task) => failedAliases.has(taskAlias(task))).length : 0
        const completedTasks = finished ? running.length - failedTasks : 0
        // archived with items left: stopped; once nothing is pending, the failures alone decide
        const status = !finished ? (stopped ? "failed" as const : "running" as const) : tally.failed > 0 ? "failed" as const : "completed" as const
        return new StoredEvaluation({
          ...evaluation,
          status,
          error_count: tally.failed,
          status_reason: stopped && !finished
            ? `Archived while running: ${tally.pending} of ${total} items were not run`
            : tally.failed > 0
            ? `${tally.failed} of ${total} items failed`
            : null,
          progress: new EvaluationProgress({
            workflows: new EvaluationWorkflowProgress({
              total: evaluation.tasks.length,
              completed: completedTasks,
              failed: failedTasks,
              pending: evaluation.tasks.length - completedTasks - failedTasks
            }),
            items: new EvaluationItemProgress({
              total,
              successful: tally.successful,
              failed: tally.failed,
              pending: tally.pending,
              failed_items: tally.failedItems.map((item) => ({
                item_id: item.id,
                error: item.run_error?.error ?? null,
                error_type: item.run_error?.error_type ?? null
              }))
            })
          }, true)
        })
      })

    /**
     * One batch of run `entity.run` of evaluation `entity.id`: the next pending items run and
     * written with the evaluation's progress and status. Answers whether the run goes on: not once
     * no item is pending, nor when the evaluation is archived (its remaining items are not run),
     * gone, or on a later run (restored: that run goes on instead).
     */
    const step = (entity: LifecycleEntity) =>
      Effect.gen(function*() {
        const found = yield* Effect.option(evaluations.get(entity.id, [entity.account_id], true))
        if (Option.isNone(found) || found.value.run !== (entity.run ?? 0)) return false
        const evaluation = found.value
        const stopped = evaluation.archived_at !== null
        const batch = stopped ? [] : yield* items.pending(entity.id, batchSize)
        // the models of the batch, each resolved once (a resolution that failed fails every item of
        // that task); their calls recorded in the usage statistics as the evaluation's creator's
        const caller = {
          account_id: entity.account_id,
          caller_id: evaluation.created_by.id,
          caller_type: evaluation.created_by.type
        }
        const providerOf = yield* Effect.cachedFunction((model: string) =>
          resolver.resolve(model, [entity.account_id]).pipe(
            Effect.map(({ deployment, provider }) => recorded({ ids, usage }, provider, deployment, caller)),
            Effect.mapError((error) => failure(error.detail, error._tag))
          )
        )
        // each item a trace of the kit's own (spans/tracer.ts): the item, a child per task
        const done = yield* Effect.forEach(batch, (item) =>
          recordedSpan(runItem(item, evaluation.tasks, providerOf), "evaluation.item", {
            accountId: entity.account_id,
            createdBy: evaluation.created_by,
            type: "EVALUATION",
            attributes: { evaluation_id: entity.id, item_id: item.id },
            input: item.data,
            output: (ran) => ran.data,
            errorOf: (ran) => ran.run_error?.error
          }), { concurrency })
        yield* evaluations.modify(entity.id, [entity.account_id], (current) =>
          // restored onto a later run while this batch ran: that run owns the items now, nothing is written
          current.run !== (entity.run ?? 0)
            ? Effect.succeed(current)
            : Effect.gen(function*() {
              yield* Effect.forEach(done, items.update, { discard: true })
              return yield* evaluations.update(yield* settle(current, current.archived_at !== null))
            }))
        return batch.length > 0
      }).pipe(
        // an evaluation gone while its batch ran (the control plane's reset): nothing left to run
        Effect.catchTag("NotFound", () => Effect.succeed(false))
      )

    /**
     * What a batch that kept failing (`retried`, engine/retried.ts) leaves: the evaluation `failed`,
     * its reason the error, its pending items pending. The run ends there.
     */
    const giveUp = (entity: LifecycleEntity, cause: Cause.Cause<unknown>) =>
      evaluations.modify(entity.id, [entity.account_id], (current) =>
        current.run !== (entity.run ?? 0) ? Effect.succeed(current) : Effect.flatMap(settle(current, false), (settled) =>
          evaluations.update(
            new StoredEvaluation({
              ...settled,
              status: "failed",
              status_reason: `The run stopped on an error: ${Cause.pretty(cause).split("\n")[0]}`
            })
          ))).pipe(
          Effect.as(false),
          Effect.catchAllCause((again) => Effect.as(Effect.logError("an evaluation's run could not record its failure", again), false))
        )

    return { step, giveUp } as const
  }),
  dependencies: [EvaluationsRepo.Default, EvaluationItemsRepo.Default]
}) {}
