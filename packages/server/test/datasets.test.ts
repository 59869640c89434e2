/**
 * v5 datasets and dataset items (docs/datasets.md): a create is version 1 with its items; every
 * change of the items makes the next version, and items read at a version are as they were then;
 * archive and restore cascade to the items; bad input and other accounts.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import * as Crypto from "node:crypto"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

const created = (caller: Caller, body: Record<string, unknown>) =>
  Effect.map(request("POST", "/v5/datasets", { key: caller.key, body }), (response) => {
    assert.strictEqual(response.status, 200, JSON.stringify(response.body))
    return response.body
  })

const sha256 = (text: string) => Crypto.createHash("sha256").update(text).digest("hex")

layer(TestServerLive, { timeout: 60_000 })("v5 datasets", (it) => {
  it.effect("a create is version 1 with its items; each change of the items is the next version, read back as it was", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { client } = caller
      const dataset = yield* client.datasets.create({
        payload: { name: "Golden set", description: "questions", tags: ["qa"], data: [{ q: "one", b: 1, a: 2 }, { q: "two" }], files: [{ doc: "f1" }, {}] }
      })
      assert.match(dataset.id, uuid)
      assert.deepStrictEqual({ ...dataset, id: "", created_at: "" }, {
        id: "",
        name: "Golden set",
        description: "questions",
        tags: ["qa"],
        current_version_num: 1,
        created_at: "",
        created_by: { id: caller.identityId, type: "user", object: "identity" },
        archived_at: null,
        object: "dataset"
      })
      const first = yield* client.datasets.listItems({ urlParams: { dataset_id: dataset.id, sort_order: "asc" } })
      assert.strictEqual(first.total, 2)
      const [one, two] = first.items
      assert.deepStrictEqual(one!.data, { q: "one", b: 1, a: 2 })
      assert.deepStrictEqual(one!.files, { doc: "f1" })
      // the hash of the data as canonical JSON, keys sorted
      assert.strictEqual(one!.content_hash, sha256(`{"a":2,"b":1,"q":"one"}`))
      assert.strictEqual(one!.object, "dataset.item")

      yield* TestClock.adjust("1 millis")
      const added = yield* client.datasets.batchCreateItems({ payload: { dataset_id: dataset.id, data: [{ q: "three" }] } })
      assert.strictEqual(added.object, "list")
      assert.deepStrictEqual(added.items.map((item) => item.data), [{ q: "three" }])
      const updated = yield* client.datasets.updateItem({ path: { dataset_item_id: two!.id }, payload: { data: { q: "two, again" } } })
      assert.deepStrictEqual(updated.data, { q: "two, again" })
      assert.strictEqual(updated.content_hash, sha256(`{"q":"two, again"}`))
      const deleted = yield* client.datasets.deleteItem({ path: { dataset_item_id: one!.id } })
      assert.deepStrictEqual(deleted, { id: one!.id, deleted: true, object: "dataset.item" })
      assert.strictEqual((yield* client.datasets.get({ path: { dataset_id: dataset.id }, urlParams: {} })).current_version_num, 4)

      // each version as it was
      const at = (version: number) =>
        Effect.map(
          client.datasets.listItems({ urlParams: { dataset_id: dataset.id, version, sort_order: "asc" } }),
          (page) => page.items.map((item) => item.data.q)
        )
      assert.deepStrictEqual(yield* at(1), ["one", "two"])
      assert.deepStrictEqual(yield* at(2), ["one", "two", "three"])
      assert.deepStrictEqual(yield* at(3), ["one", "two, again", "three"])
      assert.deepStrictEqual(yield* at(4), ["two, again", "three"])
      const latest = yield* client.datasets.listItems({ urlParams: { dataset_id: dataset.id, sort_order: "asc" } })
      assert.deepStrictEqual(latest.items.map((item) => item.data.q), ["two, again", "three"])
      const withDeleted = yield* client.datasets.listItems({ urlParams: { dataset_id: dataset.id, include_archived: true } })
      assert.strictEqual(withDeleted.total, 3)

      // one item by version
      const old = yield* client.datasets.getItem({ path: { dataset_item_id: two!.id }, urlParams: { version: 2 } })
      assert.deepStrictEqual(old.data, { q: "two" })
      const gone = yield* request("GET", `/v5/dataset-items/${one!.id}?version=4`, { key: caller.key })
      assert.strictEqual(gone.status, 404)
      const before = yield* request("GET", `/v5/dataset-items/${added.items[0]!.id}?version=1`, { key: caller.key })
      assert.strictEqual(before.status, 404)
      const beyond = yield* request("GET", `/v5/dataset-items?dataset_id=${dataset.id}&version=5`, { key: caller.key })
      assert.strictEqual(beyond.status, 422)
      assert.deepStrictEqual(issues(beyond), [{ loc: ["query", "version"], type: "value_error" }])

      // cursors at a version
      const page1 = yield* client.datasets.listItems({ urlParams: { dataset_id: dataset.id, version: 3, limit: 2, sort_order: "asc" } })
      assert.isTrue(page1.has_more)
      const page2 = yield* client.datasets.listItems({
        urlParams: { dataset_id: dataset.id, version: 3, limit: 2, sort_order: "asc", starting_after: page1.items[1]!.id }
      })
      assert.deepStrictEqual(page2.items.map((item) => item.data.q), ["three"])
      assert.isFalse(page2.has_more)
    }))

  it.effect("concurrent changes each make their own version, none lost", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { client } = caller
      const dataset = yield* created(caller, { name: "busy", data: [{ n: 0 }] })
      yield* Effect.forEach([1, 2, 3, 4, 5], (n) => client.datasets.batchCreateItems({ payload: { dataset_id: dataset.id, data: [{ n }] } }), {
        concurrency: "unbounded"
      })
      assert.strictEqual((yield* client.datasets.get({ path: { dataset_id: dataset.id }, urlParams: {} })).current_version_num, 6)
      const counts = yield* Effect.forEach([1, 2, 3, 4, 5, 6], (version) =>
        Effect.map(client.datasets.listItems({ urlParams: { dataset_id: dataset.id, version } }), (page) => page.total))
      assert.deepStrictEqual(counts, [1, 2, 3, 4, 5, 6])
    }))

  it.effect("archive hides the dataset and its items, refuses changes; restore brings them back", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { client } = caller
      const dataset = yield* created(caller, { name: "set", data: [{ x: 1 }] })
      const archived = yield* request("DELETE", `/v5/datasets/${dataset.id}`, { key: caller.key })
      assert.deepStrictEqual(archived.body, { id: dataset.id, deleted: true, object: "dataset" })
      assert.strictEqual((yield* request("DELETE", `/v5/datasets/${dataset.id}`, { key: caller.key })).status, 409)
      assert.strictEqual((yield* request("GET", `/v5/datasets/${dataset.id}`, { key: caller.key })).status, 404)
      const shown = yield* client.datasets.get({ path: { dataset_id: dataset.id }, urlParams: { include_archived: true } })
      assert.isString(shown.archived_at)
      assert.strictEqual((yield* client.datasets.list({ urlParams: {} })).total, 0)
      assert.strictEqual((yield* client.datasets.listItems({ urlParams: {} })).total, 0)
      const items = yield* client.datasets.listItems({ urlParams: { include_archived: true } })
      assert.strictEqual(items.items[0]!.archived_at, shown.archived_at)

      const renamed = yield* request("PATCH", `/v5/datasets/${dataset.id}`, { key: caller.key, body: { name: "other" } })
      assert.strictEqual(renamed.status, 409)
      const added = yield* request("POST", "/v5/dataset-items/batch", { key: caller.key, body: { dataset_id: dataset.id, data: [{ x: 2 }] } })
      assert.strictEqual(added.status, 409)

      const restored = yield* client.datasets.update({ path: { dataset_id: dataset.id }, payload: { restore: true } })
      assert.strictEqual(restored.archived_at, null)
      assert.strictEqual(restored.current_version_num, 1)
      assert.strictEqual((yield* client.datasets.listItems({ urlParams: {} })).items[0]!.archived_at, null)
      const changed = yield* client.datasets.update({ path: { dataset_id: dataset.id }, payload: { name: "renamed", tags: ["a", "B"] } })
      assert.deepStrictEqual([changed.name, changed.tags], ["renamed", ["a", "B"]])
    }))

  it.effect("list filters by a part of the name and by tags, pages by cursor", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { client } = caller
      for (const [name, tags] of [["Alpha set", ["prod"]], ["beta SET", ["prod", "eval"]], ["gamma", []]] as const) {
        yield* created(caller, { name, tags, data: [{}] })
        yield* TestClock.adjust("1 millis")
      }
      const names = (page: { readonly items: ReadonlyArray<{ readonly name: string }> }) => page.items.map((d) => d.name)
      assert.deepStrictEqual(names(yield* client.datasets.list({ urlParams: { name: "set" } })), ["beta SET", "Alpha set"])
      assert.deepStrictEqual(names(yield* client.datasets.list({ urlParams: { tags: ["PROD", "eval"] } })), ["beta SET"])
      const first = yield* client.datasets.list({ urlParams: { limit: 2, sort_by: "name", sort_order: "asc" } })
      assert.deepStrictEqual(names(first), ["Alpha set", "beta SET"])
      assert.isTrue(first.has_more)
      const rest = yield* client.datasets.list({ urlParams: { limit: 2, sort_by: "name", sort_order: "asc", starting_after: first.items[1]!.id } })
      assert.deepStrictEqual(names(rest), ["gamma"])
    }))

  it.effect("bad input is a 422 with nothing stored; another account's datasets and items are 404", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const empty = yield* request("POST", "/v5/datasets", { key: alice.key, body: { name: "x", data: [] } })
      assert.strictEqual(empty.status, 422)
      assert.deepStrictEqual(issues(empty), [{ loc: ["body", "data"], type: "too_short" }])
      const notObjects = yield* request("POST", "/v5/datasets", { key: alice.key, body: { name: "x", data: [1] } })
      assert.strictEqual(notObjects.status, 422)
      const files = yield* request("POST", "/v5/datasets", { key: alice.key, body: { name: "x", data: [{}], files: [{}, {}] } })
      assert.deepStrictEqual(issues(files), [{ loc: ["body", "files"], type: "value_error" }])
      const noDataset = yield* request("GET", "/v5/dataset-items?version=1", { key: alice.key })
      assert.deepStrictEqual(issues(noDataset), [{ loc: ["query", "version"], type: "value_error" }])
      assert.strictEqual((yield* alice.client.datasets.list({ urlParams: {} })).total, 0)

      const dataset = yield* created(alice, { name: "mine", data: [{ x: 1 }] })
      const item = (yield* alice.client.datasets.listItems({ urlParams: { dataset_id: dataset.id } })).items[0]!
      for (
        const [method, path, body] of [
          ["GET", `/v5/datasets/${dataset.id}`, undefined],
          ["PATCH", `/v5/datasets/${dataset.id}`, { name: "theirs" }],
          ["DELETE", `/v5/datasets/${dataset.id}`, undefined],
          ["GET", `/v5/dataset-items/${item.id}`, undefined],
          ["PATCH", `/v5/dataset-items/${item.id}`, { data: { x: 2 } }],
          ["DELETE", `/v5/dataset-items/${item.id}`, undefined],
          ["GET", `/v5/dataset-items?dataset_id=${dataset.id}`, undefined],
          ["POST", "/v5/dataset-items/batch", { dataset_id: dataset.id, data: [{}] }]
        ] as const
      ) {
        const response = yield* request(method, path, { key: bob.key, ...(body === undefined ? {} : { body }) })
        assert.strictEqual(response.status, 404, `${method} ${path}`)
      }
      const still = yield* alice.client.datasets.get({ path: { dataset_id: dataset.id }, urlParams: {} })
      assert.deepStrictEqual([still.name, still.current_version_num], ["mine", 1])
    }))
})
