/**
 * Evaluation dashboards (docs/evaluation-dashboards.md, docs/decisions.md "Lifecycle"): create,
 * get (widgets always), update, archive/restore and widget append. The list and its filters are in
 * evaluation-dashboards-list.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, TestClock } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"
import { tableColumns } from "../src/sql/dialect.js"

const base = "/v5/evaluation-dashboards"

/**
 * An evaluation of `accountId`, written straight into the evaluations family's table (only its
 * existence matters here). Every NOT NULL column besides the known ones gets a placeholder.
 */
const insertEvaluation = (accountId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id = crypto.randomUUID()
    const columns = yield* tableColumns("evaluations")
    const row: Record<string, unknown> = { id, account_id: accountId, created_at: "2026-01-01T00:00:00.000Z", doc: "{}" }
    for (const column of columns) {
      if (!(column.name in row) && column.notNull) row[column.name] = "x"
    }
    yield* sql`INSERT INTO evaluations ${sql.insert(row)}`
    return id
  }).pipe(Effect.orDie)

const query = (evaluationIds: ReadonlyArray<string> = []) => ({
  select: [{ expression: { column: "score", type: "COLUMN" as const, source: "results" }, alias: "avg_score" }],
  groupBy: ["model"],
  orderBy: [{ column: "score", source: "results", direction: "DESC" as const }],
  limit: 10,
  evaluation_ids: evaluationIds
})

const widgetBody = (title: string, evaluationIds: ReadonlyArray<string> = []) => ({
  title,
  type: "bar",
  config: { color: "blue", stacked: true },
  query: query(evaluationIds)
})

