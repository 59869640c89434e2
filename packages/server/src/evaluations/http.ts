import {
  cursorOf,
  EvaluationDatasetEntry,
  EvaluationItem,
  Identity,
  NotFound,
  ValidationError,
  ValidationIssue
} from "@platform-kit/schema"
import type { CreateEvaluation, EvaluationDatasetInput, EvaluationView } from "@platform-kit/schema"
import { Effect, Layer, Struct } from "effect"
import { Lifecycles } from "../engine/Lifecycles.js"
import { Ids } from "../platform/Ids.js"
import { EvaluationItemsRepo, StoredEvaluationItem } from "./EvaluationItemsRepo.js"
import { accountForWrite, accountsForRead, callerAccounts, createdByIdentity } from "../auth/access.js"
import { DatasetItemsRepo, DatasetsRepo } from "../datasets/DatasetsRepo.js"
import { newDataset, storeNew } from "../datasets/records.js"
import { freshIdentity, nowIso } from "../platform/Ids.js"
import { EvaluationDatasetsLookup } from "./datasets.js"
import { EvaluationsRepo, StoredEvaluation } from "./EvaluationsRepo.js"
import { initialProgress, initialStatus, present } from "./present.js"
import { runs, taskOf } from "./tasks.js"
import type { ImplementGroup } from "../http/groups.js"

/** The ids of a create's `datasets` and `dataset_id`, in order, each once. */
const datasetIds = (payload: CreateEvaluation) => [
  ...new Set([
    ...(payload.datasets ?? []).map((ref) => (typeof ref === "string" ? ref : ref.id)),
    ...(payload.dataset_id === undefined ? [] : [payload.dataset_id])
  ])
]

/** An item a create makes: its data and files, and the dataset item it was made from or makes (and its version). */
interface MadeItem {
  readonly data: Record<string, unknown>
  readonly files: Record<string, string>
  readonly dataset_item_id: string | null
  readonly dataset_item_version_num: number | null
}

const invalid = (loc: ReadonlyArray<string | number>, msg: string, input: unknown) =>
  new ValidationError({ detail: [new ValidationIssue({ loc, msg, type: "value_error", input })] })

/** An item as answered: its evaluation's `archived_at`. */
const answerItem = (item: StoredEvaluationItem, archivedAt: string | null) =>
  new EvaluationItem({ ...Struct.omit(item, "account_id", "position", "run_status", "run_error"), archived_at: archivedAt }, true)

