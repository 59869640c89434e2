/**
 * Task trackers (docs/agent-tasks.md "Trackers"), agentex's: read, listed, and written by the
 * task's agent as it processes the task's events.
 */
import { ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { accountsForRead, callerAccounts } from "../../auth/access.js"
import { EventsRepo } from "../../events/EventsRepo.js"
import type { ImplementGroup } from "../../http/groups.js"
import { nowIso } from "../../platform/Ids.js"
import { trackerOf, TrackersRepo } from "./TrackersRepo.js"

const cursorIssue = (msg: string, input: string) =>
  new ValidationError({ detail: [new ValidationIssue({ loc: ["body", "last_processed_event_id"], msg, type: "value_error", input })] })

export const TrackerHttp = (group: ImplementGroup) =>
  group("tracker", (handlers) =>
  Effect.gen(function*() {
    const trackers = yield* TrackersRepo
    const events = yield* EventsRepo

    return handlers
      .handle("get", ({ path }) => Effect.flatMap(callerAccounts, (accounts) => Effect.map(trackers.get(path.tracker_id, accounts), trackerOf)))
      .handle("update", ({ path, payload }) =>
        Effect.gen(function*() {
          const accounts = yield* callerAccounts
          return yield* trackers.transaction(Effect.gen(function*() {
            const current = yield* trackers.get(path.tracker_id, accounts)
            let cursor = current.last_processed_event_id
            const wanted = payload.last_processed_event_id
            if (wanted !== undefined && wanted !== null) {
              const to = yield* events.positionOf(wanted, [current.account_id], current.task_id)
              if (Option.isNone(to)) return yield* Effect.fail(cursorIssue(`Event with ID ${wanted} not found`, wanted))
              if (cursor !== null) {
                const from = yield* events.positionOf(cursor, [current.account_id], current.task_id)
                if (Option.isSome(from) && to.value.sequence < from.value.sequence) {
                  return yield* Effect.fail(
                    cursorIssue(`Cannot move cursor backwards: new sequence ID ${to.value.sequence} < current sequence ID ${from.value.sequence}`, wanted)
                  )
                }
              }
              cursor = wanted
            }
            return trackerOf(yield* trackers.update({
              ...current,
              last_processed_event_id: cursor,
              status: payload.status ?? null,
              status_reason: payload.status_reason ?? null,
              updated_at: yield* nowIso
            }))
          }))
        }))
      .handle("list", ({ urlParams }) =>
        Effect.gen(function*() {
          const listed = yield* trackers.list({
            accountIds: yield* accountsForRead(),
            page: urlParams.page_number ?? 1,
            limit: urlParams.limit ?? 50,
            orderBy: urlParams.order_by ?? "updated_at",
            direction: urlParams.order_direction ?? "desc",
            taskId: urlParams.task_id,
            agentId: urlParams.agent_id
          })
          return listed.map(trackerOf)
        }))
  })
).pipe(Layer.provide([TrackersRepo.Default, EventsRepo.Default]))
