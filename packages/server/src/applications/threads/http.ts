/**
 * Chat threads, their messages and feedback, thread processing, and interactions recorded from
 * outside (docs/applications.md "Threads", "Interactions from outside").
 */
import { SqlClient } from "@effect/sql"
import { CurrentCaller } from "@platform-kit/api"
import {
  ApplicationInteraction,
  type ApplicationVariant,
  ChatThread,
  ChatThreadFeedback,
  ChatThreadHistory,
  Deleted,
  InteractionCreated,
  InteractionEntry,
  MessageSpan,
  NodeLatency,
  NotFound,
  ThreadMessage,
  TraceSpanEntity,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { callerAccounts } from "../../auth/access.js"
import type { ImplementGroup } from "../../http/groups.js"
import { countTokens } from "../../models/inference/builtin.js"
import { freshIdentity, Ids } from "../../platform/Ids.js"
import { InteractionsRepo } from "../InteractionsRepo.js"
import { ProcessLive } from "../process/http.js"
import { ApplicationRunner } from "../process/runner.js"
import { processAnswer } from "../process/stream.js"
import { VariantsRepo } from "../specs/SpecsRepo.js"
import { FeedbackRepo, ThreadsRepo } from "./ThreadsRepo.js"

const threadNotFound = (id: string) => new NotFound({ detail: `Thread ${id} not found` })
const messageNotFound = (id: string) => new NotFound({ detail: `Message ${id} not found` })

/** The text of a recorded request or answer: its first text field (`input-text`, `query`, `response`, …), else its JSON. */
const textOf = (value: Readonly<Record<string, unknown>>, preferred: ReadonlyArray<string>): string => {
  for (const key of preferred) if (typeof value[key] === "string") return value[key] as string
  for (const field of Object.values(value)) {
    if (typeof field === "string") return field
    if (field !== null && typeof field === "object" && !Array.isArray(field)) {
      const inner = textOf(field as Record<string, unknown>, preferred)
      if (inner.length > 0) return inner
    }
  }
  return Object.keys(value).length === 0 ? "" : JSON.stringify(value)
}
const requestText = (input: Readonly<Record<string, unknown>>) => textOf(input, ["input-text", "query"])
const answerField = (output: Readonly<Record<string, unknown>>) => ("output-text" in output || !("response" in output) ? "output-text" : "response")
const answerText = (output: Readonly<Record<string, unknown>>) => textOf(output, ["output-text", "response"])

/** An interaction as a message's `entry`. */
const entryOf = (interaction: ApplicationInteraction) =>
  new InteractionEntry({
    id: interaction.id,
    application_spec_id: interaction.application_spec_id,
    application_variant_id: interaction.application_variant_id,
    aggregated: false,
    created_at: interaction.created_at,
    start_timestamp: interaction.start_timestamp,
    duration_ms: interaction.duration_ms,
    input: interaction.input,
    output: interaction.output,
    operation_status: interaction.error === null ? "SUCCESS" : "ERROR",
    operation_metadata: interaction.operation_metadata,
    chat_thread_id: interaction.chat_thread_id,
    interaction_source: interaction.interaction_source
  }, true)

/** A new thread's title: its first request, cut at 100 characters. */
const titleOf = (text: string) => (text.length > 100 ? `${text.slice(0, 99)}…` : text)

export const ApplicationThreadsHttp = (group: ImplementGroup) =>
  group("applicationThreads", (handlers) =>
    Effect.gen(function*() {
      const threads = yield* ThreadsRepo
      const feedback = yield* FeedbackRepo
      const interactions = yield* InteractionsRepo
      const variants = yield* VariantsRepo
      const runner = yield* ApplicationRunner
      const ids = yield* Ids
      const sql = yield* SqlClient.SqlClient

      /** The thread `id` of the caller's accounts; with `byUser`, only one the caller started. */
      const threadOf = (id: string, byUser: boolean) =>
        Effect.gen(function*() {
          const thread = yield* Effect.mapError(threads.get(id, yield* callerAccounts), () => threadNotFound(id))
          if (byUser && thread.created_by_user_id !== (yield* CurrentCaller).identityId) return yield* Effect.fail(threadNotFound(id))
          return thread
        })

      /** The thread `id` of `variant`, started (titled `title`) when no thread has the id; another account's or variant's: 404. */
      const threadFor = (id: string, variant: ApplicationVariant, title: string) =>
        Effect.gen(function*() {
          const taken = yield* Effect.orDie(sql<{ account_id: string; application_variant_id: string }>`
            SELECT account_id, application_variant_id FROM application_threads WHERE id = ${id}`)
          if (taken.length > 0) {
            if (taken[0]!.account_id !== variant.account_id || taken[0]!.application_variant_id !== variant.id) {
              return yield* Effect.fail(threadNotFound(id))
            }
            return yield* threads.get(id, [variant.account_id])
          }
          const [, created_at] = yield* freshIdentity
          return yield* threads.insert(
            new ChatThread({
              id,
              account_id: variant.account_id,
              application_variant_id: variant.id,
              title: titleOf(title),
              created_at,
              updated_at: created_at,
              created_by_user_id: (yield* CurrentCaller).identityId,
              archived_at: null,
              thread_metadata: null
            }, true)
          )
        })

      /** The message `interactionId` of thread `threadId`. */
      const messageOf = (threadId: string, interactionId: string, accountIds: ReadonlyArray<string>) =>
        Effect.flatMap(interactions.findById(interactionId, accountIds), (found) =>
          Option.isSome(found) && found.value.chat_thread_id === threadId ? Effect.succeed(found.value) : Effect.fail(messageNotFound(interactionId)))

      return handlers
        .handle("process", ({ path, payload }) =>
          Effect.gen(function*() {
            const variant = yield* variants.get(path.application_variant_id, yield* callerAccounts)
            const firstInput = requestText(payload.inputs)
            const thread = yield* variants.transaction(threadFor(path.thread_id, variant, firstInput))
            const earlier = (yield* interactions.ofThread(thread.id, [thread.account_id])).filter((turn) => turn.error === null)
            const history = [
              ...earlier.map((turn) => ({ request: requestText(turn.input), response: answerText(turn.output) })),
              ...(payload.history ?? [])
            ]
            const caller = yield* CurrentCaller
            return yield* processAnswer(
              (onText) =>
                runner.prepareVariant(variant, { ...payload, history }, caller, { chat_thread_id: thread.id, interaction_source: "SGP_CHAT" }, onText),
              payload.stream
            )
          }))
        .handle("list", ({ path }) =>
          Effect.gen(function*() {
            const variant = yield* variants.get(path.application_variant_id, yield* callerAccounts)
            return [...yield* threads.findNarrowed([variant.account_id], [sql`application_variant_id = ${variant.id}`])].reverse()
          }))
        .handle("update", ({ path, payload }) =>
          Effect.gen(function*() {
            const [, updated_at] = yield* freshIdentity
            return yield* threads.transaction(Effect.gen(function*() {
              const thread = yield* threadOf(path.thread_id, false)
              return yield* threads.update(
                new ChatThread({
                  ...thread,
                  ...(payload.title !== undefined ? { title: payload.title } : {}),
                  ...(payload.thread_metadata !== undefined ? { thread_metadata: payload.thread_metadata } : {}),
                  ...(payload.archived_at !== undefined
                    ? { archived_at: payload.archived_at === null ? null : new Date(Date.parse(payload.archived_at)).toISOString() }
                    : {}),
                  updated_at
                }, true)
              )
            }))
          }))
        .handle("delete", ({ path }) =>
          Effect.gen(function*() {
            yield* threads.transaction(Effect.gen(function*() {
              const thread = yield* threadOf(path.thread_id, false)
              yield* Effect.orDie(sql`DELETE FROM application_message_feedback WHERE application_interaction_id IN (
                SELECT id FROM application_interactions WHERE chat_thread_id = ${thread.id})`)
              yield* threads.remove(thread.id)
            }))
            return new Deleted({ id: path.thread_id, deleted: true })
          }))
        .handle("messages", ({ path, urlParams }) =>
          Effect.gen(function*() {
            const thread = yield* threadOf(path.thread_id, urlParams.fetch_by_account !== true)
            const variant = yield* variants.findById(thread.application_variant_id, [thread.account_id])
            const turns = yield* interactions.ofThread(thread.id, [thread.account_id])
            const turnIds = turns.map((turn) => turn.id)
            const feedbackOf = yield* feedback.ofMessages(turnIds)
            const spans = urlParams.fetch_spans === true ? yield* interactions.spansOf(turnIds) : undefined
            return new ChatThreadHistory({
              application_spec_id: Option.match(variant, {
                onNone: () => turns[0]?.application_spec_id ?? "",
                onSome: (found) => found.application_spec_id
              }),
              thread,
              messages: turns.map((turn) =>
                new ThreadMessage({
                  entry: entryOf(turn),
                  feedback: feedbackOf.get(turn.id) ?? null,
                  ...(spans !== undefined ? { spans: spans.get(turn.id) ?? [] } : {})
                }, true)
              )
            }, true)
          }))
        .handle("updateMessage", ({ path, payload, urlParams }) =>
          Effect.gen(function*() {
            const thread = yield* threadOf(path.thread_id, urlParams.fetch_by_account !== true)
            return yield* interactions.transaction(Effect.gen(function*() {
              const message = yield* messageOf(thread.id, path.application_interaction_id, [thread.account_id])
              if (payload.output_text === undefined) return entryOf(message)
              const output = { ...message.output, [answerField(message.output)]: payload.output_text }
              return entryOf(yield* interactions.update(new ApplicationInteraction({ ...message, output }, true)))
            }))
          }))
        .handle("createFeedback", ({ path, payload }) =>
          Effect.gen(function*() {
            const thread = yield* threadOf(path.thread_id, false)
            const [id, created_at] = yield* freshIdentity
            return yield* interactions.transaction(Effect.gen(function*() {
              const message = yield* messageOf(thread.id, path.application_interaction_id, [thread.account_id])
              // the interaction's thumbs: what the `feedback` metric counts
              yield* interactions.update(
                new ApplicationInteraction({ ...message, feedback: payload.sentiment === "positive" ? "thumbs_up" : "thumbs_down" }, true)
              )
              return yield* feedback.put(
                new ChatThreadFeedback({
                  id,
                  application_interaction_id: message.id,
                  chat_thread_id: thread.id,
                  created_at,
                  description: payload.description ?? "",
                  sentiment: payload.sentiment
                }, true),
                thread.account_id
              )
            }))
          }))
        .handle("deleteFeedback", ({ path }) =>
          Effect.gen(function*() {
            const thread = yield* threadOf(path.thread_id, false)
            yield* interactions.transaction(Effect.gen(function*() {
              const message = yield* messageOf(thread.id, path.application_interaction_id, [thread.account_id])
              if (!(yield* feedback.remove(message.id))) {
                return yield* Effect.fail(new NotFound({ detail: `Message ${message.id} has no feedback` }))
              }
              yield* interactions.update(new ApplicationInteraction({ ...message, feedback: null }, true))
            }))
            return new Deleted({ id: path.application_interaction_id, deleted: true })
          }))
        .handle("createInteraction", ({ payload }) =>
          Effect.gen(function*() {
            if (payload.guardrail_results !== undefined && payload.guardrail_results.length > 0) {
              return yield* Effect.fail(
                new ValidationError({
                  detail: [
                    new ValidationIssue({
                      loc: ["body", "guardrail_results"],
                      msg: "Guardrail results are not accepted: the kit keeps no guardrails or policies to attach them to",
                      type: "value_error",
                      input: payload.guardrail_results
                    })
                  ]
                })
              )
            }
            const caller = yield* CurrentCaller
            const variant = yield* variants.get(payload.application_variant_id, yield* callerAccounts)
            const [id, created_at] = yield* freshIdentity
            const start_timestamp = new Date(Date.parse(payload.start_timestamp)).toISOString()
            const status = payload.operation_status ?? "SUCCESS"
            const given = payload.trace_spans ?? []
            const spanIds = yield* Effect.forEach(given, () => ids.make)
            const spans = given.map((span, i) =>
              new MessageSpan({
                id: spanIds[i]!,
                application_interaction_id: id,
                node_id: span.node_id,
                operation_type: span.operation_type === "RETRIEVAL" ? "KB_RETRIEVAL" : span.operation_type,
                operation_status: span.operation_status ?? "SUCCESS",
                start_timestamp: new Date(Date.parse(span.start_timestamp)).toISOString(),
                duration_ms: span.duration_ms ?? 0,
                operation_input: span.operation_input ?? null,
                operation_output: span.operation_output ?? null,
                operation_metadata: span.operation_metadata ?? null,
                operation_expected: null
              }, true)
            )
            const thread = payload.thread_id === undefined
              ? undefined
              : yield* threadFor(payload.thread_id, variant, requestText(payload.input))
            yield* interactions.insert(
              new ApplicationInteraction({
                id,
                application_spec_id: variant.application_spec_id,
                application_variant_id: variant.id,
                start_timestamp,
                duration_ms: payload.duration_ms ?? 0,
                // counted by the kit's tokenizer (models/inference/builtin.ts): the caller sends no counts
                input_tokens: countTokens(requestText(payload.input)),
                output_tokens: countTokens(answerText(payload.output)),
                error: status === "ERROR"
                  ? (typeof payload.output.error === "string" ? payload.output.error : "The interaction failed (operation_status ERROR)")
                  : null,
                user_id: null,
                node_latencies: spans.map((span) => new NodeLatency({ node_id: span.node_id, duration_ms: span.duration_ms }, true)),
                feedback: null,
                input: payload.input,
                output: payload.output,
                operation_metadata: payload.operation_metadata ?? null,
                chat_thread_id: thread?.id ?? null,
                interaction_source: "EXTERNAL_AI",
                account_id: variant.account_id,
                created_by_user_id: caller.identityId,
                created_by_identity_type: caller.identityType,
                created_at
              }, true),
              spans
            )
            return new InteractionCreated({
              id,
              application_variant_id: variant.id,
              input: payload.input,
              output: payload.output,
              start_timestamp,
              duration_ms: payload.duration_ms ?? 0,
              guardrail_results: [],
              operation_metadata: payload.operation_metadata ?? null,
              operation_status: status,
              thread_id: thread?.id ?? null,
              trace_spans: given.map((span, i) =>
                new TraceSpanEntity({
                  id: spanIds[i]!,
                  application_interaction_id: id,
                  node_id: span.node_id,
                  operation_type: span.operation_type,
                  start_timestamp: spans[i]!.start_timestamp,
                  duration_ms: span.duration_ms ?? 0,
                  operation_input: span.operation_input ?? null,
                  operation_output: span.operation_output ?? null,
                  operation_metadata: span.operation_metadata ?? null,
                  operation_status: span.operation_status ?? "SUCCESS"
                }, true)
              )
            }, true)
          }).pipe(Effect.provideService(SqlClient.SqlClient, sql)))
    })
  ).pipe(Layer.provide([ThreadsRepo.Default, FeedbackRepo.Default, ProcessLive]))