export const EvaluationsHttp = (group: ImplementGroup) =>
  group("evaluations", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* EvaluationsRepo
    const items = yield* EvaluationItemsRepo
    const lookup = yield* EvaluationDatasetsLookup
    const lifecycles = yield* Lifecycles

    /**
     * The data of a create's items: `data` as given; with `dataset_id`, the dataset's test cases
     * (all of them, or those `data` names by `dataset_item_id`, with the entry's other fields added).
     */
    const itemData = (payload: CreateEvaluation, account_id: string) =>
      Effect.gen(function*() {
        const data = payload.data ?? []
        if (payload.files !== undefined && payload.files.length > data.length) {
          return yield* Effect.fail(invalid(["body", "files"], "files has more entries than data has items", payload.files.length))
        }
        if (payload.dataset_id === undefined) {
          return data.map((entry, i): MadeItem => ({ data: entry, files: payload.files?.[i] ?? {}, dataset_item_id: null, dataset_item_version_num: null }))
        }
        const cases = yield* lookup.testCases(payload.dataset_id, account_id)
        if (data.length === 0) {
          return cases.map((testCase): MadeItem => ({
            data: testCase.test_case_data,
            files: {},
            dataset_item_id: testCase.id,
            dataset_item_version_num: testCase.version
          }))
        }
        const byId = new Map(cases.map((testCase) => [testCase.id, testCase]))
        const made: Array<MadeItem> = []
        for (const [i, entry] of data.entries()) {
          const { dataset_item_id, ...rest } = entry
          const testCase = typeof dataset_item_id === "string" ? byId.get(dataset_item_id) : undefined
          if (testCase === undefined) {
            return yield* Effect.fail(
              invalid(["body", "data", i, "dataset_item_id"], `Not an item of dataset ${payload.dataset_id}`, dataset_item_id ?? null)
            )
          }
          made.push({
            data: { ...testCase.test_case_data, ...rest },
            files: payload.files?.[i] ?? {},
            dataset_item_id: testCase.id,
            dataset_item_version_num: testCase.version
          })
        }
        return made
      })
    /**
     * The v5 dataset a create's `dataset` makes of its items (the third create variant,
     * docs/datasets.md): one item per evaluation item, holding its `keys` (all by default), the
     * dataset's version 1; each evaluation item then names its dataset item.
     */
    const newDatasetOf = (input: EvaluationDatasetInput, made: ReadonlyArray<MadeItem>, account_id: string, created_by: Identity) =>
      Effect.gen(function*() {
        if (made.length === 0) {
          return yield* Effect.fail(invalid(["body", "data"], "A dataset is made of data: give at least one item", []))
        }
        const keep = input.keys === undefined ? undefined : new Set(input.keys)
        const fresh = yield* newDataset(
          { name: input.name, description: input.description ?? null, tags: input.tags ?? [], account_id },
          made.map((item) => keep === undefined ? item.data : Object.fromEntries(Object.entries(item.data).filter(([key]) => keep.has(key)))),
          undefined,
          created_by
        )
        return {
          fresh,
          entry: new EvaluationDatasetEntry(Struct.omit(fresh.dataset, "account_id") as Omit<typeof fresh.dataset, "account_id">, true),
          items: made.map((item, i): MadeItem => ({ ...item, dataset_item_id: fresh.items[i]!.id, dataset_item_version_num: 1 }))
        }
      })
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
          if (payload.dataset !== undefined && payload.dataset_id !== undefined) {
            return yield* Effect.fail(invalid(["body", "dataset"], "Give dataset_id (an existing dataset) or dataset (a new one), not both", payload.dataset_id))
          }
          const ids = datasetIds(payload)
          const found = yield* lookup.entries(ids, [account_id])
          const missing = ids.find((id) => !found.has(id))
          if (missing !== undefined) {
            return yield* Effect.fail(new NotFound({ detail: `Evaluation dataset ${missing} not found` }))
          }
          const tasks = (payload.tasks ?? []).map(taskOf)
          const given = yield* itemData(payload, account_id)
          const created_by = new Identity(yield* createdByIdentity)
          const fresh = payload.dataset === undefined ? undefined : yield* newDatasetOf(payload.dataset, given, account_id, created_by)
          const made = fresh?.items ?? given
          const [id, created_at] = yield* freshIdentity
          // with a task to run, the items wait for the run (evaluations/run.ts); else they are done
          const running = tasks.some(runs)
          const ids_ = yield* Ids
          const stored = new StoredEvaluation({
            id,
            name: payload.name,
            description: payload.description ?? null,
            created_at,
            archived_at: null,
            created_by,
            tags: payload.tags ?? [],
            object: "evaluation",
            metadata: payload.metadata ?? {},
            error_count: 0,
            status: initialStatus(running),
            status_reason: null,
            datasets: [...ids.map((id) => found.get(id)!.entry), ...(fresh === undefined ? [] : [fresh.entry])],
            progress: initialProgress(tasks.length, made.length, running),
            tasks,
            account_id
          })
          const itemsMade = yield* Effect.forEach(made, (item, position) =>
            Effect.map(ids_.make, (itemId) =>
              new StoredEvaluationItem({
                id: itemId,
                object: "evaluation.item",
                evaluation_id: id,
                created_at,
                created_by,
                data: item.data,
                files: item.files,
                dataset_item_id: item.dataset_item_id,
                dataset_item_version_num: item.dataset_item_version_num,
                account_id,
                position,
                run_status: running ? "pending" : "successful",
                run_error: null
              }, true)))
          yield* items.transaction(Effect.all([
            fresh === undefined ? Effect.void : storeNew(fresh.fresh),
            repo.insert(stored),
            items.insertAll(itemsMade)
          ], { discard: true }))
          if (running) yield* lifecycles.start({ workflow: "EvaluationRun", id, account_id })
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
          let resumed = false
          const updated = yield* modify(path.evaluation_id, (current) => {
            // restoring an evaluation archived with items left to run resumes its run, on a run of its own
            resumed = payload.restore === true && current.archived_at !== null && current.progress !== null &&
              (current.progress.items?.pending ?? 0) > 0 && current.tasks.some(runs)
            return repo.update(
              new StoredEvaluation({
                ...current,
                name: payload.name ?? current.name,
                description: payload.description ?? current.description,
                tags: payload.tags ?? current.tags,
                metadata: payload.metadata ?? current.metadata,
                archived_at: payload.restore === true ? null : current.archived_at,
                ...(resumed ? { status: "running" as const, status_reason: null, run: current.run + 1 } : {})
              })
            )
          })
          if (resumed) {
            yield* lifecycles.start({ workflow: "EvaluationRun", id: updated.id, account_id: updated.account_id, run: updated.run })
          }
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
      .handle("listItems", ({ urlParams }) =>
        Effect.gen(function*() {
          const accountIds = yield* accountsForRead(urlParams.account_id)
          const page = yield* items.list({
            accountIds,
            evaluationId: urlParams.evaluation_id,
            includeArchived: urlParams.include_archived,
            ...Struct.omit(cursorOf(urlParams), "sortBy")
          })
          const archived = yield* repo.archivedAt([...new Set(page.items.map((item) => item.evaluation_id))], accountIds)
          return { ...page, items: page.items.map((item) => answerItem(item, archived.get(item.evaluation_id) ?? null)) }
        }))
      .handle("getItem", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const accounts = yield* callerAccounts
          const item = yield* items.get(path.evaluation_item_id, accounts, urlParams.include_archived === true)
          const archived = yield* repo.archivedAt([item.evaluation_id], accounts)
          return answerItem(item, archived.get(item.evaluation_id) ?? null)
        }))
  })
).pipe(Layer.provide([
  EvaluationsRepo.Default,
  EvaluationItemsRepo.Default,
  EvaluationDatasetsLookup.Default,
  DatasetsRepo.Default,
  DatasetItemsRepo.Default
]))
