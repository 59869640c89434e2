import { Span, type SpanCreate, SpanSearchPage, ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdByIdentity } from "../auth/access.js"
import { pageResponse, storedResponse } from "../http/storedResponses.js"
import { Ids } from "../platform/Ids.js"
import type { ImplementGroup } from "../http/groups.js"
import { instantOf } from "./instants.js"
import { SpansRepo } from "./SpansRepo.js"

/** Where a caller with several accounts and none selected is told to name one. */
const accountLoc = ["header", "x-selected-account-id"]

/** `{items, object: "list"}` made of the spans' JSON texts (what both batches answer). */
const batchResponse = (texts: ReadonlyArray<string>) => storedResponse(`{"items":[${texts.join(",")}],"object":"list"}`)

const searchResponse = pageResponse(SpanSearchPage)

/**
 * The spans of a create or a batch, as stored: in `account_id`, by the caller, an id made for each
 * item without one, timestamps in UTC (instants.ts); a repeated id counts once, as its last item,
 * at the place of its last item.
 */
const spansOf = (items: ReadonlyArray<SpanCreate>) =>
  Effect.gen(function*() {
    const account_id = yield* accountForWrite(undefined, accountLoc)
    const created_by = yield* createdByIdentity
    const ids = yield* Ids
    const byId = new Map<string, Span>()
    for (const item of items) {
      const id = item.id ?? (yield* ids.make)
      byId.delete(id)
      byId.set(
        id,
        new Span({
          id,
          account_id,
          name: item.name,
          start_timestamp: instantOf(item.start_timestamp).iso,
          trace_id: item.trace_id,
          application_interaction_id: item.application_interaction_id ?? null,
          application_variant_id: item.application_variant_id ?? null,
          created_by,
          end_timestamp: item.end_timestamp === undefined ? null : instantOf(item.end_timestamp).iso,
          group_id: item.group_id ?? null,
          input: item.input ?? null,
          metadata: item.metadata ?? null,
          object: "span",
          output: item.output ?? null,
          parent_id: item.parent_id ?? null,
          status: item.status ?? null,
          type: item.type ?? null
        }, true)
      )
    }
    return [...byId.values()]
  })

/** 422 for a PATCH whose `end_timestamp` is before the stored start. */
const endBeforeStart = (input: string) =>
  new ValidationError({
    detail: [
      new ValidationIssue({
        loc: ["body", "end_timestamp"],
        msg: "end_timestamp must not be before start_timestamp",
        type: "value_error",
        input
      })
    ]
  })

export const SpansHttp = (group: ImplementGroup) =>
  group("spans", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* SpansRepo

    return handlers
      .handle("create", ({ payload }) =>
        Effect.flatMap(spansOf([payload]), (spans) => Effect.map(repo.insertNew(spans), (texts) => storedResponse(texts[0]!))))
      .handle("batch", ({ payload }) =>
        Effect.flatMap(spansOf(payload.items), (spans) => Effect.map(repo.insertNew(spans), batchResponse)))
      .handle("upsertBatch", ({ payload }) =>
        Effect.flatMap(spansOf(payload.items), (spans) => Effect.map(repo.upsert(spans), batchResponse)))
      .handle("get", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) => Effect.map(repo.getText(path.span_id, accounts), storedResponse)))
      .handle("update", ({ path, payload }) =>
        repo.transaction(Effect.gen(function*() {
          const accounts = yield* callerAccounts
          const current = yield* repo.get(path.span_id, accounts)
          const end = payload.end_timestamp === undefined ? undefined : instantOf(payload.end_timestamp)
          if (end !== undefined && end.ms < instantOf(current.start_timestamp).ms) {
            return yield* Effect.fail(endBeforeStart(payload.end_timestamp!))
          }
          const text = yield* repo.replace(
            new Span({
              ...current,
              name: payload.name ?? current.name,
              end_timestamp: end?.iso ?? current.end_timestamp,
              metadata: payload.metadata ?? current.metadata,
              output: payload.output ?? current.output,
              status: payload.status ?? current.status
            }, true)
          )
          return storedResponse(text)
        })))
      .handle("search", ({ payload, urlParams }) =>
        Effect.gen(function*() {
          const accountIds = yield* accountsForRead()
          const page = yield* repo.search({
            accountIds,
            filters: payload,
            limit: urlParams.limit ?? 100,
            sortOrder: urlParams.sort_order ?? "desc",
            startingAfter: urlParams.starting_after,
            endingBefore: urlParams.ending_before,
            fromMs: urlParams.from_ts === undefined ? undefined : instantOf(urlParams.from_ts).ms,
            toMs: urlParams.to_ts === undefined ? undefined : instantOf(urlParams.to_ts).ms
          })
          return searchResponse(page)
        }))
  })
).pipe(Layer.provide(SpansRepo.Default))
