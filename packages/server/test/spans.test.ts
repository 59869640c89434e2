import { assert, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import type { SpanCreate } from "@platform-kit/schema"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

const spanKeys = [
  "account_id",
  "application_interaction_id",
  "application_variant_id",
  "created_by",
  "end_timestamp",
  "group_id",
  "id",
  "input",
  "metadata",
  "name",
  "object",
  "output",
  "parent_id",
  "start_timestamp",
  "status",
  "trace_id",
  "type"
]

const countRows = (accountId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT COUNT(*) AS n FROM spans WHERE account_id = ${accountId}`).pipe(
    Effect.map((rows) => Number(rows[0]!.n))
  )

/** A span as the SDK tracer sends it at its start: Python's `isoformat()`, no end. */
const started = (id: string, trace_id: string, start: string, more: Partial<SpanCreate> = {}): SpanCreate => ({
  id,
  trace_id,
  name: "retrieve",
  start_timestamp: start,
  type: "STANDALONE",
  status: "SUCCESS",
  input: { query: "What is Effect?" },
  ...more
})

const ids = (items: ReadonlyArray<{ readonly id: string }>) => items.map((span) => span.id)

layer(TestServerLive)("spans", (it) => {
  it.effect("the SDK tracer's double send through PUT /v5/spans/batch stores one span with the end's fields", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key, client } = yield* provision()
      const id = Crypto.randomUUID()
      const trace = Crypto.randomUUID()
      const start = started(id, trace, "2026-12-07T12:45:14.123456+00:00", { metadata: { step: 1 } })
      // optional fields accept null as "not given"
      const first = yield* request("PUT", "/v5/spans/batch", { key, body: { items: [{ ...start, parent_id: null }] } })
      assert.strictEqual(first.status, 200)
      assert.deepStrictEqual(Object.keys(first.body), ["items", "object"])
      assert.strictEqual(first.body.object, "list")
      assert.deepStrictEqual(Object.keys(first.body.items[0]).sort(), spanKeys)
      assert.strictEqual(first.body.items[0].end_timestamp, null)
      // UTC with a Z, the microseconds kept
      assert.strictEqual(first.body.items[0].start_timestamp, "2026-12-07T12:45:14.123456Z")
      assert.deepStrictEqual(first.body.items[0].created_by, { id: identityId, type: "user", object: "identity" })
      assert.strictEqual(first.body.items[0].account_id, accountId)

      const end: SpanCreate = { ...start, end_timestamp: "2026-12-07T14:45:15.5+02:00", output: { answer: "A library" }, status: "ERROR" }
      const second = yield* client.spans.upsertBatch({ payload: { items: [end] } })
      assert.strictEqual(second.items[0]!.end_timestamp, "2026-12-07T12:45:15.500Z")
      const read = yield* client.spans.get({ path: { span_id: id } })
      assert.deepStrictEqual(read, second.items[0])
      assert.strictEqual(read.status, "ERROR")
      assert.deepStrictEqual(read.output, { answer: "A library" })
      assert.deepStrictEqual(read.input, { query: "What is Effect?" })
      assert.strictEqual(read.parent_id, null)
      assert.strictEqual(yield* countRows(accountId), 1)
      // the replacement is whole: a field the second send leaves out is gone
      const { metadata: _, ...withoutMetadata } = end
      const third = yield* client.spans.upsertBatch({ payload: { items: [withoutMetadata] } })
      assert.strictEqual(third.items[0]!.metadata, null)
      const found = yield* client.spans.search({ urlParams: {}, payload: { trace_ids: [trace] } })
      assert.deepStrictEqual(ids(found.items), [id])
      assert.strictEqual(found.total, 0)
    }))

  it.effect("create: every field, an id made when absent, 409 for an id the account holds; get 404s", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const made = yield* alice.client.spans.create({
        payload: {
          name: "root",
          trace_id: "trace-a",
          start_timestamp: "2026-01-01T00:00:00Z",
          end_timestamp: "2026-01-01T00:00:01.250Z",
          application_interaction_id: "interaction-1",
          application_variant_id: "variant-1",
          group_id: "group-1",
          input: { q: 1 },
          output: { a: 2 },
          metadata: { m: true },
          status: "SUCCESS",
          type: "COMPLETION"
        }
      })
      assert.match(made.id, uuid)
      assert.strictEqual(made.start_timestamp, "2026-01-01T00:00:00.000Z")
      assert.strictEqual(made.application_variant_id, "variant-1")
      assert.strictEqual(made.object, "span")
      const again = yield* request("POST", "/v5/spans", {
        key: alice.key,
        body: { id: made.id, name: "other", trace_id: "t", start_timestamp: "2026-01-01T00:00:00Z" }
      })
      assert.strictEqual(again.status, 409)
      assert.strictEqual(again.body.detail, `A span with the id ${made.id} already exists`)
      assert.strictEqual((yield* alice.client.spans.get({ path: { span_id: made.id } })).name, "root")

      const missing = yield* request("GET", "/v5/spans/no-such-span", { key: alice.key })
      assert.deepStrictEqual([missing.status, missing.body], [404, { detail: "Span no-such-span not found" }])
      const foreign = yield* request("GET", `/v5/spans/${made.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      const foreignPatch = yield* request("PATCH", `/v5/spans/${made.id}`, { key: bob.key, body: { name: "theirs" } })
      assert.strictEqual(foreignPatch.status, 404)
      assert.strictEqual((yield* alice.client.spans.get({ path: { span_id: made.id } })).name, "root")
    }))

  it.effect("ids are per account: another account's PUT of the same id stores its own span and never touches this one", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const id = Crypto.randomUUID()
      yield* alice.client.spans.upsertBatch({ payload: { items: [started(id, "t-alice", "2026-02-01T00:00:00Z")] } })
      const theirs = yield* bob.client.spans.upsertBatch({
        payload: { items: [started(id, "t-bob", "2026-02-02T00:00:00Z", { name: "bob's" })] }
      })
      assert.strictEqual(theirs.items[0]!.account_id, bob.accountId)
      const mine = yield* alice.client.spans.get({ path: { span_id: id } })
      assert.strictEqual(mine.trace_id, "t-alice")
      assert.strictEqual(mine.name, "retrieve")
      const bobSearch = yield* bob.client.spans.search({ urlParams: {}, payload: {} })
      assert.deepStrictEqual(bobSearch.items.map((span) => span.trace_id), ["t-bob"])
      const aliceSearch = yield* alice.client.spans.search({ urlParams: {}, payload: { span_ids: [id] } })
      assert.deepStrictEqual(aliceSearch.items.map((span) => span.trace_id), ["t-alice"])
    }))

  it.effect("PATCH changes only the fields given; an end before the start is a 422 that changes nothing", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const id = Crypto.randomUUID()
      yield* client.spans.create({ payload: started(id, "t", "2026-03-01T10:00:00Z", { metadata: { a: 1 } }) })
      const changed = yield* client.spans.update({
        path: { span_id: id },
        payload: { end_timestamp: "2026-03-01T10:00:02Z", output: { text: "done" }, status: "CANCELED" }
      })
      assert.strictEqual(changed.end_timestamp, "2026-03-01T10:00:02.000Z")
      assert.strictEqual(changed.status, "CANCELED")
      assert.deepStrictEqual(changed.output, { text: "done" })
      assert.deepStrictEqual(changed.metadata, { a: 1 })
      assert.strictEqual(changed.name, "retrieve")
      const early = yield* request("PATCH", `/v5/spans/${id}`, { key, body: { end_timestamp: "2026-03-01T09:00:00Z", name: "x" } })
      assert.strictEqual(early.status, 422)
      assert.deepStrictEqual(issues(early), [{ loc: ["body", "end_timestamp"], type: "value_error" }])
      const wrong = yield* request("PATCH", `/v5/spans/${id}`, { key, body: { status: "DONE", metadata: [] } })
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "metadata"], type: "dict_type" },
        { loc: ["body", "status"], type: "literal_error" }
      ])
      assert.deepStrictEqual(yield* client.spans.get({ path: { span_id: id } }), changed)
    }))

  it.effect("batches: at most 1000 items (422, nothing stored); POST inserts only (409, nothing stored); a repeated id counts once, as its last item", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provision()
      const item = (n: number) => started(`s-${n}`, "t", "2026-04-01T00:00:00Z", { name: `n${n}` })
      const tooMany = yield* request("PUT", "/v5/spans/batch", { key, body: { items: Array.from({ length: 1001 }, (_, n) => item(n)) } })
      assert.strictEqual(tooMany.status, 422)
      assert.deepStrictEqual(issues(tooMany).map((issue: any) => issue.loc), [["body", "items"]])
      const tooManyPost = yield* request("POST", "/v5/spans/batch", { key, body: { items: Array.from({ length: 1001 }, (_, n) => item(n)) } })
      assert.strictEqual(tooManyPost.status, 422)
      const badItem = yield* request("PUT", "/v5/spans/batch", {
        key,
        body: { items: [item(1), { name: "x", trace_id: "t", start_timestamp: "yesterday" }, { ...item(2), end_timestamp: "2026-03-01T00:00:00Z" }] }
      })
      assert.deepStrictEqual(issues(badItem), [
        { loc: ["body", "items", 1, "start_timestamp"], type: "value_error" },
        { loc: ["body", "items", 2, "end_timestamp"], type: "value_error" }
      ])
      assert.strictEqual(yield* countRows(accountId), 0)

      const none = yield* request("PUT", "/v5/spans/batch", { key, body: { items: [] } })
      assert.deepStrictEqual([none.status, none.body], [200, { items: [], object: "list" }])
      const full = yield* client.spans.batch({ payload: { items: Array.from({ length: 1000 }, (_, n) => item(n)) } })
      assert.strictEqual(full.items.length, 1000)
      assert.strictEqual(yield* countRows(accountId), 1000)
      const clash = yield* request("POST", "/v5/spans/batch", { key, body: { items: [item(5000), { ...item(7), name: "changed" }] } })
      assert.strictEqual(clash.status, 409)
      assert.strictEqual(clash.body.detail, "A span with the id s-7 already exists")
      assert.strictEqual(yield* countRows(accountId), 1000)
      assert.strictEqual((yield* client.spans.get({ path: { span_id: "s-7" } })).name, "n7")

      const { id: _, ...withoutId } = item(9002)
      const repeated = yield* client.spans.upsertBatch({
        payload: { items: [{ ...item(1), name: "first" }, item(9001), { ...item(1), name: "last" }, withoutId] }
      })
      assert.deepStrictEqual(repeated.items.map((span) => span.name), ["n9001", "last", "n9002"])
      assert.match(repeated.items[2]!.id, uuid)
      assert.strictEqual((yield* client.spans.get({ path: { span_id: "s-1" } })).name, "last")
      const posted = yield* client.spans.batch({ payload: { items: [item(9100), { ...item(9100), name: "again" }] } })
      assert.deepStrictEqual(posted.items.map((span) => span.name), ["again"])
    }))

  it.effect("search: every filter of the body, AND-ed", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const at = (minute: number) => `2026-05-01T10:${String(minute).padStart(2, "0")}:00Z`
      const spans: Array<SpanCreate> = [
        { ...started("root-1", "tr-1", at(1)), name: "chain", end_timestamp: "2026-05-01T10:01:00.500Z", group_id: "g1", application_variant_id: "v1", metadata: { env: "prod", n: 3, acp_type: "sync" } },
        { ...started("child-1", "tr-1", at(2)), parent_id: "root-1", type: "COMPLETION", end_timestamp: "2026-05-01T10:02:02Z", output: { text: "The CAPITAL of France" } },
        { ...started("root-2", "tr-2", at(3)), name: "chain", status: "ERROR", metadata: { env: "dev", n: 3 }, input: { question: "ünïcode Straße" } },
        { ...started("child-2", "tr-2", at(4)), parent_id: "root-2", type: "KB_RETRIEVAL", end_timestamp: "2026-05-01T10:04:10Z", application_variant_id: "v2" }
      ]
      yield* client.spans.upsertBatch({ payload: { items: spans } })
      yield* client.spanAssessments.create({ payload: { trace_id: "tr-2", span_id: "child-2", assessment_type: "rating", rating: 1 } })
      const search = (payload: Record<string, unknown>) => Effect.map(client.spans.search({ urlParams: {}, payload }), (page) => ids(page.items))
      // newest first by default
      assert.deepStrictEqual(yield* search({}), ["child-2", "root-2", "child-1", "root-1"])
      assert.deepStrictEqual(yield* search({ trace_ids: ["tr-1"] }), ["child-1", "root-1"])
      assert.deepStrictEqual(yield* search({ span_ids: ["root-1", "child-2", "nope"] }), ["child-2", "root-1"])
      assert.deepStrictEqual(yield* search({ excluded_trace_ids: ["tr-1"], excluded_span_ids: ["child-2"] }), ["root-2"])
      assert.deepStrictEqual(yield* search({ names: ["chain"] }), ["root-2", "root-1"])
      assert.deepStrictEqual(yield* search({ statuses: ["ERROR"] }), ["root-2"])
      assert.deepStrictEqual(yield* search({ types: ["COMPLETION", "KB_RETRIEVAL"] }), ["child-2", "child-1"])
      assert.deepStrictEqual(yield* search({ parents_only: true }), ["root-2", "root-1"])
      assert.deepStrictEqual(yield* search({ parents_only: false }), ["child-2", "root-2", "child-1", "root-1"])
      assert.deepStrictEqual(yield* search({ group_id: "g1" }), ["root-1"])
      assert.deepStrictEqual(yield* search({ application_variant_ids: ["v2", "v1"] }), ["child-2", "root-1"])
      // durations: 500 ms, 2 s, none, 10 s; inclusive bounds; a span without an end has no duration
      assert.deepStrictEqual(yield* search({ min_duration_ms: 2000 }), ["child-2", "child-1"])
      assert.deepStrictEqual(yield* search({ max_duration_ms: 2000 }), ["child-1", "root-1"])
      assert.deepStrictEqual(yield* search({ min_duration_ms: 500, max_duration_ms: 500 }), ["root-1"])
      // free text over input and output values, case-insensitive (non-ASCII too); any of the texts
      assert.deepStrictEqual(yield* search({ search_texts: ["capital of"] }), ["child-1"])
      assert.deepStrictEqual(yield* search({ search_texts: ["STRASSE", "straße"] }), ["root-2"])
      assert.deepStrictEqual(yield* search({ search_texts: ["ÜNÏCODE", "france"] }), ["root-2", "child-1"])
      assert.deepStrictEqual(yield* search({ search_texts: ["100%"] }), [])
      assert.deepStrictEqual(yield* search({ extra_metadata: { env: "prod" } }), ["root-1"])
      assert.deepStrictEqual(yield* search({ extra_metadata: { n: 3 } }), ["root-2", "root-1"])
      assert.deepStrictEqual(yield* search({ extra_metadata: { n: 3, env: "dev" } }), ["root-2"])
      assert.deepStrictEqual(yield* search({ extra_metadata: { n: "3" } }), [])
      assert.deepStrictEqual(yield* search({ acp_types: ["sync"] }), ["root-1"])
      assert.deepStrictEqual(yield* search({ assessment_types: ["rating"] }), ["child-2", "root-2"])
      assert.deepStrictEqual(yield* search({ assessment_types: ["comment"] }), [])
      assert.deepStrictEqual(yield* search({ names: ["chain"], statuses: ["SUCCESS"], trace_ids: [] }), ["root-1"])
    }))

  it.effect("search by a name and a status reads the account's (name, status, start) index in its order (SQLite's plan)", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // the statement SpansRepo.search writes for `{names: [n], statuses: ["ERROR"]}`, newest first;
      // PostgreSQL plans by its statistics (a table this small is read whole): SQLite only
      const plan = yield* sql.onDialectOrElse({
        sqlite: () =>
          sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT doc, form FROM spans WHERE account_id IN (${"a"}) AND name IN (${"llm.completion"}) AND status IN (${"ERROR"}) ORDER BY start_ms DESC, id DESC LIMIT ${51}`,
        orElse: () => Effect.succeed(undefined)
      })
      if (plan === undefined) return
      // one SEARCH on the index, every filter in its key, and no sort (`USE TEMP B-TREE FOR ORDER BY`)
      assert.deepStrictEqual(plan.map((row) => row.detail), [
        "SEARCH spans USING INDEX spans_account_name_status (account_id=? AND name=? AND status=?)"
      ])
    }))

  it.effect("search: keyset cursors both ways, sort_order, the [from_ts, to_ts] window on the start", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const items = Array.from({ length: 7 }, (_, n) => started(`p${n}`, "tp", `2026-06-01T00:00:0${n}Z`))
      yield* client.spans.upsertBatch({ payload: { items } })
      const page = (urlParams: Record<string, unknown>) => client.spans.search({ urlParams, payload: { trace_ids: ["tp"] } })
      const first = yield* page({ limit: 3 })
      assert.deepStrictEqual([ids(first.items), first.has_more, first.total, first.limit], [["p6", "p5", "p4"], true, 0, 3])
      const second = yield* page({ limit: 3, starting_after: "p4" })
      assert.deepStrictEqual([ids(second.items), second.has_more], [["p3", "p2", "p1"], true])
      const last = yield* page({ limit: 3, starting_after: "p1" })
      assert.deepStrictEqual([ids(last.items), last.has_more], [["p0"], false])
      const back = yield* page({ limit: 2, ending_before: "p3" })
      assert.deepStrictEqual([ids(back.items), back.has_more], [["p5", "p4"], true])
      const asc = yield* page({ limit: 4, sort_order: "asc", starting_after: "p1" })
      assert.deepStrictEqual(ids(asc.items), ["p2", "p3", "p4", "p5"])
      const window = yield* page({ from_ts: "2026-06-01T00:00:02Z", to_ts: "2026-06-01T02:00:04+02:00" })
      assert.deepStrictEqual(ids(window.items), ["p4", "p3", "p2"])
      const same = yield* page({ from_ts: "2026-06-01T00:00:05Z", to_ts: "2026-06-01T00:00:05Z" })
      assert.deepStrictEqual(ids(same.items), ["p5"])

      const reversed = yield* request("POST", "/v5/spans/search?from_ts=2026-06-02T00:00:00Z&to_ts=2026-06-01T00:00:00Z", { key, body: {} })
      assert.strictEqual(reversed.status, 422)
      assert.deepStrictEqual(issues(reversed), [{ loc: ["query", "from_ts"], type: "value_error" }])
      const unknownCursor = yield* request("POST", "/v5/spans/search?starting_after=nope", { key, body: {} })
      assert.deepStrictEqual(issues(unknownCursor), [{ loc: ["query", "starting_after"], type: "value_error" }])
      const badQuery = yield* request("POST", "/v5/spans/search?limit=0&sort_order=up&sort_by=name&from_ts=soon", { key, body: {} })
      assert.deepStrictEqual(issues(badQuery).map((issue: any) => issue.loc[1]).sort(), ["from_ts", "limit", "sort_by", "sort_order"])
      const tooManyIds = yield* request("POST", "/v5/spans/search", {
        key,
        body: { trace_ids: Array.from({ length: 5000 }, (_, n) => `t${n}`), excluded_span_ids: Array.from({ length: 5001 }, (_, n) => `s${n}`) }
      })
      assert.strictEqual(tooManyIds.status, 422)
      assert.deepStrictEqual(issues(tooManyIds), [{ loc: ["body", "span_ids"], type: "value_error" }])
      const tenThousand = yield* request("POST", "/v5/spans/search", {
        key,
        body: { trace_ids: ["tp", ...Array.from({ length: 9999 }, (_, n) => `t${n}`)] }
      })
      assert.strictEqual(tenThousand.status, 200)
      assert.strictEqual(tenThousand.body.items.length, 7)
      const badBody = yield* request("POST", "/v5/spans/search", { key, body: { statuses: ["DONE"], min_duration_ms: -1, names: "x" } })
      assert.deepStrictEqual(issues(badBody).map((issue: any) => issue.loc.slice(1, 2)[0]).sort(), ["min_duration_ms", "names", "statuses"])
    }))

  it.effect("several accounts: the selected one is written and searched; none selected is a 422 for a write", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const { Accounts } = yield* Effect.promise(() => import("../src/auth/Accounts.js"))
      const accounts = yield* Accounts
      yield* accounts.addMember(alice.identityId, bob.accountId)
      const span = started("multi", "tm", "2026-07-01T00:00:00Z")
      const unnamed = yield* request("PUT", "/v5/spans/batch", { key: alice.key, body: { items: [span] } })
      assert.strictEqual(unnamed.status, 422)
      assert.deepStrictEqual(issues(unnamed), [{ loc: ["header", "x-selected-account-id"], type: "missing" }])
      const chosen = yield* request("PUT", "/v5/spans/batch", {
        key: alice.key,
        headers: { "x-selected-account-id": bob.accountId },
        body: { items: [span] }
      })
      assert.strictEqual(chosen.body.items[0].account_id, bob.accountId)
      const seenByBob = yield* bob.client.spans.get({ path: { span_id: "multi" } })
      assert.strictEqual(seenByBob.account_id, bob.accountId)
      const aliceOnly = yield* request("POST", "/v5/spans/search", {
        key: alice.key,
        headers: { "x-selected-account-id": alice.accountId },
        body: {}
      })
      assert.deepStrictEqual(aliceOnly.body.items, [])
      assert.strictEqual(yield* countRows(alice.accountId), 0)
    }))
})
