/**
 * Evaluations that run (docs/evaluations.md "Running"): items made by the create variants, the
 * tasks run on the engine (the built-in model, a metric, an upstream of the test's own on
 * 127.0.0.1), progress and status as a poller sees them, items read back, archive stopping a run.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Option, TestServices } from "effect"
import { provision, request, TestServerLive } from "../src/testing.js"
import { eventually } from "./support/eventually.js"
import { type Caller, readyDeployment } from "./support/models.js"
import { chatAnswer, upstream } from "./support/upstream.js"

const post = (caller: Caller, path: string, body: unknown) => request("POST", path, { key: caller.key, body })
const get = (caller: Caller, path: string) => request("GET", path, { key: caller.key })

/**
 * Polls evaluation `id` until its status is no longer `running`; answers every distinct
 * (status, progress) a poller saw, in order, the last one the end.
 */
const pollToEnd = (caller: Caller, id: string) =>
  Effect.gen(function*() {
    const seen: Array<any> = []
    const end = yield* eventually(
      Effect.map(get(caller, `/v5/evaluations/${id}`), (read) => {
        assert.strictEqual(read.status, 200)
        const state = { status: read.body.status, progress: read.body.progress, error_count: read.body.error_count, status_reason: read.body.status_reason }
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

      const seen = yield* pollToEnd(caller, id)
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
      const server = yield* upstream(() => ({ status: 200, body: chatAnswer("slow"), delayMs: 100 }))
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
    }))
})
