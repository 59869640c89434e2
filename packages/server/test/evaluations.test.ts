import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { Identity, NotFound } from "@platform-kit/schema"
import { Effect, Layer, Schema, TestClock } from "effect"
import { EvaluationsRepo, StoredEvaluation } from "../src/evaluations/EvaluationsRepo.js"
import { initialProgress } from "../src/evaluations/present.js"
import { taskOf } from "../src/evaluations/tasks.js"
import { UnmigratedDatabaseTest } from "../src/testDatabase.js"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"
import { fullConfiguration, insertDataset, modelOnly, updateDataset } from "./evaluations-fixtures.js"
import { migrateAll, migrateUpTo } from "./support/migrations.js"

layer(TestServerLive)("evaluations: create and get", (it) => {
  it.effect("create answers every field of the evaluation; get reads it back; tasks only with the view", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key, client } = yield* provision()
      const viaApi = yield* client.evaluationDatasets.create({
        payload: { name: "regression set", description: "from the api", account_id: accountId }
      })
      const stored = yield* insertDataset(accountId, {
        name: "golden set",
        description: "hand written",
        tags: ["gold", "v2"],
        archived_at: "2026-02-01T00:00:00.000Z"
      })
      yield* TestClock.adjust("1 millis")

      const body = {
        name: "nightly run",
        description: "compares prompts",
        tags: ["Nightly", "prompts"],
        metadata: { owner: "qa", priority: 2 },
        datasets: [viaApi.id, { id: stored.id }, viaApi.id],
        tasks: [
          { task_type: "chat_completion", alias: "full", configuration: fullConfiguration },
          { task_type: "chat_completion", configuration: { model: "small-model" } }
        ],
        ignored_field: "dropped"
      }
      const created = yield* request("POST", "/v5/evaluations", { key, body })
      assert.strictEqual(created.status, 200)
      const id = created.body.id
      assert.match(id, uuid)
      const expected = {
        id,
        name: "nightly run",
        description: "compares prompts",
        created_at: "1970-01-01T00:00:00.001Z",
        archived_at: null,
        created_by: { id: identityId, type: "user", object: "identity" },
        tags: ["Nightly", "prompts"],
        object: "evaluation",
        metadata: { owner: "qa", priority: 2 },
        error_count: 0,
        // two tasks to run: the real SDK's `running`, never `pending`
        status: "running",
        status_reason: null,
        datasets: [
          {
            id: viaApi.id,
            name: "regression set",
            created_by: { id: identityId, type: "user", object: "identity" },
            created_at: viaApi.created_at,
            tags: [],
            current_version_num: 1,
            object: "dataset",
            description: "from the api",
            archived_at: null
          },
          {
            id: stored.id,
            name: "golden set",
            created_by: { id: stored.created_by_user_id, type: "service_account", object: "identity" },
            created_at: "2026-01-02T03:04:05.000Z",
            tags: ["gold", "v2"],
            current_version_num: 1,
            object: "dataset",
            description: "hand written",
            archived_at: "2026-02-01T00:00:00.000Z"
          }
        ],
        progress: {
          workflows: { total: 2, completed: 0, failed: 0, pending: 2 },
          items: { total: 0, successful: 0, failed: 0, pending: 0, failed_items: [] }
        }
      }
      assert.deepStrictEqual(created.body, expected)
      assert.notProperty(created.body, "tasks")
      assert.notProperty(created.body, "account_id")

      const tasks = [
        { task_type: "chat_completion", alias: "full", configuration: fullConfiguration },
        { task_type: "chat_completion", alias: null, configuration: modelOnly("small-model") }
      ]
      // the run (no items) may end between the create and a read: status and progress move on,
      // from running with both workflows pending to completed with both done
      const asRead = (body: Record<string, any>) => {
        const { progress, status, ...rest } = body
        assert.include(["running", "completed"], status)
        assert.strictEqual(progress.workflows.total, 2)
        assert.strictEqual(progress.workflows.completed + progress.workflows.pending, 2)
        assert.strictEqual(status === "completed", progress.workflows.completed === 2)
        return rest
      }
      const { progress: _, status: __, ...unmoving } = expected
      const read = yield* request("GET", `/v5/evaluations/${id}`, { key })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(asRead(read.body), unmoving)
      const withTasks = yield* request("GET", `/v5/evaluations/${id}?views=tasks`, { key })
      assert.deepStrictEqual(asRead(withTasks.body), { ...unmoving, tasks })

      // the create itself answers the tasks when asked
      const again = yield* request("POST", "/v5/evaluations?views=tasks", { key, body: { name: "second", tasks: body.tasks } })
      assert.deepStrictEqual(again.body.tasks, tasks)

      // the typed client decodes the same
      const typed = yield* client.evaluations.get({ path: { evaluation_id: id }, urlParams: { views: ["tasks"] } })
      assert.strictEqual((typed.tasks?.[0]?.configuration as any)?.temperature, 0.7)
      assert.strictEqual((typed.tasks?.[1]?.configuration as any)?.temperature, null)
      assert.strictEqual(typed.progress.workflows.total, 2)
    }))

  it.effect("a minimal create: defaults, empty progress, the caller's only account", () =>
    Effect.gen(function*() {
      const { identityId, client } = yield* provision({ type: "service_account" })
      const created = yield* client.evaluations.create({ payload: { name: "bare" }, urlParams: {} })
      assert.strictEqual(created.description, null)
      assert.deepStrictEqual(created.tags, [])
      assert.deepStrictEqual(created.metadata, {})
      assert.deepStrictEqual(created.datasets, [])
      assert.deepStrictEqual(created.created_by, { id: identityId, type: "service_account", object: "identity" })
      // nothing to run: completed at once
      assert.strictEqual(created.status, "completed")
      assert.strictEqual(created.status_reason, null)
      assert.strictEqual(created.error_count, 0)
      assert.deepStrictEqual(
        { workflows: { ...created.progress.workflows }, items: { ...created.progress.items } },
        {
          workflows: { total: 0, completed: 0, failed: 0, pending: 0 },
          items: { total: 0, successful: 0, failed: 0, pending: 0, failed_items: [] }
        }
      )
      const withTasks = yield* client.evaluations.get({ path: { evaluation_id: created.id }, urlParams: { views: ["tasks"] } })
      assert.deepStrictEqual(withTasks.tasks, [])
    }))

  it.effect("progress counters add up for any number of tasks", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      for (const count of [1, 3, 7]) {
        const tasks = Array.from({ length: count }, (_, i) => ({
          task_type: "chat_completion",
          alias: `t${i}`,
          configuration: { model: "m" }
        }))
        const created = yield* request("POST", "/v5/evaluations", { key, body: { name: `n${count}`, tasks } })
        const { workflows, items } = created.body.progress
        assert.strictEqual(workflows.total, count)
        assert.strictEqual(workflows.total, workflows.completed + workflows.failed + workflows.pending)
        assert.strictEqual(items.total, items.successful + items.failed + items.pending)
        assert.strictEqual(items.failed_items.length, items.failed)
      }
    }))

  it.effect("create validation: exact loc and type, and nothing is written", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const missing = yield* request("POST", "/v5/evaluations", { key, body: { description: "no name" } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [{ loc: ["body", "name"], type: "missing" }])

      const wrongTypes = yield* request("POST", "/v5/evaluations", {
        key,
        body: { name: "", description: 3, tags: ["ok", 4, ""], metadata: [], datasets: [42, { name: "x" }], tasks: {} }
      })
      assert.strictEqual(wrongTypes.status, 422)
      assert.deepStrictEqual(issues(wrongTypes), [
        { loc: ["body", "name"], type: "string_too_short" },
        { loc: ["body", "description"], type: "string_type" },
        { loc: ["body", "tags", 1], type: "string_type" },
        { loc: ["body", "tags", 2], type: "string_too_short" },
        { loc: ["body", "metadata"], type: "dict_type" },
        { loc: ["body", "datasets", 0], type: "string_type" },
        { loc: ["body", "datasets", 1, "id"], type: "missing" },
        { loc: ["body", "tasks"], type: "list_type" }
      ])

      const badTasks = yield* request("POST", "/v5/evaluations", {
        key,
        body: {
          name: "tasks",
          tasks: [
            { task_type: "completion", configuration: { model: "m" } },
            { task_type: "chat_completion", configuration: {} },
            {
              task_type: "chat_completion",
              configuration: {
                model: "m",
                temperature: 2.5,
                top_p: -0.1,
                frequency_penalty: 3,
                n: 0,
                max_tokens: 1.5,
                seed: "1",
                top_logprobs: -1,
                logprobs: "yes",
                messages: ["hi"],
                stop: ["a"]
              }
            }
          ]
        }
      })
      assert.strictEqual(badTasks.status, 422)
      assert.deepStrictEqual(issues(badTasks), [
        { loc: ["body", "tasks", 0, "task_type"], type: "literal_error" },
        { loc: ["body", "tasks", 1, "configuration", "model"], type: "missing" },
        { loc: ["body", "tasks", 2, "configuration", "messages", 0], type: "dict_type" },
        { loc: ["body", "tasks", 2, "configuration", "frequency_penalty"], type: "range_error" },
        { loc: ["body", "tasks", 2, "configuration", "temperature"], type: "range_error" },
        { loc: ["body", "tasks", 2, "configuration", "top_p"], type: "range_error" },
        { loc: ["body", "tasks", 2, "configuration", "logprobs"], type: "bool_type" },
        { loc: ["body", "tasks", 2, "configuration", "max_tokens"], type: "int_type" },
        { loc: ["body", "tasks", 2, "configuration", "n"], type: "greater_than_equal" },
        { loc: ["body", "tasks", 2, "configuration", "seed"], type: "number_type" },
        { loc: ["body", "tasks", 2, "configuration", "top_logprobs"], type: "greater_than_equal" },
        { loc: ["body", "tasks", 2, "configuration", "stop"], type: "string_type" }
      ])

      const duplicateAlias = yield* request("POST", "/v5/evaluations", {
        key,
        body: {
          name: "aliases",
          tasks: [
            { task_type: "chat_completion", alias: "a", configuration: { model: "m" } },
            { task_type: "chat_completion", configuration: { model: "m" } },
            { task_type: "chat_completion", alias: "a", configuration: { model: "m" } },
            { task_type: "chat_completion", alias: "a", configuration: { model: "m" } },
            { task_type: "chat_completion", alias: "b", configuration: { model: "m" } }
          ]
        }
      })
      assert.strictEqual(duplicateAlias.status, 422)
      assert.deepStrictEqual(issues(duplicateAlias), [
        { loc: ["body", "tasks", 2, "alias"], type: "value_error" },
        { loc: ["body", "tasks", 3, "alias"], type: "value_error" }
      ])
      assert.strictEqual(duplicateAlias.body.detail[0].msg, "Duplicate task alias 'a'")

      const badView = yield* request("POST", "/v5/evaluations?views=tasks,everything", { key, body: { name: "v" } })
      assert.strictEqual(badView.status, 422)
      assert.deepStrictEqual(issues(badView), [{ loc: ["query", "views", 1], type: "literal_error" }])

      const malformed = yield* request("POST", "/v5/evaluations", { key, body: "{\"name\":" })
      assert.strictEqual(malformed.status, 422)
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      const page = yield* client.evaluations.list({ urlParams: { include_archived: true } })
      assert.strictEqual(page.total, 0)
    }))

  it.effect("create: a missing or foreign dataset is a 404 naming it; a foreign account_id is a 403; nothing is written", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const bobs = yield* insertDataset(bob.accountId)
      const mine = yield* insertDataset(alice.accountId)

      const missing = yield* request("POST", "/v5/evaluations", {
        key: alice.key,
        body: { name: "e", datasets: [mine.id, "no-such-dataset"] }
      })
      assert.strictEqual(missing.status, 404)
      assert.deepStrictEqual(missing.body, { detail: "Evaluation dataset no-such-dataset not found" })

      const foreign = yield* Effect.flip(
        alice.client.evaluations.create({ payload: { name: "e", datasets: [{ id: bobs.id }] }, urlParams: {} })
      )
      assert.deepStrictEqual(foreign, new NotFound({ detail: `Evaluation dataset ${bobs.id} not found` }))

      const forbidden = yield* request("POST", "/v5/evaluations", {
        key: alice.key,
        body: { name: "e", account_id: bob.accountId }
      })
      assert.strictEqual(forbidden.status, 403)
      // 422 comes before 403
      const invalidFirst = yield* request("POST", "/v5/evaluations", { key: alice.key, body: { account_id: bob.accountId } })
      assert.strictEqual(invalidFirst.status, 422)

      for (const who of [alice, bob]) {
        const page = yield* who.client.evaluations.list({ urlParams: { include_archived: true } })
        assert.strictEqual(page.total, 0)
      }
    }))

  it.effect("the datasets of an evaluation are answered as they are now", () =>
    Effect.gen(function*() {
      const { accountId, client } = yield* provision()
      const dataset = yield* insertDataset(accountId, { name: "before" })
      const created = yield* client.evaluations.create({ payload: { name: "e", datasets: [dataset.id] }, urlParams: {} })
      assert.strictEqual(created.datasets[0]!.name, "before")
      yield* updateDataset(dataset.id, { name: "after", archived_at: "2026-03-01T00:00:00.000Z", tags: ["late"] })
      const read = yield* client.evaluations.get({ path: { evaluation_id: created.id }, urlParams: {} })
      assert.strictEqual(read.datasets[0]!.name, "after")
      assert.strictEqual(read.datasets[0]!.archived_at, "2026-03-01T00:00:00.000Z")
      assert.deepStrictEqual(read.datasets[0]!.tags, ["late"])
      const listed = yield* client.evaluations.list({ urlParams: {} })
      assert.deepStrictEqual(listed.items[0]!.datasets, read.datasets)
    }))

  it.effect("get: 404 for a missing id and for another account's evaluation; 401 without a key", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const evaluation = yield* alice.client.evaluations.create({ payload: { name: "a" }, urlParams: {} })

      const missing = yield* Effect.flip(
        bob.client.evaluations.get({ path: { evaluation_id: "no-such-id" }, urlParams: {} })
      )
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("GET", `/v5/evaluations/${evaluation.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Evaluation ${evaluation.id} not found` })
      const foreignArchived = yield* request("GET", `/v5/evaluations/${evaluation.id}?include_archived=true`, { key: bob.key })
      assert.strictEqual(foreignArchived.status, 404)

      const none = yield* request("GET", `/v5/evaluations/${evaluation.id}`)
      assert.strictEqual(none.status, 401)
      assert.isString(none.body.detail)
      const noneCreate = yield* request("POST", "/v5/evaluations", { body: { name: "x" } })
      assert.strictEqual(noneCreate.status, 401)
      const wrongKey = yield* request("GET", "/v5/evaluations", { key: "pk_nope" })
      assert.strictEqual(wrongKey.status, 401)
    }))

  it.effect("get validation: views and include_archived give 422 with exact loc", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const evaluation = yield* client.evaluations.create({ payload: { name: "a" }, urlParams: {} })
      const badView = yield* request("GET", `/v5/evaluations/${evaluation.id}?views=steps`, { key })
      assert.strictEqual(badView.status, 422)
      assert.deepStrictEqual(issues(badView), [{ loc: ["query", "views", 0], type: "literal_error" }])
      const badFlag = yield* request("GET", `/v5/evaluations/${evaluation.id}?include_archived=maybe&views=tasks&views=x`, {
        key
      })
      assert.strictEqual(badFlag.status, 422)
      assert.deepStrictEqual(issues(badFlag), [
        { loc: ["query", "views", 1], type: "literal_error" },
        { loc: ["query", "include_archived"], type: "literal_error" }
      ])
      const repeated = yield* request("GET", `/v5/evaluations/${evaluation.id}?views=tasks&views=tasks`, { key })
      assert.strictEqual(repeated.status, 200)
      assert.deepStrictEqual(repeated.body.tasks, [])
    }))
})

