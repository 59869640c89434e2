/**
 * Agentex's spans (docs/agent-tasks.md "Spans"): `/spans` over the kit's one span store, the v5
 * spans' (../../spans/SpansRepo.ts writes and replaces the v5 span; AgentSpansRepo.ts reads it with
 * agentex's own columns). An agentex span is the v5 span of the same id: `start_time` and
 * `end_time` its `start_timestamp` and `end_timestamp`, `data` its `metadata`; `task_id` and which
 * fields came as arrays are columns of their own.
 */
import { type AgentSpanValue, Conflict, Span, ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdByIdentity } from "../../auth/access.js"
import type { ImplementGroup } from "../../http/groups.js"
import { Ids } from "../../platform/Ids.js"
import { instantOf } from "../../spans/instants.js"
import { SpansRepo } from "../../spans/SpansRepo.js"
import { TasksRepo } from "../tasks/TasksRepo.js"
import { AgentSpansRepo, agentSpanOf, type ArrayField, v5Value } from "./AgentSpansRepo.js"

/** Where a caller with several accounts and none selected is told to name one. */
const accountLoc = ["header", "x-selected-account-id"]

/** Agentex's message for an id already taken (agentex answers it with a 400; the kit's conflicts are 409s). */
const taken = new Conflict({ detail: "Item already exists. Please check all unique constraints and try again." })

/** 422 for an update whose end falls before the span's start. */
const endBeforeStart = (field: "start_time" | "end_time", input: string) =>
  new ValidationError({
    detail: [new ValidationIssue({ loc: ["body", field], msg: "end_time must not be before start_time", type: "value_error", input })]
  })

const isObject = (value: AgentSpanValue | null): value is { readonly [key: string]: unknown } =>
  value !== null && !Array.isArray(value)

/**
 * `data` of an update: merged member by member into the span's when both are objects and the
 * span's has members (agentex's `dict.update`), else the new value.
 */
const mergedData = (current: AgentSpanValue | null, given: AgentSpanValue): AgentSpanValue =>
  isObject(current) && isObject(given) && Object.keys(current).length > 0 ? { ...current, ...given } : given

export const AgentSpansHttp = (group: ImplementGroup) =>
  group("agentSpans", (handlers) =>
  Effect.gen(function*() {
    const spans = yield* SpansRepo
    const agentSpans = yield* AgentSpansRepo
    const tasks = yield* TasksRepo

    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(undefined, accountLoc)
          if (payload.task_id != null) yield* tasks.get(payload.task_id, [account_id])
          const id = payload.id ?? (yield* Effect.flatMap(Ids, (ids) => ids.make))
          const span = new Span({
            id,
            account_id,
            name: payload.name,
            start_timestamp: instantOf(payload.start_time).iso,
            trace_id: payload.trace_id,
            application_interaction_id: null,
            application_variant_id: null,
            created_by: yield* createdByIdentity,
            end_timestamp: payload.end_time == null ? null : instantOf(payload.end_time).iso,
            group_id: null,
            input: payload.input == null ? null : v5Value(payload.input),
            metadata: payload.data == null ? null : v5Value(payload.data),
            object: "span",
            output: payload.output == null ? null : v5Value(payload.output),
            parent_id: payload.parent_id ?? null,
            status: null,
            type: null
          }, true)
          const arrays = new Set((["input", "output", "data"] as const).filter((field) => Array.isArray(payload[field])))
          const taskId = payload.task_id ?? null
          yield* spans.transaction(Effect.gen(function*() {
            yield* Effect.mapError(spans.insertNew([span]), () => taken)
            yield* agentSpans.setAgentexColumns(account_id, id, taskId, arrays)
          }))
          return agentSpanOf({ span, taskId, arrays })
        }))
      .handle("get", ({ path }) =>
        Effect.flatMap(callerAccounts, (accounts) => Effect.map(agentSpans.get(path.span_id, accounts), agentSpanOf)))
      .handle("update", ({ path, payload }) =>
        spans.transaction(Effect.gen(function*() {
          const accounts = yield* callerAccounts
          const current = yield* agentSpans.get(path.span_id, accounts)
          const account = current.span.account_id
          if (payload.task_id != null) yield* tasks.get(payload.task_id, [account])
          const before = agentSpanOf(current)
          const start = payload.start_time == null ? instantOf(current.span.start_timestamp) : instantOf(payload.start_time)
          const endText = payload.end_time ?? current.span.end_timestamp
          const end = endText === null ? null : instantOf(endText)
          if (end !== null && end.ms < start.ms) {
            return yield* Effect.fail(
              payload.end_time == null ? endBeforeStart("start_time", payload.start_time!) : endBeforeStart("end_time", payload.end_time)
            )
          }
          const arrays = new Set(current.arrays)
          /** A field given (not null): its v5 value, and whether it is held wrapped. */
          const given = (field: ArrayField, value: AgentSpanValue) => {
            if (Array.isArray(value)) arrays.add(field)
            else arrays.delete(field)
            return v5Value(value)
          }
          const span = new Span({
            ...current.span,
            name: payload.name ?? current.span.name,
            start_timestamp: start.iso,
            trace_id: payload.trace_id ?? current.span.trace_id,
            end_timestamp: end?.iso ?? null,
            input: payload.input == null ? current.span.input : given("input", payload.input),
            output: payload.output == null ? current.span.output : given("output", payload.output),
            metadata: payload.data == null ? current.span.metadata : given("data", mergedData(before.data, payload.data)),
            parent_id: payload.parent_id ?? current.span.parent_id
          }, true)
          const taskId = payload.task_id ?? current.taskId
          yield* spans.replace(span)
          yield* agentSpans.setAgentexColumns(account, span.id, taskId, arrays)
          return agentSpanOf({ span, taskId, arrays })
        })))
      .handle("list", ({ urlParams }) =>
        Effect.gen(function*() {
          const listed = yield* agentSpans.list({
            accountIds: yield* accountsForRead(),
            traceId: urlParams.trace_id,
            taskId: urlParams.task_id,
            orderBy: urlParams.order_by ?? "start_time",
            direction: urlParams.order_direction ?? "desc",
            limit: urlParams.limit ?? 50,
            page: urlParams.page_number ?? 1
          })
          return listed.map(agentSpanOf)
        }))
  })
).pipe(Layer.provide([SpansRepo.Default, AgentSpansRepo.Default, TasksRepo.Default]))
