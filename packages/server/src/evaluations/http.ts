import { PlatformApi } from "@platform-kit/api"
import { cursorOf, Identity, NotFound } from "@platform-kit/schema"
import type { CreateEvaluation, EvaluationView } from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdByIdentity } from "../auth/access.js"
import { freshIdentity, nowIso } from "../platform/Ids.js"
import { EvaluationDatasetsLookup } from "./datasets.js"
import { EvaluationsRepo, StoredEvaluation } from "./EvaluationsRepo.js"
import { initialProgress, initialStatus, present } from "./present.js"
import { taskOf } from "./tasks.js"
import { group } from "../fast/implementations.js"

/** The ids of a create's `datasets`, in order, each once. */
const datasetIds = (refs: NonNullable<CreateEvaluation["datasets"]>) => [
  ...new Set(refs.map((ref) => (typeof ref === "string" ? ref : ref.id)))
]

export const EvaluationsLive = group(PlatformApi, "evaluations", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* EvaluationsRepo
    const lookup = yield* EvaluationDatasetsLookup
    const answer = (stored: ReadonlyArray<StoredEvaluation>, views: ReadonlyArray<EvaluationView> | undefined) =>
      Effect.provideService(present(stored, views), EvaluationDatasetsLookup, lookup)
    const one = (evaluation: StoredEvaluation, views: ReadonlyArray<EvaluationView> | undefined) =>
      Effect.map(answer([evaluation], views), (answered) => answered[0]!)
    /**
     * Read-modify-write of the caller's evaluation, archived or not (updates and archives address
     * either), atomic: see `EvaluationsRepo.modify`.
     */
    const modify = <E, R>(id: string, change: (current: StoredEvaluation) => Effect.Effect<StoredEvaluation, E, R>) =>
      Effect.flatMap(callerAccounts, (accounts) => repo.modify(id, accounts, change))

    return handlers
      .handle("create", ({ payload, urlParams }) =>
        Effect.gen(function*() {
          const account_id = yield* accountForWrite(payload.account_id)
          const ids = datasetIds(payload.datasets ?? [])
          const found = yield* lookup.entries(ids, [account_id])
          const missing = ids.find((id) => !found.has(id))
          if (missing !== undefined) {
            return yield* Effect.fail(new NotFound({ detail: `Evaluation dataset ${missing} not found` }))
          }
          const tasks = (payload.tasks ?? []).map(taskOf)
          const [id, created_at] = yield* freshIdentity
          const stored = yield* repo.insert(
            new StoredEvaluation({
              id,
              name: payload.name,
              description: payload.description ?? null,
              created_at,
              archived_at: null,
              created_by: new Identity(yield* createdByIdentity),
              tags: payload.tags ?? [],
              object: "evaluation",
              metadata: payload.metadata ?? {},
              error_count: 0,
              status: initialStatus(tasks.length),
              status_reason: null,
              datasets: ids.map((id) => found.get(id)!.entry),
              progress: initialProgress(tasks.length),
              tasks,
              account_id
            })
          )
          return yield* one(stored, urlParams.views)
        }))
      .handle("get", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const accounts = yield* callerAccounts
          const evaluation = yield* repo.get(path.evaluation_id, accounts, urlParams.include_archived === true)
          return yield* one(evaluation, urlParams.views)
        }))
      .handle("update", ({ path, payload, urlParams }) =>
        Effect.gen(function*() {
          const updated = yield* modify(path.evaluation_id, (current) =>
            repo.update(
              new StoredEvaluation({
                ...current,
                name: payload.name ?? current.name,
                description: payload.description ?? current.description,
                tags: payload.tags ?? current.tags,
                metadata: payload.metadata ?? current.metadata,
                archived_at: payload.restore === true ? null : current.archived_at
              })
            ))
          return yield* one(updated, urlParams.views)
        }))
      .handle("archive", ({ path, urlParams }) =>
        Effect.gen(function*() {
          // archiving an archived evaluation answers it as it is (the first archive time stays)
          const archived = yield* modify(path.evaluation_id, (current) =>
            current.archived_at !== null
              ? Effect.succeed(current)
              : Effect.flatMap(nowIso, (now) => repo.update(new StoredEvaluation({ ...current, archived_at: now }))))
          return yield* one(archived, urlParams.views)
        }))
      .handle("list", ({ urlParams }) =>
        Effect.gen(function*() {
          const accountIds = yield* accountsForRead(urlParams.account_id)
          const page = yield* repo.list({
            accountIds,
            ...cursorOf(urlParams),
            includeArchived: urlParams.include_archived,
            name: urlParams.name,
            tags: urlParams.tags
          })
          return { ...page, items: yield* answer(page.items, urlParams.views) }
        }))
  })
).pipe(Layer.provide([EvaluationsRepo.Default, EvaluationDatasetsLookup.Default]))
