import { ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Effect, Layer, Option } from "effect"
import { accountForWrite, accountsForRead, callerAccounts } from "../auth/access.js"
import { freshIdentity } from "../platform/Ids.js"
import { EventsRepo, storedContent } from "./EventsRepo.js"
import type { ImplementGroup } from "../http/groups.js"

/**
 * The account whose task streams a request works on: the selected account, else the caller's only
 * one (a caller with several accounts names one with `x-selected-account-id`).
 */
const streamAccount = accountForWrite(undefined, ["header", "x-selected-account-id"])

export const EventsHttp = (group: ImplementGroup) =>
  group("events", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* EventsRepo
    return handlers
      .handle("append", ({ payload }) =>
        Effect.gen(function*() {
          const account_id = yield* streamAccount
          const [id, created_at] = yield* freshIdentity
          return yield* repo.append({
            id,
            account_id,
            task_id: payload.task_id,
            agent_id: payload.agent_id,
            created_at,
            content: storedContent(payload.content)
          })
        }))
      .handle("get", ({ path }) => Effect.flatMap(callerAccounts, (accounts) => repo.get(path.event_id, accounts)))
      .handle("list", ({ urlParams }) =>
        Effect.gen(function*() {
          // the selected account, else every account of the caller (as other lists read)
          let accountIds = yield* accountsForRead()
          let after = 0
          if (urlParams.last_processed_event_id !== undefined) {
            const position = yield* repo.positionOf(urlParams.last_processed_event_id, accountIds, urlParams.task_id)
            if (Option.isNone(position)) {
              return yield* Effect.fail(
                new ValidationError({
                  detail: [
                    new ValidationIssue({
                      loc: ["query", "last_processed_event_id"],
                      msg: "No event with this id in the task",
                      type: "value_error",
                      input: urlParams.last_processed_event_id
                    })
                  ]
                })
              )
            }
            // the position belongs to one account's stream: the list goes on in that stream
            accountIds = [position.value.accountId]
            after = position.value.sequence
          }
          return yield* repo.stream({
            accountIds,
            taskId: urlParams.task_id,
            agentId: urlParams.agent_id,
            after,
            limit: urlParams.limit ?? 100
          })
        }))
  })
).pipe(Layer.provide(EventsRepo.Default))
