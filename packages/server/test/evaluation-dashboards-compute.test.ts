/**
 * Dashboards that compute (docs/evaluation-dashboards.md "Computing"): widgets' results computed
 * from the items of the evaluations they read, pending while those run, recomputed when they end
 * and when the widget changes; widget update and remove.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { computeWidget, type ItemRow } from "../src/evaluation-dashboards/compute.js"
import { eventually, issues, provision, request, TestServerLive } from "../src/testing.js"
import type { Caller } from "./support/models.js"

const base = "/v5/evaluation-dashboards"
const get = (caller: Caller, path: string) => request("GET", path, { key: caller.key })

const column = (name: string, alias = name) => ({ expression: { column: name, type: "COLUMN", source: "data" }, alias })
const aggregate = (fn: string, alias: string, name?: string) => ({
  expression: { type: "AGGREGATE", function: fn, ...(name === undefined ? {} : { column: name }) },
  alias
})

/** The dashboard once every widget result is no longer pending; every distinct set of statuses seen before, in order. */
const computed = (caller: Caller, id: string) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const end = yield* eventually(Effect.map(get(caller, `${base}/${id}`), (read) => {
      const statuses = read.body.widget_results.map((r: any) => r.computation_status).join(",")
      if (seen.at(-1) !== statuses) seen.push(statuses)
      return read.body.widget_results.every((r: any) => r.computation_status !== "pending") ? Option.some(read.body) : Option.none()
    }))
    assert.isTrue(Option.isSome(end), `still pending: ${seen.at(-1)}`)
    return { dashboard: Option.getOrThrow(end), seen }
  })

