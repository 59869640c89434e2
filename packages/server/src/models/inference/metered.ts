/**
 * A provider whose every call is measured and handed to `record` (docs/models.md "Usage"): the
 * operation, whether it streamed, when it started (the server's clock), how long it took (wall
 * time, to the last byte of a stream), the tokens, and how it ended: 200, the status of the
 * upstream's error, or 499 when the caller went away before a stream's end.
 */
import { HttpApiSchema } from "@effect/platform"
import { type ModelDeployment, type UpstreamError, UpstreamErrors } from "@platform-kit/schema"
import { Clock, type Context, Effect, Stream } from "effect"
import type { Ids } from "../../platform/Ids.js"
import { annotateRecordedSpan, openRecordedSpan, recordedSpan, type RecordedSpanOptions } from "../../spans/tracer.js"
import type { ModelUsageRepo } from "../usage/ModelUsageRepo.js"
import type { GenerationEvent, GenerationStream, Provider } from "./Provider.js"

/** What ran (a reranking runs, and is recorded as, the embeddings it compares). */
export type Operation = "chat_completion" | "completion" | "embedding"

export interface Execution {
  readonly operation: Operation
  readonly streamed: boolean
  readonly started_ms: number
  readonly latency_ms: number
  readonly prompt_tokens: number
  readonly response_tokens: number
  readonly status_code: number
  readonly error: string | null
}

/** The HTTP status of an upstream's error, as its Schema declares it (`HttpApiSchema.annotations`). */
export const upstreamStatus = (error: UpstreamError): number =>
  HttpApiSchema.getStatusError(UpstreamErrors.find((Error) => error instanceof Error)!)

const failed = (error: UpstreamError) => ({ status_code: upstreamStatus(error), error: error.detail })

/** What a span of an execution says of its usage. */
const usageAttributes = (execution: Pick<Execution, "prompt_tokens" | "response_tokens" | "status_code">) => ({
  prompt_tokens: execution.prompt_tokens,
  response_tokens: execution.response_tokens,
  status_code: execution.status_code
})

/**
 * How a metered call is traced (spans/tracer.ts): a `model.execution` span with these options,
 * its usage added when it ends.
 */
export type ExecutionTrace = Pick<RecordedSpanOptions, "accountId" | "createdBy" | "attributes">