layer(TestServerLive)("evaluation dashboards", (it) => {
  // ------------------------------------------------------------------------------------------
  // create

  it.effect("create answers every field, with created_by from the key; get reads it back", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key, client } = yield* provision()
      const evaluationId = yield* insertEvaluation(accountId)
      const created = yield* client.evaluationDashboards.create({
        payload: {
          name: "Quality",
          description: "weekly quality",
          evaluation_id: evaluationId,
          evaluation_group_id: "group-7",
          tags: ["Prod", "weekly"],
          widgets: [widgetBody("Scores", [evaluationId]), widgetBody("Latency")]
        }
      })
      assert.match(created.id, uuid)
      assert.match(created.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      assert.strictEqual(created.widget_order.length, 2)
      created.widget_order.forEach((id) => assert.match(id, uuid))
      const { id, created_at, widget_order } = created
      assert.deepStrictEqual({ ...created }, {
        id,
        name: "Quality",
        description: "weekly quality",
        account_id: accountId,
        evaluation_id: evaluationId,
        evaluation_group_id: "group-7",
        error_message: null,
        created_at,
        updated_at: created_at,
        archived_at: null,
        created_by: created.created_by,
        tags: ["Prod", "weekly"],
        object: "evaluation_dashboard",
        widget_order,
        widgets: created.widgets,
        widget_results: created.widget_results
      })
      assert.deepStrictEqual({ ...created.created_by }, { id: identityId, type: "user", object: "identity" })
      // widgets and widget_results are plain fields of the platform's dashboard: on the create answer, in widget_order
      assert.deepStrictEqual(created.widgets.map((w) => w.id), widget_order)
      assert.deepStrictEqual(created.widgets.map((w) => w.title), ["Scores", "Latency"])
      assert.deepStrictEqual(created.widget_results.map((r) => r.widget_id), widget_order)

      // no views asked: both fields are still on the wire, filled
      const raw = yield* request("GET", `${base}/${id}`, { key })
      assert.strictEqual(raw.body.widgets.length, 2)
      assert.strictEqual(raw.body.widget_results.length, 2)

      const read = yield* client.evaluationDashboards.get({ path: { dashboard_id: id }, urlParams: {} })
      // the results are computed in the background meanwhile (docs/evaluation-dashboards.md "Computing"): compared by widget
      const { widget_results: readResults, ...readRest } = read
      const { widget_results: createdResults, ...createdRest } = created
      assert.deepStrictEqual(readRest, createdRest)
      assert.deepStrictEqual(readResults.map((r) => [r.id, r.widget_id]), createdResults.map((r) => [r.id, r.widget_id]))
    }))

  it.effect("widgets and widget_results are on every answer: create, get, list, PATCH, DELETE, without views", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const created = yield* request("POST", base, { key, body: { name: "Every", widgets: [widgetBody("One")] } })
      assert.strictEqual(created.status, 200)
      const [widgetId] = created.body.widget_order
      const check = (body: any) => {
        assert.deepStrictEqual(body.widgets.map((w: any) => w.id), [widgetId])
        assert.deepStrictEqual(body.widget_results.map((r: any) => r.widget_id), [widgetId])
        // computed in the background (this dashboard reads no evaluation: the computation fails)
        assert.include(["pending", "failed"], body.widget_results[0].computation_status)
      }
      check(created.body)
      assert.strictEqual(created.body.widget_results[0].computation_status, "pending")
      check((yield* request("GET", `${base}/${created.body.id}`, { key })).body)
      const listed = yield* request("GET", base, { key })
      assert.strictEqual(listed.body.items.length, 1)
      check(listed.body.items[0])
      const patched = yield* request("PATCH", `${base}/${created.body.id}`, { key, body: { name: "Renamed" } })
      assert.strictEqual(patched.status, 200)
      check(patched.body)
      const added = yield* request("POST", `${base}/${created.body.id}/widgets`, { key, body: widgetBody("Two") })
      const afterAdd = yield* request("GET", `${base}/${created.body.id}`, { key })
      assert.deepStrictEqual(afterAdd.body.widgets.map((w: any) => w.id), [widgetId, added.body.id])
      assert.deepStrictEqual(afterAdd.body.widget_results.map((r: any) => r.widget_id), [widgetId, added.body.id])
      const archived = yield* request("DELETE", `${base}/${created.body.id}`, { key })
      assert.strictEqual(archived.status, 200)
      assert.isString(archived.body.archived_at)
      assert.deepStrictEqual(archived.body.widgets, afterAdd.body.widgets)
      assert.deepStrictEqual(
        archived.body.widget_results.map((r: any) => r.id),
        afterAdd.body.widget_results.map((r: any) => r.id)
      )
      const withArchived = yield* request("GET", `${base}?include_archived=true`, { key })
      assert.deepStrictEqual(withArchived.body.items[0].widgets, afterAdd.body.widgets)
      // a dashboard without widgets answers empty arrays
      const bare = yield* request("POST", base, { key, body: { name: "Bare" } })
      assert.deepStrictEqual([bare.body.widgets, bare.body.widget_results], [[], []])
      const page = yield* request("GET", base, { key })
      assert.deepStrictEqual(page.body.items.map((d: any) => d.widgets.length), [0])
    }))

  it.effect("views=widgets,widget_results answer the widgets in widget_order and one pending result each", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provision()
      const evaluationId = yield* insertEvaluation(accountId)
      const created = yield* client.evaluationDashboards.create({
        payload: {
          name: "Views",
          evaluation_id: evaluationId,
          evaluation_group_id: "g1",
          widgets: [widgetBody("First", [evaluationId]), widgetBody("Second")]
        }
      })
      const response = yield* request("GET", `${base}/${created.id}?views=widgets,widget_results`, { key })
      assert.strictEqual(response.status, 200)
      const [first, second] = created.widget_order
      assert.deepStrictEqual(response.body.widgets, [
        {
          id: first,
          title: "First",
          type: "bar",
          account_id: accountId,
          created_at: created.created_at,
          archived_at: null,
          object: "evaluation_dashboard_widget",
          config: { color: "blue", stacked: true },
          query: query([evaluationId])
        },
        {
          id: second,
          title: "Second",
          type: "bar",
          account_id: accountId,
          created_at: created.created_at,
          archived_at: null,
          object: "evaluation_dashboard_widget",
          config: { color: "blue", stacked: true },
          query: query()
        }
      ])
      const results = response.body.widget_results as Array<any>
      assert.deepStrictEqual(results.map((r) => r.widget_id), [first, second])
      for (const result of results) {
        assert.match(result.id, uuid)
        // the widget's first computation, requested with it, runs in the background
        // (docs/evaluation-dashboards.md "Computing"): pending, or done by now
        const { computation_status, computed_at, computed_result, computation_job_id, ...rest } = result
        assert.include(["pending", "completed"], computation_status)
        assert.match(computation_job_id, uuid)
        if (computation_status === "pending") assert.deepStrictEqual([computed_at, computed_result], [null, null])
        assert.deepStrictEqual(rest, {
          id: result.id,
          widget_id: result.widget_id,
          account_id: accountId,
          created_at: created.created_at,
          object: "evaluation_dashboard_widget_result",
          evaluation_id: evaluationId,
          evaluation_group_id: "g1",
          error_message: null
        })
      }

      // `views` is still accepted and changes nothing: one view asked, both fields answered
      const widgetsOnly = yield* client.evaluationDashboards.get({
        path: { dashboard_id: created.id },
        urlParams: { views: ["widgets"] }
      })
      assert.deepStrictEqual(widgetsOnly.widgets.map((w) => w.title), ["First", "Second"])
      assert.strictEqual(widgetsOnly.widget_results.length, 2)
      const noViews = yield* request("GET", `${base}/${created.id}`, { key })
      assert.deepStrictEqual(noViews.body, response.body)
      const repeated = yield* request("GET", `${base}/${created.id}?views=widget_results&views=widgets`, { key })
      assert.strictEqual(repeated.body.widgets.length, 2)
      assert.strictEqual(repeated.body.widget_results.length, 2)
    }))

  it.effect("create with only a name: optional fields are null, tags and widget_order empty", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* provision()
      const response = yield* request("POST", base, { key, body: { name: "bare", description: null, tags: null } })
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.body.account_id, accountId)
      assert.strictEqual(response.body.description, null)
      assert.strictEqual(response.body.evaluation_id, null)
      assert.strictEqual(response.body.evaluation_group_id, null)
      assert.strictEqual(response.body.error_message, null)
      assert.deepStrictEqual(response.body.tags, [])
      assert.deepStrictEqual(response.body.widget_order, [])
      const views = yield* request("GET", `${base}/${response.body.id}?views=widgets,widget_results`, { key })
      assert.deepStrictEqual(views.body.widgets, [])
      assert.deepStrictEqual(views.body.widget_results, [])
    }))

  it.effect("a widget query's optional members default: groupBy/orderBy/evaluation_ids [], limit null, config {}", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const response = yield* request("POST", base, {
        key,
        body: {
          name: "defaults",
          widgets: [{
            title: "t",
            type: "line",
            query: { select: [{ expression: { column: "c", type: "COLUMN", source: "s" }, alias: "a" }] }
          }]
        }
      })
      assert.strictEqual(response.status, 200)
      const views = yield* request("GET", `${base}/${response.body.id}?views=widgets`, { key })
      assert.strictEqual(views.body.widgets[0].type, "line")
      assert.deepStrictEqual(views.body.widgets[0].config, {})
      assert.deepStrictEqual(views.body.widgets[0].query, {
        select: [{ expression: { column: "c", type: "COLUMN", source: "s" }, alias: "a" }],
        groupBy: [],
        orderBy: [],
        limit: null,
        evaluation_ids: []
      })
    }))

  it.effect("create validation: exact 422 locs and types, and nothing is written", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const missing = yield* request("POST", base, { key, body: { description: "no name" } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [{ loc: ["body", "name"], type: "missing" }])

      const wrongTypes = yield* request("POST", base, {
        key,
        body: { name: "", tags: ["ok", 3], evaluation_id: 5, widgets: {} }
      })
      assert.strictEqual(wrongTypes.status, 422)
      assert.deepStrictEqual(issues(wrongTypes), [
        { loc: ["body", "name"], type: "string_too_short" },
        { loc: ["body", "evaluation_id"], type: "string_type" },
        { loc: ["body", "tags", 1], type: "string_type" },
        { loc: ["body", "widgets"], type: "list_type" }
      ])

      const badWidget = yield* request("POST", base, {
        key,
        body: {
          name: "w",
          widgets: [{
            type: "",
            config: [],
            query: {
              select: [],
              orderBy: [{ column: "c", source: "s", direction: "UP" }],
              limit: 0
            }
          }, {
            title: "ok",
            type: "bar",
            query: { select: [{ expression: { column: "c", type: "ROW", source: "s" }, alias: "a" }] }
          }]
        }
      })
      assert.strictEqual(badWidget.status, 422)
      assert.deepStrictEqual(issues(badWidget), [
        { loc: ["body", "widgets", 0, "title"], type: "missing" },
        { loc: ["body", "widgets", 0, "type"], type: "string_too_short" },
        { loc: ["body", "widgets", 0, "config"], type: "dict_type" },
        { loc: ["body", "widgets", 0, "query", "select"], type: "too_short" },
        { loc: ["body", "widgets", 0, "query", "orderBy", 0, "direction"], type: "literal_error" },
        { loc: ["body", "widgets", 0, "query", "limit"], type: "greater_than_equal" },
        { loc: ["body", "widgets", 1, "query", "select", 0, "expression", "type"], type: "literal_error" }
      ])

      const malformed = yield* request("POST", base, { key, body: "{\"name\":" })
      assert.strictEqual(malformed.status, 422)
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      const list = yield* client.evaluationDashboards.list({ urlParams: { include_archived: true } })
      assert.strictEqual(list.total, 0)
    }))

  it.effect("create: 401 without a key, 403 for another account, 404 for an unknown or foreign evaluation; nothing written", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const alicesEvaluation = yield* insertEvaluation(alice.accountId)

      const none = yield* request("POST", base, { body: { name: "x" } })
      assert.strictEqual(none.status, 401)
      assert.isString(none.body.detail)

      const forbidden = yield* request("POST", base, { key: bob.key, body: { name: "x", account_id: alice.accountId } })
      assert.strictEqual(forbidden.status, 403)

      const unknown = yield* request("POST", base, { key: bob.key, body: { name: "x", evaluation_id: "no-such-eval" } })
      assert.strictEqual(unknown.status, 404)
      assert.deepStrictEqual(unknown.body, { detail: "Evaluation no-such-eval not found" })

      const foreign = yield* request("POST", base, { key: bob.key, body: { name: "x", evaluation_id: alicesEvaluation } })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Evaluation ${alicesEvaluation} not found` })

      const inQuery = yield* request("POST", base, {
        key: bob.key,
        body: { name: "x", widgets: [widgetBody("w", [alicesEvaluation])] }
      })
      assert.strictEqual(inQuery.status, 404)
      assert.deepStrictEqual(inQuery.body, { detail: `Evaluation ${alicesEvaluation} not found` })

      const bobs = yield* bob.client.evaluationDashboards.list({ urlParams: { include_archived: true } })
      assert.strictEqual(bobs.total, 0)
      const alices = yield* alice.client.evaluationDashboards.list({ urlParams: { include_archived: true } })
      assert.strictEqual(alices.total, 0)
    }))

  it.effect("a caller with several accounts names one (else 422 at body.account_id)", () =>
    Effect.gen(function*() {
      const first = yield* provision()
      const second = yield* provision()
      const accounts = yield* Accounts
      yield* accounts.addMember(first.identityId, second.accountId)
      const unnamed = yield* request("POST", base, { key: first.key, body: { name: "which" } })
      assert.strictEqual(unnamed.status, 422)
      assert.deepStrictEqual(issues(unnamed), [{ loc: ["body", "account_id"], type: "missing" }])
      const created = yield* first.client.evaluationDashboards.create({
        payload: { name: "named", account_id: second.accountId }
      })
      assert.strictEqual(created.account_id, second.accountId)
      assert.deepStrictEqual(created.created_by.id, first.identityId)
      const seen = yield* second.client.evaluationDashboards.get({ path: { dashboard_id: created.id }, urlParams: {} })
      assert.deepStrictEqual(seen, created)
    }))

  // ------------------------------------------------------------------------------------------
  // get

  it.effect("get: 404 for a missing id and for another account's dashboard; 401 without a key; 422 on bad query", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const dashboard = yield* alice.client.evaluationDashboards.create({ payload: { name: "a" } })

      const missing = yield* Effect.flip(
        bob.client.evaluationDashboards.get({ path: { dashboard_id: "no-such-id" }, urlParams: {} })
      )
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("GET", `${base}/${dashboard.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Evaluation dashboard ${dashboard.id} not found` })
      const foreignArchived = yield* request("GET", `${base}/${dashboard.id}?include_archived=true`, { key: bob.key })
      assert.strictEqual(foreignArchived.status, 404)

      const none = yield* request("GET", `${base}/${dashboard.id}`)
      assert.strictEqual(none.status, 401)

      const bad = yield* request("GET", `${base}/${dashboard.id}?views=widgets,charts&include_archived=maybe`, {
        key: alice.key
      })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad), [
        { loc: ["query", "include_archived"], type: "literal_error" },
        { loc: ["query", "views", 1], type: "literal_error" }
      ])
    }))

  // ------------------------------------------------------------------------------------------
  // update

  it.effect("PATCH changes only the fields given, moves updated_at and answers the dashboard", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const created = yield* client.evaluationDashboards.create({
        payload: { name: "before", description: "d", tags: ["a"], evaluation_group_id: "g" }
      })
      yield* TestClock.adjust("5 millis")
      const renamed = yield* client.evaluationDashboards.update({
        path: { dashboard_id: created.id },
        payload: { name: "after" }
      })
      assert.notStrictEqual(renamed.updated_at, created.updated_at)
      assert.isTrue(renamed.updated_at > created.updated_at)
      assert.deepStrictEqual(renamed, { ...created, name: "after", updated_at: renamed.updated_at } as any)

      yield* TestClock.adjust("5 millis")
      const retagged = yield* client.evaluationDashboards.update({
        path: { dashboard_id: created.id },
        payload: { description: "new", tags: ["B", "c"] }
      })
      assert.deepStrictEqual(retagged, {
        ...created,
        name: "after",
        description: "new",
        tags: ["B", "c"],
        updated_at: retagged.updated_at
      } as any)
      const read = yield* client.evaluationDashboards.get({ path: { dashboard_id: created.id }, urlParams: {} })
      assert.deepStrictEqual(read, retagged)
      // the new tags are what the tag filter sees
      const byOld = yield* client.evaluationDashboards.list({ urlParams: { tags: ["a"] } })
      assert.strictEqual(byOld.total, 0)
      const byNew = yield* client.evaluationDashboards.list({ urlParams: { tags: ["b"] } })
      assert.deepStrictEqual(byNew.items.map((d) => d.id), [created.id])
    }))

  it.effect("PATCH widget_order: a permutation reorders the views; anything else is a 422 that changes nothing", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const created = yield* client.evaluationDashboards.create({
        payload: { name: "order", widgets: [widgetBody("A"), widgetBody("B"), widgetBody("C")] }
      })
      const [a, b, c] = created.widget_order as [string, string, string]
      const reordered = yield* client.evaluationDashboards.update({
        path: { dashboard_id: created.id },
        payload: { widget_order: [c, a, b] }
      })
      assert.deepStrictEqual(reordered.widget_order, [c, a, b])
      const views = yield* client.evaluationDashboards.get({
        path: { dashboard_id: created.id },
        urlParams: { views: ["widgets", "widget_results"] }
      })
      assert.deepStrictEqual(views.widgets?.map((w) => w.title), ["C", "A", "B"])
      assert.deepStrictEqual(views.widget_results?.map((r) => r.widget_id), [c, a, b])

      for (const order of [[a, b], [a, b, c, c], [a, b, "other"], [a, a, b], []]) {
        const bad = yield* request("PATCH", `${base}/${created.id}`, { key, body: { name: "ignored", widget_order: order } })
        assert.strictEqual(bad.status, 422)
        assert.deepStrictEqual(issues(bad), [{ loc: ["body", "widget_order"], type: "value_error" }])
      }
      const after = yield* client.evaluationDashboards.get({ path: { dashboard_id: created.id }, urlParams: {} })
      // the results are computed in the background meanwhile: compared by widget
      const { widget_results: resultsAfter, ...restAfter } = after
      const { widget_results: resultsBefore, ...restBefore } = reordered
      assert.deepStrictEqual(restAfter, restBefore)
      assert.deepStrictEqual(resultsAfter.map((r) => [r.id, r.widget_id]), resultsBefore.map((r) => [r.id, r.widget_id]))
    }))

  it.effect("PATCH validation: exact 422 locs and types; nothing is written", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const created = yield* client.evaluationDashboards.create({ payload: { name: "keep", tags: ["t"] } })
      const bad = yield* request("PATCH", `${base}/${created.id}`, {
        key,
        body: { name: "", tags: "t", restore: "yes", widget_order: [1] }
      })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad), [
        { loc: ["body", "name"], type: "string_too_short" },
        { loc: ["body", "tags"], type: "list_type" },
        { loc: ["body", "widget_order", 0], type: "string_type" },
        { loc: ["body", "restore"], type: "bool_type" }
      ])
      const malformed = yield* request("PATCH", `${base}/${created.id}`, { key, body: "[" })
      assert.strictEqual(malformed.status, 422)
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])
      const read = yield* client.evaluationDashboards.get({ path: { dashboard_id: created.id }, urlParams: {} })
      assert.deepStrictEqual(read, created)
    }))

  it.effect("PATCH: 404 for a missing or foreign dashboard (foreign one unchanged); 401 without a key", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const dashboard = yield* alice.client.evaluationDashboards.create({ payload: { name: "a" } })
      const missing = yield* request("PATCH", `${base}/nope`, { key: bob.key, body: { name: "b" } })
      assert.strictEqual(missing.status, 404)
      assert.deepStrictEqual(missing.body, { detail: "Evaluation dashboard nope not found" })
      const foreign = yield* request("PATCH", `${base}/${dashboard.id}`, { key: bob.key, body: { name: "b" } })
      assert.strictEqual(foreign.status, 404)
      const none = yield* request("PATCH", `${base}/${dashboard.id}`, { body: { name: "b" } })
      assert.strictEqual(none.status, 401)
      const read = yield* alice.client.evaluationDashboards.get({ path: { dashboard_id: dashboard.id }, urlParams: {} })
      assert.deepStrictEqual(read, dashboard)
    }))

  // ------------------------------------------------------------------------------------------
  // archive / restore

  it.effect("DELETE archives and answers the dashboard; hidden unless include_archived; again is a no-op; restore brings it back", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const created = yield* client.evaluationDashboards.create({ payload: { name: "old", tags: ["x"] } })
      yield* TestClock.adjust("1 seconds")
      const archived = yield* client.evaluationDashboards.archive({ path: { dashboard_id: created.id } })
      assert.isString(archived.archived_at)
      assert.strictEqual(archived.updated_at, archived.archived_at)
      assert.deepStrictEqual(archived, {
        ...created,
        archived_at: archived.archived_at,
        updated_at: archived.updated_at
      } as any)

      const hidden = yield* request("GET", `${base}/${created.id}`, { key })
      assert.strictEqual(hidden.status, 404)
      const shown = yield* client.evaluationDashboards.get({
        path: { dashboard_id: created.id },
        urlParams: { include_archived: true }
      })
      assert.deepStrictEqual(shown, archived)
      assert.strictEqual((yield* client.evaluationDashboards.list({ urlParams: {} })).total, 0)
      const withArchived = yield* client.evaluationDashboards.list({ urlParams: { include_archived: true } })
      assert.deepStrictEqual(withArchived.items, [archived])

      // archiving twice answers the archived dashboard, unchanged
      yield* TestClock.adjust("1 seconds")
      const again = yield* client.evaluationDashboards.archive({ path: { dashboard_id: created.id } })
      assert.deepStrictEqual(again, archived)

      // widgets cannot be added to an archived dashboard
      const widget = yield* request("POST", `${base}/${created.id}/widgets`, { key, body: widgetBody("w") })
      assert.strictEqual(widget.status, 404)

      const restored = yield* client.evaluationDashboards.update({
        path: { dashboard_id: created.id },
        payload: { restore: true }
      })
      assert.strictEqual(restored.archived_at, null)
      assert.isTrue(restored.updated_at > archived.updated_at)
      const visible = yield* client.evaluationDashboards.get({ path: { dashboard_id: created.id }, urlParams: {} })
      assert.deepStrictEqual(visible, restored)
      assert.strictEqual((yield* client.evaluationDashboards.list({ urlParams: {} })).total, 1)

      // restore: false changes nothing but updated_at
      const noop = yield* client.evaluationDashboards.update({
        path: { dashboard_id: created.id },
        payload: { restore: false }
      })
      assert.strictEqual(noop.archived_at, null)
    }))

  it.effect("DELETE: 404 for a missing or foreign dashboard (foreign one stays visible); 401 without a key", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const dashboard = yield* alice.client.evaluationDashboards.create({ payload: { name: "a" } })
      const missing = yield* Effect.flip(bob.client.evaluationDashboards.archive({ path: { dashboard_id: "nope" } }))
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("DELETE", `${base}/${dashboard.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Evaluation dashboard ${dashboard.id} not found` })
      const none = yield* request("DELETE", `${base}/${dashboard.id}`)
      assert.strictEqual(none.status, 401)
      const read = yield* alice.client.evaluationDashboards.get({ path: { dashboard_id: dashboard.id }, urlParams: {} })
      assert.deepStrictEqual(read, dashboard)
    }))

  // ------------------------------------------------------------------------------------------
  // widgets

  it.effect("adding a widget answers it, appends its id to widget_order and creates a pending result", () =>
    Effect.gen(function*() {
      const { accountId, client } = yield* provision()
      const evaluationId = yield* insertEvaluation(accountId)
      const dashboard = yield* client.evaluationDashboards.create({
        payload: { name: "grow", evaluation_id: evaluationId, evaluation_group_id: "grp", widgets: [widgetBody("one")] }
      })
      yield* TestClock.adjust("3 millis")
      const widget = yield* client.evaluationDashboards.addWidget({
        path: { dashboard_id: dashboard.id },
        payload: widgetBody("two", [evaluationId])
      })
      assert.match(widget.id, uuid)
      assert.deepStrictEqual({ ...widget, query: { ...widget.query } }, {
        id: widget.id,
        title: "two",
        type: "bar",
        account_id: accountId,
        created_at: widget.created_at,
        archived_at: null,
        object: "evaluation_dashboard_widget",
        config: { color: "blue", stacked: true },
        query: query([evaluationId])
      } as any)
      assert.isTrue(widget.created_at > dashboard.created_at)

      const read = yield* client.evaluationDashboards.get({
        path: { dashboard_id: dashboard.id },
        urlParams: { views: ["widgets", "widget_results"] }
      })
      assert.deepStrictEqual(read.widget_order, [...dashboard.widget_order, widget.id])
      assert.strictEqual(read.updated_at, widget.created_at)
      assert.deepStrictEqual(read.widgets?.map((w) => w.id), read.widget_order)
      assert.deepStrictEqual(read.widgets?.[1], widget)
      const result = read.widget_results?.[1]
      assert.isDefined(result)
      // computed in the background from the evaluation's items (none here): pending, or already done
      const { computation_status, computed_at, computed_result, computation_job_id, ...rest } = result!
      assert.include(["pending", "completed"], computation_status)
      assert.match(computation_job_id!, uuid)
      if (computation_status === "pending") assert.deepStrictEqual([computed_at, computed_result], [null, null])
      assert.deepStrictEqual({ ...rest }, {
        id: result!.id,
        widget_id: widget.id,
        account_id: accountId,
        created_at: widget.created_at,
        object: "evaluation_dashboard_widget_result",
        evaluation_id: evaluationId,
        evaluation_group_id: "grp",
        error_message: null
      } as any)
      assert.deepStrictEqual(read.widget_results?.map((r) => r.widget_id), read.widget_order)
    }))

  it.effect("concurrent widget appends all land in widget_order", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const dashboard = yield* client.evaluationDashboards.create({ payload: { name: "busy" } })
      const added = yield* Effect.forEach(
        ["a", "b", "c", "d", "e", "f"],
        (title) => client.evaluationDashboards.addWidget({ path: { dashboard_id: dashboard.id }, payload: widgetBody(title) }),
        { concurrency: "unbounded" }
      )
      const read = yield* client.evaluationDashboards.get({ path: { dashboard_id: dashboard.id }, urlParams: { views: ["widgets"] } })
      assert.deepStrictEqual([...read.widget_order].sort(), added.map((w) => w.id).sort())
      assert.strictEqual(read.widgets?.length, 6)
    }))

  it.effect("adding a widget: exact 422s, 404 for missing/foreign dashboards and foreign evaluations, 401; nothing written", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const alicesEvaluation = yield* insertEvaluation(alice.accountId)
      const dashboard = yield* bob.client.evaluationDashboards.create({ payload: { name: "b" } })
      const path = `${base}/${dashboard.id}/widgets`

      const missingFields = yield* request("POST", path, { key: bob.key, body: { type: "bar" } })
      assert.strictEqual(missingFields.status, 422)
      assert.deepStrictEqual(issues(missingFields), [
        { loc: ["body", "title"], type: "missing" },
        { loc: ["body", "query"], type: "missing" }
      ])
      const wrongTypes = yield* request("POST", path, {
        key: bob.key,
        body: {
          title: 1,
          type: "bar",
          query: { select: [{ expression: { column: "c", source: "s" } }], groupBy: "x", evaluation_ids: [2], limit: 1.5 }
        }
      })
      assert.strictEqual(wrongTypes.status, 422)
      assert.deepStrictEqual(issues(wrongTypes), [
        { loc: ["body", "title"], type: "string_type" },
        { loc: ["body", "query", "select", 0, "expression", "type"], type: "missing" },
        { loc: ["body", "query", "select", 0, "alias"], type: "missing" },
        { loc: ["body", "query", "groupBy"], type: "list_type" },
        { loc: ["body", "query", "limit"], type: "int_type" },
        { loc: ["body", "query", "evaluation_ids", 0], type: "string_type" }
      ])

      const missing = yield* request("POST", `${base}/nope/widgets`, { key: bob.key, body: widgetBody("w") })
      assert.strictEqual(missing.status, 404)
      assert.deepStrictEqual(missing.body, { detail: "Evaluation dashboard nope not found" })
      const foreign = yield* request("POST", path, { key: alice.key, body: widgetBody("w") })
      assert.strictEqual(foreign.status, 404)
      const foreignEvaluation = yield* request("POST", path, { key: bob.key, body: widgetBody("w", [alicesEvaluation]) })
      assert.strictEqual(foreignEvaluation.status, 404)
      assert.deepStrictEqual(foreignEvaluation.body, { detail: `Evaluation ${alicesEvaluation} not found` })
      const none = yield* request("POST", path, { body: widgetBody("w") })
      assert.strictEqual(none.status, 401)

      const read = yield* bob.client.evaluationDashboards.get({
        path: { dashboard_id: dashboard.id },
        urlParams: { views: ["widgets", "widget_results"] }
      })
      assert.deepStrictEqual(read.widget_order, [])
      assert.deepStrictEqual(read.widgets, [])
      assert.deepStrictEqual(read.widget_results, [])
      assert.strictEqual(read.updated_at, dashboard.updated_at)
    }))
})
