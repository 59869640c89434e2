/**
 * Evaluations that run (docs/evaluations.md "Running"): items made by the create variants, the
 * tasks run on the engine (the built-in model, a metric, an upstream of the test's own on
 * 127.0.0.1), progress and status as a poller sees them, items read back, archive stopping a run.
 */
import { assert, layer } from "@effect/vitest"
import { Evaluation, EvaluationItem } from "@platform-kit/schema"
import { Effect, Option, Schema, TestClock, TestServices } from "effect"
import { eventually, provision, request, TestServerLive } from "../src/testing.js"
import { type Caller, readyDeployment } from "./support/models.js"
import { chatAnswer, upstream } from "./support/upstream.js"

const post = (caller: Caller, path: string, body: unknown) => request("POST", path, { key: caller.key, body })
const get = (caller: Caller, path: string) => request("GET", path, { key: caller.key })

const stateOf = (evaluation: any) => ({
  status: evaluation.status,
  progress: evaluation.progress,
  error_count: evaluation.error_count,
  status_reason: evaluation.status_reason
})

/**
 * Polls evaluation `id` until its status is no longer `running`; answers every distinct
 * (status, progress) a poller saw, in order, the last one the end. `first` is the state the
 * create (or restore) answered: what a poller sees first, even when the run ends before its
 * first read.
 */
const pollToEnd = (caller: Caller, id: string, first?: any) =>
  Effect.gen(function*() {
    const seen: Array<any> = first === undefined ? [] : [stateOf(first)]
    const end = yield* eventually(
      Effect.map(get(caller, `/v5/evaluations/${id}`), (read) => {
        assert.strictEqual(read.status, 200)
        const state = stateOf(read.body)
        if (seen.length === 0 || JSON.stringify(seen.at(-1)) !== JSON.stringify(state)) seen.push(state)
        return state.status === "running" ? Option.none() : Option.some(state)
      }),
      60_000
    )
    assert.isTrue(Option.isSome(end), `evaluation ${id} still running: ${JSON.stringify(seen.at(-1))}`)
    return seen
  })

/** Every item of evaluation `id`, in order (walking the cursor `limit` at a time). */
const itemsOf = (caller: Caller, id: string, limit = 100) =>
  Effect.gen(function*() {
    const all: Array<any> = []
    let after: string | undefined
    for (;;) {
      const page = yield* get(
        caller,
        `/v5/evaluation-items?evaluation_id=${id}&sort_order=asc&limit=${limit}${after === undefined ? "" : `&starting_after=${after}`}`
      )
      assert.strictEqual(page.status, 200, JSON.stringify(page.body))
      all.push(...page.body.items)
      if (!page.body.has_more) return all
      after = page.body.items.at(-1).id
    }
  })

const questions = [
  { question: "What is the capital of France?", answer: "The capital of France is Paris" },
  { question: "Name a primary colour", answer: "red" },
  { question: "Two plus two", answer: "two plus two is four" }
]