layer(TestServerLive, { timeout: 120_000 })("evaluation dashboards: computing", (it) => {
  it.effect("widgets of a running evaluation wait, then show what its items say: counts and means per group, a metric", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const evaluation = yield* request("POST", "/v5/evaluations", {
        key: caller.key,
        body: {
          name: "scored",
          data: [{ category: "a", q: "x y" }, { category: "b", q: "x" }, { category: "a", q: "z" }],
          tasks: [
            { task_type: "chat_completion", alias: "reply", configuration: { model: "builtin/echo", messages: [{ role: "user", content: "item.q" }] } },
            { task_type: "metric", alias: "score", configuration: { type: "rouge1", candidate: "item.reply", reference: "x y" } }
          ]
        }
      })
      assert.strictEqual(evaluation.status, 200)
      const created = yield* request("POST", base, {
        key: caller.key,
        body: {
          name: "board",
          evaluation_id: evaluation.body.id,
          widgets: [
            { title: "per category", type: "bar", query: { select: [column("category"), aggregate("COUNT", "n")], groupBy: ["category"], orderBy: [{ column: "n", source: "data", direction: "DESC" }] } },
            { title: "mean score", type: "bar", query: { select: [column("category"), aggregate("AVG", "mean", "score")], groupBy: ["category"], orderBy: [{ column: "category", source: "data", direction: "ASC" }] } },
            { title: "overall", type: "metric", query: { select: [aggregate("AVG", "mean", "score")] } },
            { title: "best", type: "table", query: { select: [column("q"), column("score")], orderBy: [{ column: "score", source: "data", direction: "DESC" }], limit: 2 } }
          ]
        }
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      assert.isTrue(created.body.widget_results.every((r: any) => r.computation_status === "pending"))

      const { dashboard, seen } = yield* computed(caller, created.body.id)
      // pending (the create's answer), then done
      assert.strictEqual(seen.at(-1), "completed,completed,completed,completed")
      const results = dashboard.widget_results.map((r: any) => r.computed_result)
      // scores: "x y" 1, "x" 2/3, "z" 0 (rouge1 against "x y")
      assert.deepStrictEqual(results[0], { type: "series", data: [{ x: "a", y: 2 }, { x: "b", y: 1 }] })
      assert.deepStrictEqual(results[1], { type: "series", data: [{ x: "a", y: 0.5 }, { x: "b", y: 2 / 3 }] })
      assert.strictEqual(results[2].type, "metric")
      assert.closeTo(results[2].data, 5 / 9, 1e-12)
      assert.deepStrictEqual(results[3], { type: "table", data: [{ q: "x y", score: 1 }, { q: "x", score: 2 / 3 }] })
      for (const result of dashboard.widget_results) {
        assert.isString(result.computed_at)
        assert.strictEqual(result.error_message, null)
      }
    }))

  it.effect("a widget changed is computed anew; removed, it leaves the dashboard; one that reads no evaluation fails", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const evaluation = yield* request("POST", "/v5/evaluations", {
        key: caller.key,
        body: { name: "plain", data: [{ k: "p" }, { k: "q" }, { k: "p" }] }
      })
      const created = yield* request("POST", base, {
        key: caller.key,
        body: {
          name: "board",
          widgets: [
            { title: "reads", type: "bar", query: { select: [column("k"), aggregate("COUNT", "n")], groupBy: ["k"], evaluation_ids: [evaluation.body.id] } },
            { title: "reads nothing", type: "bar", query: { select: [column("k")] } }
          ]
        }
      })
      const [reads, nothing] = created.body.widget_order
      const first = (yield* computed(caller, created.body.id)).dashboard
      assert.deepStrictEqual(first.widget_results[0].computed_result, { type: "series", data: [{ x: "p", y: 2 }, { x: "q", y: 1 }] })
      assert.strictEqual(first.widget_results[1].computation_status, "failed")
      assert.strictEqual(first.widget_results[1].error_message, "The widget reads no evaluation: give its query evaluation_ids, or its dashboard an evaluation_id")

      // PATCH: answered with its result (pending again, a new job), then computed from the new query
      const patched = yield* request("PATCH", `${base}/${created.body.id}/widgets/${reads}`, {
        key: caller.key,
        body: { title: "top one", query: { select: [column("k"), aggregate("COUNT", "n")], groupBy: ["k"], limit: 1, evaluation_ids: [evaluation.body.id] } }
      })
      assert.strictEqual(patched.status, 200, JSON.stringify(patched.body))
      assert.strictEqual(patched.body.title, "top one")
      assert.strictEqual(patched.body.result.computation_status, "pending")
      assert.notStrictEqual(patched.body.result.computation_job_id, first.widget_results[0].computation_job_id)
      const second = (yield* computed(caller, created.body.id)).dashboard
      assert.deepStrictEqual(second.widget_results[0].computed_result, { type: "series", data: [{ x: "p", y: 2 }] })
      assert.strictEqual(second.widgets[0].title, "top one")

      // a query naming an evaluation that is not there: 404, nothing changed
      const missing = yield* request("PATCH", `${base}/${created.body.id}/widgets/${reads}`, {
        key: caller.key,
        body: { query: { select: [column("k")], evaluation_ids: ["00000000-0000-4000-8000-000000000000"] } }
      })
      assert.strictEqual(missing.status, 404)
      const invalid = yield* request("PATCH", `${base}/${created.body.id}/widgets/${reads}`, { key: caller.key, body: { query: { select: [] } } })
      assert.strictEqual(invalid.status, 422)
      assert.deepStrictEqual(issues(invalid).map((issue: any) => issue.loc.slice(0, 3)), [["body", "query", "select"]])

      // DELETE: 204, gone from the dashboard; again: 404
      const removed = yield* request("DELETE", `${base}/${created.body.id}/widgets/${nothing}`, { key: caller.key })
      assert.strictEqual(removed.status, 204)
      const after = yield* get(caller, `${base}/${created.body.id}`)
      assert.deepStrictEqual(after.body.widget_order, [reads])
      assert.deepStrictEqual(after.body.widgets.map((w: any) => w.id), [reads])
      assert.deepStrictEqual(after.body.widget_results.map((r: any) => r.widget_id), [reads])
      assert.strictEqual((yield* request("DELETE", `${base}/${created.body.id}/widgets/${nothing}`, { key: caller.key })).status, 404)
      assert.strictEqual((yield* request("PATCH", `${base}/${created.body.id}/widgets/${nothing}`, { key: caller.key, body: { title: "x" } })).status, 404)

      // through the typed client
      const typed = yield* caller.client.evaluationDashboards.updateWidget({
        path: { dashboard_id: created.body.id, widget_id: reads },
        payload: { config: { color: "red" } }
      })
      assert.deepStrictEqual(typed.config, { color: "red" })
      assert.strictEqual(typed.result.widget_id, reads)
    }))
})