layer(TestServerLive)("evaluations: update, archive, restore", (it) => {
  it.effect("PATCH changes only the fields given and answers the evaluation", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const created = yield* client.evaluations.create({
        payload: {
          name: "before",
          description: "d",
          tags: ["old"],
          metadata: { a: 1 },
          // a task that is stored, not run: status and progress stay as the create made them
          tasks: [{ task_type: "inference", alias: "x", configuration: { model: "m" } }]
        },
        urlParams: {}
      })
      const renamed = yield* request("PATCH", `/v5/evaluations/${created.id}`, { key, body: { name: "after", description: null } })
      assert.strictEqual(renamed.status, 200)
      assert.strictEqual(renamed.body.name, "after")
      assert.strictEqual(renamed.body.description, "d")
      assert.deepStrictEqual(renamed.body.tags, ["old"])
      assert.notProperty(renamed.body, "tasks")

      const retagged = yield* client.evaluations.update({
        path: { evaluation_id: created.id },
        payload: { tags: ["New", "shiny"], metadata: { b: 2 }, description: "d2" },
        urlParams: { views: ["tasks"] }
      })
      assert.deepStrictEqual(retagged.tags, ["New", "shiny"])
      assert.deepStrictEqual(retagged.metadata, { b: 2 })
      assert.strictEqual(retagged.description, "d2")
      assert.strictEqual(retagged.name, "after")
      assert.strictEqual(retagged.tasks?.length, 1)
      // everything else is untouched
      const { description: _d, metadata: _m, name: _n, tags: _t, tasks: _tasks, ...rest } = retagged
      const { description: _d0, metadata: _m0, name: _n0, tags: _t0, tasks: _tasks0, ...before } = created
      assert.deepStrictEqual({ ...rest }, { ...before })

      const read = yield* client.evaluations.get({ path: { evaluation_id: created.id }, urlParams: { views: ["tasks"] } })
      assert.deepStrictEqual(read, retagged)
      // the tag filter follows the new tags
      const byOld = yield* client.evaluations.list({ urlParams: { tags: ["old"] } })
      assert.strictEqual(byOld.total, 0)
      const byNew = yield* client.evaluations.list({ urlParams: { tags: ["new"] } })
      assert.deepStrictEqual(byNew.items.map((e) => e.id), [created.id])

      const empty = yield* request("PATCH", `/v5/evaluations/${created.id}`, { key, body: {} })
      assert.strictEqual(empty.status, 200)
      assert.strictEqual(empty.body.name, "after")
    }))

  it.effect("PATCH validation, 404 and 401 write nothing", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const created = yield* alice.client.evaluations.create({ payload: { name: "keep", tags: ["t"] }, urlParams: {} })
      const path = `/v5/evaluations/${created.id}`

      const invalid = yield* request("PATCH", path, { key: alice.key, body: { name: "", tags: [1], restore: "yes" } })
      assert.strictEqual(invalid.status, 422)
      assert.deepStrictEqual(issues(invalid), [
        { loc: ["body", "name"], type: "string_too_short" },
        { loc: ["body", "tags", 0], type: "string_type" },
        { loc: ["body", "restore"], type: "bool_type" }
      ])
      const invalid2 = yield* request("PATCH", `${path}?views=nope`, { key: alice.key, body: { metadata: "x", description: 1 } })
      assert.strictEqual(invalid2.status, 422)
      assert.deepStrictEqual(issues(invalid2), [
        { loc: ["body", "description"], type: "string_type" },
        { loc: ["body", "metadata"], type: "dict_type" },
        { loc: ["query", "views", 0], type: "literal_error" }
      ])

      const missing = yield* request("PATCH", "/v5/evaluations/no-such-id", { key: alice.key, body: { name: "x" } })
      assert.strictEqual(missing.status, 404)
      assert.deepStrictEqual(missing.body, { detail: "Evaluation no-such-id not found" })
      const foreign = yield* Effect.flip(
        bob.client.evaluations.update({ path: { evaluation_id: created.id }, payload: { name: "stolen" }, urlParams: {} })
      )
      assert.strictEqual(foreign._tag, "NotFound")
      const none = yield* request("PATCH", path, { body: { name: "anon" } })
      assert.strictEqual(none.status, 401)

      const read = yield* alice.client.evaluations.get({ path: { evaluation_id: created.id }, urlParams: {} })
      assert.deepStrictEqual(read, created)
    }))

  it.effect("DELETE archives: hidden from get and list unless include_archived; twice keeps the first time; restore un-archives", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const kept = yield* client.evaluations.create({ payload: { name: "kept" }, urlParams: {} })
      yield* TestClock.adjust("1 millis")
      const gone = yield* client.evaluations.create({ payload: { name: "gone", tags: ["x"] }, urlParams: {} })
      yield* TestClock.adjust("5 millis")

      const archived = yield* request("DELETE", `/v5/evaluations/${gone.id}`, { key })
      assert.strictEqual(archived.status, 200)
      assert.strictEqual(archived.body.archived_at, "1970-01-01T00:00:00.006Z")
      assert.strictEqual(archived.body.name, "gone")
      assert.notProperty(archived.body, "tasks")

      const hidden = yield* request("GET", `/v5/evaluations/${gone.id}`, { key })
      assert.strictEqual(hidden.status, 404)
      const shown = yield* request("GET", `/v5/evaluations/${gone.id}?include_archived=true`, { key })
      assert.deepStrictEqual(shown.body, archived.body)
      const notShown = yield* request("GET", `/v5/evaluations/${gone.id}?include_archived=false`, { key })
      assert.strictEqual(notShown.status, 404)

      const visible = yield* client.evaluations.list({ urlParams: {} })
      assert.deepStrictEqual(visible.items.map((e) => e.id), [kept.id])
      assert.strictEqual(visible.total, 1)
      const everything = yield* client.evaluations.list({ urlParams: { include_archived: true } })
      assert.deepStrictEqual(everything.items.map((e) => e.id), [gone.id, kept.id])
      assert.strictEqual(everything.total, 2)
      const byTag = yield* client.evaluations.list({ urlParams: { tags: ["x"] } })
      assert.strictEqual(byTag.total, 0)

      yield* TestClock.adjust("5 millis")
      const twice = yield* client.evaluations.archive({ path: { evaluation_id: gone.id }, urlParams: { views: ["tasks"] } })
      assert.strictEqual(twice.archived_at, "1970-01-01T00:00:00.006Z")
      assert.deepStrictEqual(twice.tasks, [])

      // an archived evaluation can still be updated by id
      const renamed = yield* client.evaluations.update({ path: { evaluation_id: gone.id }, payload: { name: "gone too" }, urlParams: {} })
      assert.strictEqual(renamed.archived_at, "1970-01-01T00:00:00.006Z")

      const notRestored = yield* client.evaluations.update({
        path: { evaluation_id: gone.id },
        payload: { restore: false },
        urlParams: {}
      })
      assert.strictEqual(notRestored.archived_at, "1970-01-01T00:00:00.006Z")
      const restored = yield* client.evaluations.update({ path: { evaluation_id: gone.id }, payload: { restore: true }, urlParams: {} })
      assert.strictEqual(restored.archived_at, null)
      assert.strictEqual(restored.name, "gone too")
      const back = yield* client.evaluations.get({ path: { evaluation_id: gone.id }, urlParams: {} })
      assert.deepStrictEqual(back, restored)
      const listed = yield* client.evaluations.list({ urlParams: {} })
      assert.deepStrictEqual(listed.items.map((e) => e.id), [gone.id, kept.id])
      const byTagAgain = yield* client.evaluations.list({ urlParams: { tags: ["X"] } })
      assert.deepStrictEqual(byTagAgain.items.map((e) => e.id), [gone.id])
    }))

  it.effect("DELETE: 404 for a missing or foreign id, 401 without a key, 422 for a bad view; nothing is archived", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const created = yield* alice.client.evaluations.create({ payload: { name: "keep" }, urlParams: {} })
      const path = `/v5/evaluations/${created.id}`

      const missing = yield* request("DELETE", "/v5/evaluations/no-such-id", { key: alice.key })
      assert.strictEqual(missing.status, 404)
      assert.deepStrictEqual(missing.body, { detail: "Evaluation no-such-id not found" })
      const foreign = yield* request("DELETE", path, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      const none = yield* request("DELETE", path)
      assert.strictEqual(none.status, 401)
      const badView = yield* request("DELETE", `${path}?views=all`, { key: alice.key })
      assert.strictEqual(badView.status, 422)
      assert.deepStrictEqual(issues(badView), [{ loc: ["query", "views", 0], type: "literal_error" }])
      const badViews = yield* request("DELETE", `${path}?views=tasks&views=x&views=y`, { key: alice.key })
      assert.strictEqual(badViews.status, 422)
      assert.deepStrictEqual(issues(badViews), [
        { loc: ["query", "views", 1], type: "literal_error" },
        { loc: ["query", "views", 2], type: "literal_error" }
      ])

      const read = yield* alice.client.evaluations.get({ path: { evaluation_id: created.id }, urlParams: {} })
      assert.strictEqual(read.archived_at, null)
    }))
})