layer(TestServerLive, { timeout: 120_000 })("evaluations: running", (it) => {
  it.effect("3 items × a chat completion on builtin/echo and a metric: completed, every result on its item", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const created = yield* post(caller, "/v5/evaluations", {
        name: "echo run",
        data: questions,
        tasks: [
          {
            task_type: "chat_completion",
            alias: "reply",
            configuration: { model: "builtin/echo", messages: [{ role: "system", content: "Be brief" }, { role: "user", content: "{{item.question}}" }] }
          },
          { task_type: "metric", alias: "overlap", configuration: { type: "rouge1", candidate: "item.reply", reference: "item.answer" } },
          { task_type: "metric", configuration: { type: "bleu", candidate: "item.reply", reference: "item.reply" } }
        ]
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      assert.strictEqual(created.body.status, "running")
      assert.deepStrictEqual(created.body.progress.items, { total: 3, successful: 0, failed: 0, pending: 3, failed_items: [] })
      const id = created.body.id

      const seen = yield* pollToEnd(caller, id, created.body)
      // what a poller sees: running (with counts that add up), then completed
      for (const state of seen) {
        const items = state.progress.items
        assert.strictEqual(items.successful + items.failed + items.pending, items.total)
      }
      assert.deepStrictEqual(seen.map((state) => state.status).filter((s, i, all) => all.indexOf(s) === i), ["running", "completed"])
      assert.deepStrictEqual(seen.at(-1), {
        status: "completed",
        error_count: 0,
        status_reason: null,
        progress: {
          workflows: { total: 3, completed: 3, failed: 0, pending: 0 },
          items: { total: 3, successful: 3, failed: 0, pending: 0, failed_items: [] }
        }
      })

      const items = yield* itemsOf(caller, id, 2)
      assert.deepStrictEqual(items.map((item) => item.data.question), questions.map((q) => q.question))
      for (const [i, item] of items.entries()) {
        assert.strictEqual(item.object, "evaluation.item")
        assert.strictEqual(item.evaluation_id, id)
        assert.strictEqual(item.archived_at, null)
        assert.strictEqual(item.dataset_item_id, null)
        // the echo model answers the last user message: the question, filled in
        assert.strictEqual(item.data.reply, questions[i]!.question)
        assert.strictEqual(item.data.bleu, 1)
      }
      // rouge1 of the reply against the answer: "what is the capital of france" vs "the capital of france is paris": 5 shared of 6 and 6
      assert.closeTo(items[0].data.overlap, 5 / 6, 1e-9)
      assert.strictEqual(items[1].data.overlap, 0)
      // "two plus two" vs "two plus two is four": 3 shared of 3 and 5
      assert.closeTo(items[2].data.overlap, 6 / 8, 1e-9)

      // one item by id, and through the typed client
      const one = yield* get(caller, `/v5/evaluation-items/${items[1].id}`)
      assert.deepStrictEqual(one.body, items[1])
      const typed = yield* caller.client.evaluations.getItem({ path: { evaluation_item_id: items[1].id }, urlParams: {} })
      assert.strictEqual(typed.data.reply, questions[1]!.question)
      const listed = yield* caller.client.evaluations.listItems({ urlParams: { evaluation_id: id } })
      assert.strictEqual(listed.total, 3)

      // the wire carries the real SDK's fields and no other (the SDK's Schemas, excess an error)
      const strict = { errors: "all", onExcessProperty: "error" } as const
      for (const item of items) Schema.decodeUnknownSync(EvaluationItem)(item, strict)
      Schema.decodeUnknownSync(Evaluation)((yield* get(caller, `/v5/evaluations/${id}?views=tasks`)).body, strict)
    }))

  it.scoped("an upstream that refuses one item: the evaluation fails with that item in failed_items, the others done", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const server = yield* upstream((received) =>
        JSON.stringify(received.body).includes("poison")
          ? { status: 400, body: { error: { message: "content refused" } } }
          : { status: 200, body: chatAnswer(`answer to ${received.body.messages.at(-1).content}`) }
      )
      const deployment = yield* readyDeployment(caller, {
        provider: "openai_compatible",
        base_url: server.url,
        model: "upstream-model",
        max_retries: 0
      })
      const created = yield* post(caller, "/v5/evaluations", {
        name: "upstream run",
        data: [{ q: "one" }, { q: "poison" }, { q: "three" }],
        tasks: [{ task_type: "chat_completion", alias: "out", configuration: { model: deployment, messages: [{ role: "user", content: "item.q" }], temperature: 0.2 } }]
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const seen = yield* pollToEnd(caller, created.body.id)
      const end = seen.at(-1)
      assert.strictEqual(end.status, "failed")
      assert.strictEqual(end.error_count, 1)
      assert.strictEqual(end.status_reason, "1 of 3 items failed")
      const items = yield* itemsOf(caller, created.body.id)
      assert.deepStrictEqual(end.progress.items.failed_items, [
        { item_id: items[1].id, error: "The model's upstream refused the request (400): content refused", error_type: "UpstreamBadRequest" }
      ])
      assert.deepStrictEqual(end.progress.workflows, { total: 1, completed: 0, failed: 1, pending: 0 })
      assert.deepStrictEqual(items.map((item) => item.data.out), ["answer to one", undefined, "answer to three"])
      // each item once, with the task's settings
      assert.strictEqual(server.received.length, 3)
      assert.isTrue(server.received.every((r) => r.body.temperature === 0.2 && r.body.model === "upstream-model"))
      // the task's calls are in the deployment's usage statistics (the engine runs on wall time)
      const usage = yield* get(caller, `/v4/model-deployments/${deployment}/usage-statistics?chunks=1&start_date=2000-01-01T00:00:00Z&end_date=2200-01-01T00:00:00Z`)
      assert.strictEqual(usage.status, 200, JSON.stringify(usage.body))
      assert.deepInclude(usage.body.data[0], { request_count: 3, error_count: 1 })
      assert.isAbove(usage.body.data[0].prompt_tokens, 0)
    }))

  it.effect("items from an evaluation dataset: all its test cases, or those data names; a name that is not there is a 422", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const dataset = yield* post(caller, "/v4/evaluation-datasets", { name: "golden" })
      const cases: Array<string> = []
      for (const input of ["first", "second"]) {
        const made = yield* post(caller, `/v4/evaluation-datasets/${dataset.body.id}/test-cases`, { test_case_data: { input, expected_output: `${input}!` } })
        assert.strictEqual(made.status, 200, JSON.stringify(made.body))
        cases.push(made.body.id)
      }
      const all = yield* post(caller, "/v5/evaluations", { name: "from dataset", dataset_id: dataset.body.id })
      assert.strictEqual(all.status, 200, JSON.stringify(all.body))
      // nothing to run: the items are done at once
      assert.strictEqual(all.body.status, "completed")
      assert.deepStrictEqual(all.body.progress.items, { total: 2, successful: 2, failed: 0, pending: 0, failed_items: [] })
      assert.deepStrictEqual(all.body.datasets.map((d: any) => d.id), [dataset.body.id])
      const items = yield* itemsOf(caller, all.body.id)
      // in the test cases' order: by creation time (the same instant here, on the test clock), then id
      const byInput = [...items].sort((a, b) => a.data.input.localeCompare(b.data.input))
      assert.deepStrictEqual(byInput.map((item) => [item.dataset_item_id, item.dataset_item_version_num, item.data.input]), [
        [cases[0], 1, "first"],
        [cases[1], 1, "second"]
      ])

      const picked = yield* post(caller, "/v5/evaluations", {
        name: "picked",
        dataset_id: dataset.body.id,
        data: [{ dataset_item_id: cases[1], note: "extra" }],
        tasks: [{ task_type: "metric", alias: "same", configuration: { type: "f1", candidate: "item.input", reference: "item.expected_output" } }]
      })
      assert.strictEqual(picked.status, 200, JSON.stringify(picked.body))
      yield* pollToEnd(caller, picked.body.id)
      const [only] = yield* itemsOf(caller, picked.body.id)
      // the test case's data, the entry's other fields, the task's result
      assert.deepStrictEqual([only.data.input, only.data.expected_output, only.data.note, only.data.same], ["second", "second!", "extra", 1])

      const before = yield* get(caller, "/v5/evaluations?limit=100")
      const unknown = yield* post(caller, "/v5/evaluations", { name: "bad", dataset_id: dataset.body.id, data: [{ dataset_item_id: "nope" }] })
      assert.strictEqual(unknown.status, 422)
      assert.deepStrictEqual(unknown.body.detail[0].loc, ["body", "data", 0, "dataset_item_id"])
      const missing = yield* post(caller, "/v5/evaluations", { name: "bad", dataset_id: "00000000-0000-4000-8000-000000000000" })
      assert.strictEqual(missing.status, 404)
      assert.strictEqual((yield* get(caller, "/v5/evaluations?limit=100")).body.total, before.body.total)
    }))

  it.effect("data + dataset: the create makes a v5 dataset of the items (their keys), the items name its items", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const created = yield* post(caller, "/v5/evaluations", {
        name: "with dataset",
        data: [{ q: "one", secret: "x" }, { q: "two", secret: "y" }],
        dataset: { name: "made here", description: "from an evaluation", keys: ["q"], tags: ["eval"] },
        tasks: [{ task_type: "chat_completion", alias: "out", configuration: { model: "builtin/echo", messages: [{ role: "user", content: "item.q" }] } }]
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      assert.strictEqual(created.body.datasets.length, 1)
      const entry = created.body.datasets[0]
      assert.deepInclude(entry, { name: "made here", description: "from an evaluation", current_version_num: 1, object: "dataset", archived_at: null })
      assert.deepStrictEqual(entry.tags, ["eval"])
      yield* pollToEnd(caller, created.body.id)
      const items = yield* itemsOf(caller, created.body.id)
      assert.deepStrictEqual(items.map((item) => [item.data.q, item.data.secret, item.data.out, item.dataset_item_version_num]), [
        ["one", "x", "one", 1],
        ["two", "y", "two", 1]
      ])
      // the dataset (docs/datasets.md) and its items are there, holding the kept keys only
      const dataset = yield* get(caller, `/v5/datasets/${entry.id}`)
      assert.strictEqual(dataset.status, 200)
      assert.deepStrictEqual(dataset.body, entry)
      const datasetItems = yield* get(caller, `/v5/dataset-items?dataset_id=${entry.id}`)
      assert.strictEqual(datasetItems.status, 200, JSON.stringify(datasetItems.body))
      const byId = new Map(datasetItems.body.items.map((item: any) => [item.id, item]))
      assert.deepStrictEqual(items.map((item) => (byId.get(item.dataset_item_id) as any).data), [{ q: "one" }, { q: "two" }])
      // another evaluation runs over it by id
      const again = yield* post(caller, "/v5/evaluations", { name: "again", dataset_id: entry.id })
      assert.strictEqual(again.status, 200, JSON.stringify(again.body))
      assert.strictEqual(again.body.progress.items.total, 2)

      // a change of the dataset is a new version: an evaluation then takes its items at that version
      yield* TestClock.adjust("1 millis")
      const added = yield* post(caller, "/v5/dataset-items/batch", { dataset_id: entry.id, data: [{ q: "three" }] })
      assert.strictEqual(added.status, 200)
      const later = yield* post(caller, "/v5/evaluations", { name: "later", dataset_id: entry.id })
      const laterItems = yield* itemsOf(caller, later.body.id)
      assert.deepStrictEqual(laterItems.map((item) => [item.data.q, item.dataset_item_version_num]), [["one", 2], ["two", 2], ["three", 2]])

      // dataset with dataset_id, or without data: 422, nothing made
      const datasetsBefore = (yield* get(caller, "/v5/datasets")).body.total
      const both = yield* post(caller, "/v5/evaluations", { name: "bad", dataset_id: entry.id, dataset: { name: "d" } })
      assert.strictEqual(both.status, 422)
      assert.deepStrictEqual(both.body.detail[0].loc, ["body", "dataset"])
      const empty = yield* post(caller, "/v5/evaluations", { name: "bad", dataset: { name: "d" } })
      assert.strictEqual(empty.status, 422)
      assert.deepStrictEqual(empty.body.detail[0].loc, ["body", "data"])
      assert.strictEqual((yield* get(caller, "/v5/datasets")).body.total, datasetsBefore)
    }))

  it.effect("an item locator that names nothing fails that item; stored-only task types are kept and not run", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const created = yield* post(caller, "/v5/evaluations", {
        name: "locators",
        data: [{ a: "x y", b: "x y" }, { a: "x" }],
        tasks: [
          { task_type: "metric", configuration: { type: "rougeL", candidate: "item.a", reference: "item.b" } },
          { task_type: "auto_evaluation.question", configuration: { model: "openai/gpt-4o", prompt: "Is it right?", question_id: "q1" } }
        ]
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const end = (yield* pollToEnd(caller, created.body.id)).at(-1)
      assert.strictEqual(end.status, "failed")
      assert.deepStrictEqual(end.progress.items.failed_items.map((f: any) => [f.error, f.error_type]), [
        ["item.b is not in the item's data", "ItemLocatorError"]
      ])
      // the stored-only task has not run: its workflow stays pending
      assert.deepStrictEqual(end.progress.workflows, { total: 2, completed: 0, failed: 1, pending: 1 })
      const withTasks = yield* get(caller, `/v5/evaluations/${created.body.id}?views=tasks`)
      assert.deepStrictEqual(withTasks.body.tasks[1], {
        task_type: "auto_evaluation.question",
        alias: null,
        configuration: { model: "openai/gpt-4o", prompt: "Is it right?", question_id: "q1" }
      })
      const items = yield* itemsOf(caller, created.body.id)
      assert.strictEqual(items[0].data.rougeL, 1)
    }))

  it.scoped("archiving a running evaluation stops its remaining work; its items are hidden unless include_archived", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      let delayMs = 25
      const server = yield* upstream(() => ({ status: 200, body: chatAnswer("slow"), delayMs }))
      const deployment = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: server.url, model: "m", max_concurrency: 2 })
      const created = yield* post(caller, "/v5/evaluations", {
        name: "long",
        data: Array.from({ length: 200 }, (_, i) => ({ i })),
        tasks: [{ task_type: "chat_completion", configuration: { model: deployment, messages: [{ role: "user", content: "{{item.i}}" }] } }]
      })
      assert.strictEqual(created.status, 200)
      const id = created.body.id
      // once some items are done, archive
      yield* eventually(Effect.map(get(caller, `/v5/evaluations/${id}`), (read) =>
        read.body.progress.items.successful > 0 ? Option.some(true) : Option.none()))
      assert.strictEqual((yield* request("DELETE", `/v5/evaluations/${id}`, { key: caller.key })).status, 200)
      const end = yield* eventually(Effect.map(get(caller, `/v5/evaluations/${id}?include_archived=true`), (read) =>
        read.body.status !== "running" ? Option.some(read.body) : Option.none()))
      assert.isTrue(Option.isSome(end))
      const stopped = Option.getOrThrow(end)
      assert.strictEqual(stopped.status, "failed")
      assert.isAbove(stopped.progress.items.pending, 0)
      assert.strictEqual(stopped.status_reason, `Archived while running: ${stopped.progress.items.pending} of 200 items were not run`)
      const calls = server.received.length
      assert.isBelow(calls, 200)
      // stopped for good: no call after the stop
      yield* TestServices.provideLive(Effect.sleep("300 millis"))
      assert.strictEqual(server.received.length, calls)
      assert.strictEqual((yield* get(caller, `/v5/evaluation-items?evaluation_id=${id}`)).body.total, 0)
      const archived = yield* get(caller, `/v5/evaluation-items?evaluation_id=${id}&include_archived=true&limit=1`)
      assert.strictEqual(archived.body.total, 200)
      assert.strictEqual(archived.body.items[0].archived_at, stopped.archived_at)
      const oneItem = yield* get(caller, `/v5/evaluation-items/${archived.body.items[0].id}`)
      assert.strictEqual(oneItem.status, 404)

      // restored, it resumes: running again, then completed, each item sent once in all
      delayMs = 0
      const restored = yield* request("PATCH", `/v5/evaluations/${id}`, { key: caller.key, body: { restore: true } })
      assert.strictEqual(restored.status, 200, JSON.stringify(restored.body))
      assert.deepInclude(restored.body, { status: "running", status_reason: null, archived_at: null })
      const seen = yield* pollToEnd(caller, id)
      assert.deepInclude(seen.at(-1), { status: "completed", error_count: 0, status_reason: null })
      assert.deepInclude(seen.at(-1).progress.items, { total: 200, successful: 200, failed: 0, pending: 0 })
      const items = yield* itemsOf(caller, id)
      assert.isTrue(items.every((item) => item.data.chat_completion === "slow"))
      assert.strictEqual(server.received.length, 200)
      assert.deepStrictEqual(new Set(server.received.map((r) => r.body.messages[0].content)).size, 200)
    }))
})
