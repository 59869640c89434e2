import {
  cursorOf,
  EvaluationDataset,
  EvaluationDatasetEntry,
  EvaluationItem,
  FlexibleTestCaseVersionResponse,
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
import { accountForWrite, accountsForRead, callerAccounts, createdBy, createdByIdentity } from "../auth/access.js"
import { EvaluationDatasetsRepo } from "../evaluation-datasets/EvaluationDatasetsRepo.js"
import { TestCasesRepo } from "../evaluation-datasets/TestCasesRepo.js"
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

/** An item a create makes: its data and files, and the test case it was made from or makes. */
interface MadeItem {
  readonly data: Record<string, unknown>
  readonly files: Record<string, string>
  readonly dataset_item_id: string | null
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
    const datasetsRepo = yield* EvaluationDatasetsRepo
    const testCasesRepo = yield* TestCasesRepo
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
          return data.map((entry, i): MadeItem => ({ data: entry, files: payload.files?.[i] ?? {}, dataset_item_id: null }))
        }
        const cases = yield* lookup.testCases(payload.dataset_id, account_id)
        if (data.length === 0) return cases.map((testCase) => ({ data: testCase.test_case_data, files: {}, dataset_item_id: testCase.id }))
        const byId = new Map(cases.map((testCase) => [testCase.id, testCase]))
        const made: Array<MadeItem> = []
        for (const [i, entry] of data.entries()) {
          const { dataset_item_id, ...rest } = entry
          const testCase = typeof dataset_item_id === "string" ? byId.get(dataset_item_id) : undefined
          if (testCase === undefined) {
            return yield* Effect.fail(
              invalid(["body", "data", i, "dataset_item_id"], `Not a test case of evaluation dataset ${payload.dataset_id}`, dataset_item_id ?? null)
            )
          }
          made.push({ data: { ...testCase.test_case_data, ...rest }, files: payload.files?.[i] ?? {}, dataset_item_id: testCase.id })
        }
        return made
      })
    /**
     * The evaluation dataset a create's `dataset` makes of its items (the third create variant):
     * one `FLEXIBLE` test case per item, holding the item's `keys` (all by default); each item then
     * names its test case.
     */
    const newDataset = (payload: CreateEvaluation, input: EvaluationDatasetInput, made: ReadonlyArray<MadeItem>, account_id: string) =>
      Effect.gen(function*() {
        if (made.length === 0) {
          return yield* Effect.fail(invalid(["body", "data"], "A dataset is made of data: give at least one item", []))
        }
        const [id, created_at] = yield* freshIdentity
        const by = yield* createdBy
        const ids_ = yield* Ids
        const keep = input.keys === undefined ? undefined : new Set(input.keys)
        const testCases = yield* Effect.forEach(made, (item) =>
          Effect.map(ids_.make, (caseId) =>
            new FlexibleTestCaseVersionResponse({
              id: caseId,
              evaluation_dataset_id: id,
              schema_type: "FLEXIBLE",
              test_case_data: keep === undefined ? item.data : Object.fromEntries(Object.entries(item.data).filter(([key]) => keep.has(key))),
              autogenerated: false,
              chat_history: null,
              test_case_metadata: null,
              account_id,
              ...by,
              created_at,
              updated_at: created_at,
              invalidated_at: null,
              archived_at: null
            })))
        return {
          dataset: new EvaluationDataset({
            id,
            name: input.name,
            description: input.description ?? null,
            schema_type: "GENERATION",
            knowledge_base_id: null,
            account_id,
            ...by,
            created_at,
            updated_at: created_at,
            archived_at: null
          }),
          entry: new EvaluationDatasetEntry({
            id,
            name: input.name,
            created_by: new Identity({ id: by.created_by_user_id, type: by.created_by_identity_type, object: "identity" }),
            created_at,
            tags: [],
            current_version_num: 1,
            object: "dataset",
            description: input.description ?? null,
            archived_at: null
          }, true),
          testCases,
          items: made.map((item, i): MadeItem => ({ ...item, dataset_item_id: testCases[i]!.id }))
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
          const fresh = payload.dataset === undefined ? undefined : yield* newDataset(payload, payload.dataset, given, account_id)
          const made = fresh?.items ?? given
          const [id, created_at] = yield* freshIdentity
          const created_by = new Identity(yield* createdByIdentity)
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
                dataset_item_version_num: item.dataset_item_id === null ? null : 1,
                account_id,
                position,
                run_status: running ? "pending" : "successful",
                run_error: null
              }, true)))
          yield* items.transaction(Effect.all([
            fresh === undefined ? Effect.void : Effect.zipRight(datasetsRepo.insert(fresh.dataset), testCasesRepo.insertAll(fresh.testCases)),
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
  EvaluationDatasetsRepo.Default,
  TestCasesRepo.Default
]))