describe("evaluations written before migration 0020", () => {
  it.effect("a stored `pending` status becomes `running` (work to do) or `completed` (none), as the real SDK knows them", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrateUpTo(19)
      // rows as the release before 0020 wrote them: `status: "pending"`, the older form
      const written = (id: string, tasks: number) => {
        const evaluation = new StoredEvaluation({
          id,
          name: `evaluation ${id}`,
          description: null,
          created_at: "2026-01-01T00:00:00.000Z",
          archived_at: null,
          created_by: new Identity({ id: "u", type: "user", object: "identity" }),
          tags: [],
          object: "evaluation",
          metadata: {},
          error_count: 0,
          status: "running",
          status_reason: null,
          datasets: [],
          progress: initialProgress(tasks, 0, tasks > 0),
          tasks: Array.from({ length: tasks }, () => taskOf({ task_type: "chat_completion", configuration: { model: "m" } })),
          account_id: "a"
        })
        const doc = { ...Schema.encodeSync(StoredEvaluation)(evaluation), status: "pending" }
        return sql`INSERT INTO evaluations ${
          sql.insert({ id, account_id: "a", created_at: evaluation.created_at, name_lower: evaluation.name, doc: JSON.stringify(doc), form: "older" })
        }`
      }
      yield* written("e1", 2)
      yield* written("e2", 0)
      yield* migrateAll

      const repo = yield* Effect.provide(EvaluationsRepo, EvaluationsRepo.Default)
      assert.strictEqual((yield* repo.get("e1", ["a"], false)).status, "running")
      assert.strictEqual((yield* repo.get("e2", ["a"], false)).status, "completed")
      const docs = yield* sql<{ doc: string }>`SELECT doc FROM evaluations`
      for (const row of docs) assert.notInclude(row.doc, "\"status\":\"pending\"")
    }).pipe(Effect.provide(Layer.fresh(UnmigratedDatabaseTest))))
})