describe("widget computation", () => {
  const row = (data: Record<string, unknown>, evaluation = "e1"): ItemRow => ({
    item: { id: `i-${JSON.stringify(data)}`, evaluation_id: evaluation, created_at: "2026-01-01T00:00:00.000Z", dataset_item_id: null, data },
    evaluation: { id: evaluation, name: `name of ${evaluation}`, status: "completed" }
  })
  const query = (q: Record<string, unknown>) => ({ groupBy: [], orderBy: [], limit: null, evaluation_ids: [], ...q }) as any

  it("groups, aggregates, orders with nulls last, limits; reads item and evaluation sources", () => {
    const rows = [row({ g: "x", v: 3 }), row({ g: "y", v: 1 }), row({ g: "x", v: "not a number" }), row({ v: 5 }, "e2")]
    assert.deepStrictEqual(
      computeWidget("table", query({
        select: [column("g"), aggregate("SUM", "sum", "v"), aggregate("MIN", "min", "v"), aggregate("MAX", "max", "v"), aggregate("COUNT", "with", "v")],
        groupBy: ["g"],
        orderBy: [{ column: "g", source: "data", direction: "ASC" }]
      }), rows),
      {
        type: "table",
        data: [
          { g: "x", sum: 3, min: 3, max: 3, with: 2 },
          { g: "y", sum: 1, min: 1, max: 1, with: 1 },
          { g: null, sum: 5, min: 5, max: 5, with: 1 }
        ]
      }
    )
    assert.deepStrictEqual(
      computeWidget("donut", query({
        select: [{ expression: { column: "name", type: "COLUMN", source: "evaluation" }, alias: "evaluation" }, aggregate("COUNT", "n")],
        groupBy: ["evaluation"],
        orderBy: [{ column: "n", source: "data", direction: "DESC" }],
        limit: 1
      }), rows),
      { type: "series", data: [{ x: "name of e1", y: 3 }] }
    )
    assert.deepStrictEqual(computeWidget("metric", query({ select: [aggregate("COUNT", "n")] }), []), { type: "metric", data: 0 })
    assert.deepStrictEqual(computeWidget("metric", query({ select: [aggregate("AVG", "mean", "v")] }), []), { type: "metric", data: null })
    assert.deepStrictEqual(computeWidget("bar", query({ select: [aggregate("COUNT", "n")] }), rows), { type: "series", data: [{ x: "n", y: 4 }] })
    assert.strictEqual(computeWidget("markdown", query({ select: [column("g")] }), rows), null)
    // nulls last in either direction
    assert.deepStrictEqual(
      computeWidget("table", query({ select: [column("g")], orderBy: [{ column: "g", source: "data", direction: "DESC" }] }), rows),
      { type: "table", data: [{ g: "y" }, { g: "x" }, { g: "x" }, { g: null }] }
    )
    // many values (no spread of arguments)
    const many = Array.from({ length: 200_000 }, (_, i) => row({ v: i }))
    assert.deepStrictEqual(
      computeWidget("table", query({ select: [aggregate("MIN", "min", "v"), aggregate("MAX", "max", "v")] }), many),
      { type: "table", data: [{ min: 0, max: 199_999 }] }
    )
    // source item reads the item's documented fields only; evaluation its id, name, status
    const stored = { ...row({ position: "from data" }), item: { ...row({ position: "from data" }).item, position: 7, run_error: "secret" } } as any
    assert.deepStrictEqual(
      computeWidget("table", query({
        select: [
          { expression: { column: "position", type: "COLUMN", source: "item" }, alias: "p" },
          { expression: { column: "run_error", type: "COLUMN", source: "item" }, alias: "e" },
          { expression: { column: "constructor", type: "COLUMN", source: "evaluation" }, alias: "c" }
        ]
      }), [stored]),
      { type: "table", data: [{ p: "from data", e: null, c: null }] }
    )
    // without aggregates, one record per item, in the items' order
    assert.deepStrictEqual(
      computeWidget("scatter", query({ select: [column("v"), { expression: { column: "id", type: "COLUMN", source: "item" }, alias: "id" }] }), rows.slice(0, 2)),
      { type: "series", data: [{ x: 3, y: rows[0]!.item.id }, { x: 1, y: rows[1]!.item.id }] }
    )
  })
})
