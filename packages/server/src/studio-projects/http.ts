/**
 * Studio projects (docs/questions.md "Studio projects"): stored documents; the write-only
 * `studio_api_key` is sealed at rest (`SecretBox`, bound to the project's id), never answered and
 * never logged (it is `Redacted` from the body on). A delete is for good: the spec has no restore.
 */
import { GenericDeleteResponse, pageOf, StudioProject } from "@platform-kit/schema"
import { Effect, Layer, Redacted } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import { SecretBox } from "../credentials/SecretBox.js"
import type { ImplementGroup } from "../http/groups.js"
import { storedResponse } from "../http/storedResponses.js"
import { freshIdentity } from "../platform/Ids.js"
import { StudioProjectsRepo } from "./StudioProjectsRepo.js"

export const StudioProjectsHttp = (group: ImplementGroup) =>
  group("studioProjects", (handlers) =>
    Effect.gen(function*() {
      const repo = yield* StudioProjectsRepo
      const box = yield* SecretBox
      return handlers
        .handle("create", ({ payload }) =>
          Effect.gen(function*() {
            const account_id = yield* accountForWrite(payload.account_id)
            const [id, created_at] = yield* freshIdentity
            const sealed = yield* box.encrypt(Redacted.value(payload.studio_api_key), id)
            return yield* repo.insert(
              new StudioProject({
                id,
                name: payload.name,
                description: payload.description,
                account_id,
                ...(yield* createdBy),
                created_at
              }, true),
              sealed
            )
          }))
        .handle("get", ({ path }) =>
          Effect.flatMap(callerAccounts, (accounts) => Effect.map(repo.getText(path.studio_project_id, accounts), storedResponse)))
        .handle("update", ({ path, payload }) =>
          Effect.gen(function*() {
            const accounts = yield* callerAccounts
            return yield* repo.transaction(Effect.gen(function*() {
              const current = yield* repo.get(path.studio_project_id, accounts)
              const sealed = payload.studio_api_key === undefined
                ? undefined
                : yield* box.encrypt(Redacted.value(payload.studio_api_key), current.id)
              return yield* repo.update(
                new StudioProject({
                  ...current,
                  name: payload.name ?? current.name,
                  description: payload.description ?? current.description
                }, true),
                sealed
              )
            }))
          }))
        .handle("list", ({ urlParams }) =>
          Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) => repo.page({ accountIds, ...pageOf(urlParams) })))
        // gone for good, sealed key included: the spec has no restore for a Studio project
        .handle("delete", ({ path }) =>
          Effect.flatMap(callerAccounts, (accounts) =>
            repo.transaction(Effect.gen(function*() {
              yield* repo.get(path.studio_project_id, accounts)
              yield* repo.remove(path.studio_project_id)
              return new GenericDeleteResponse({ count: 1, success: true })
            }))))
    })
  ).pipe(Layer.provide([StudioProjectsRepo.Default, SecretBox.Live]))