export const metered = (
  provider: Provider,
  record: (execution: Execution) => Effect.Effect<void>,
  trace: ExecutionTrace = {}
): Provider => {
  /** The span options of an execution of `operation`. */
  const spanOptions = (operation: Operation, streamed: boolean): RecordedSpanOptions => ({
    ...trace,
    type: operation === "embedding" ? "CUSTOM" : "COMPLETION",
    attributes: { ...trace.attributes, operation, streamed }
  })
  /** Runs `call`, recording what `usageOf` reads of its answer, or its failure. */
  const measure = <A>(
    operation: Operation,
    call: Effect.Effect<A, UpstreamError>,
    usageOf: (answer: A) => { readonly prompt_tokens: number; readonly response_tokens: number }
  ) =>
    Effect.flatMap(Clock.currentTimeMillis, (started_ms) => {
      const startedAt = performance.now()
      const base = () => ({ operation, streamed: false, started_ms, latency_ms: Math.round(performance.now() - startedAt) })
      const measured = call.pipe(
        Effect.tap((answer) => {
          const { prompt_tokens, response_tokens } = usageOf(answer)
          return record({ ...base(), prompt_tokens, response_tokens, status_code: 200, error: null })
        }),
        Effect.tapError((error) => {
          const execution = { ...base(), prompt_tokens: 0, response_tokens: 0, ...failed(error) }
          return Effect.zipRight(annotateRecordedSpan(usageAttributes(execution)), record(execution))
        })
      )
      return recordedSpan(measured, "model.execution", {
        ...spanOptions(operation, false),
        attributesOf: (answer) => {
          const { prompt_tokens, response_tokens } = usageOf(answer)
          return { prompt_tokens, response_tokens, status_code: 200 }
        }
      })
    })

  /** A stream, recorded when it ends: its finish's counts, its failure, or the caller gone. */
  const measureStream = (operation: Operation, generation: GenerationStream): GenerationStream =>
    Effect.gen(function*() {
      const started_ms = yield* Clock.currentTimeMillis
      const startedAt = performance.now()
      const base = () => ({ operation, streamed: true, started_ms, latency_ms: Math.round(performance.now() - startedAt) })
      // the execution's span ends with the stream (spans/tracer.ts)
      const span = yield* openRecordedSpan("model.execution", spanOptions(operation, true))
      const events = yield* Effect.tapError(
        generation,
        (error) => {
          const execution = { ...base(), prompt_tokens: 0, response_tokens: 0, ...failed(error) }
          span.end({ _tag: "Failure", message: error.detail, attributes: usageAttributes(execution) })
          return record(execution)
        }
      )
      let finish: Extract<GenerationEvent, { _tag: "Finish" }> | undefined
      let failure: UpstreamError | undefined
      return events.pipe(
        Stream.tap((event) => Effect.sync(() => (finish = event._tag === "Finish" ? event : finish))),
        Stream.tapError((error) => Effect.sync(() => (failure = error))),
        Stream.ensuring(Effect.suspend(() => {
          const execution: Execution = {
            ...base(),
            prompt_tokens: finish?.prompt_tokens ?? 0,
            response_tokens: finish?.response_tokens ?? 0,
            ...(failure !== undefined
              ? failed(failure)
              : finish !== undefined
              ? { status_code: 200, error: null }
              : { status_code: 499, error: "The caller went away before the stream's end" })
          }
          // the caller gone before the end: the span is CANCELED
          span.end(
            execution.error === null
              ? { _tag: "Success", attributes: usageAttributes(execution) }
              : execution.status_code === 499
              ? { _tag: "Canceled", attributes: usageAttributes(execution) }
              : { _tag: "Failure", message: execution.error, attributes: usageAttributes(execution) }
          )
          return record(execution)
        }))
      )
    })

  return {
    chat: (messages, options) => measure("chat_completion", provider.chat(messages, options), (answer) => answer),
    complete: (prompt, options) => measure("completion", provider.complete(prompt, options), (answer) => answer),
    embed: (texts) =>
      measure("embedding", provider.embed(texts), (answer) => ({ prompt_tokens: answer.tokens, response_tokens: 0 })),
    chatStream: (messages, options) => measureStream("chat_completion", provider.chatStream(messages, options)),
    completeStream: (prompt, options) => measureStream("completion", provider.completeStream(prompt, options))
  }
}

/** Who a call is recorded for: the account it runs in, and the identity that asked (a request's caller, an evaluation's creator). */
export interface UsageCaller {
  readonly account_id: string
  readonly caller_id: string
  readonly caller_type: string
}

/** What `recorded` writes with: the ids of the rows and the usage table. */
export interface Recording {
  readonly ids: Context.Tag.Service<Ids>
  readonly usage: ModelUsageRepo
}

/** `provider` with each of its calls recorded in `usage` for `caller`, on `deployment` (none: the built-in model by name). */
export const recorded = (
  { ids, usage }: Recording,
  provider: Provider,
  deployment: ModelDeployment | undefined,
  caller: UsageCaller
): Provider =>
  metered(provider, (execution) =>
    Effect.flatMap(ids.make, (id) =>
      usage.record({
        ...execution,
        ...caller,
        id,
        model_deployment_id: deployment?.id ?? null,
        model_instance_id: deployment?.model_instance_id ?? null
      })), {
    accountId: caller.account_id,
    createdBy: { id: caller.caller_id, type: caller.caller_type },
    attributes: {
      model: deployment?.name ?? "builtin",
      model_deployment_id: deployment?.id ?? null,
      model_instance_id: deployment?.model_instance_id ?? null
    }
  })
