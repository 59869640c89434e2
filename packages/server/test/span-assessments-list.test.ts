import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { issues, provision, request, TestServerLive } from "../src/testing.js"

type Client = Effect.Effect.Success<ReturnType<typeof provision>>["client"]

/** Stores span `span_id` in trace `trace_id` (an assessment needs its span). */
const storeSpan = (client: Client, trace_id: string, span_id: string) =>
  client.spans.upsertBatch({ payload: { items: [{ id: span_id, trace_id, name: "span", start_timestamp: "2026-01-01T00:00:00.000Z" }] } })

/**
 * Creates an assessment of `type` with a value, one millisecond after the previous one, of span
 * `span_id` stored in trace `trace_id` first (a span moved to another trace keeps the assessments
 * made while it was in the first: a list filters the assessments' own ids).
 */
const assess = (client: Client, trace_id: string, span_id: string, type: "comment" | "rating" | "approval") =>
  Effect.gen(function*() {
    yield* storeSpan(client, trace_id, span_id)
    yield* TestClock.adjust("1 millis")
    const value = type === "comment"
      ? { comment: `${trace_id}/${span_id}` }
      : type === "rating"
      ? { rating: 3 }
      : { approval: "approved" as const }
    return yield* client.spanAssessments.create({ payload: { trace_id, span_id, assessment_type: type, ...value } })
  })

layer(TestServerLive)("span assessments list", (it) => {
  it.effect("at least one of span_id and trace_id: 422 at query.span_id otherwise", () =>
    Effect.gen(function*() {
      const { key, accountId } = yield* provision()
      for (const query of ["", "?assessment_type=comment", `?account_id=${accountId}`, "?limit=5"]) {
        const response = yield* request("GET", `/v5/span-assessments${query}`, { key })
        assert.strictEqual(response.status, 422)
        assert.deepStrictEqual(issues(response), [{ loc: ["query", "span_id"], type: "value_error" }])
        assert.strictEqual(response.body.detail[0].msg, "span_id or trace_id is required")
      }
      const onlySpan = yield* request("GET", "/v5/span-assessments?span_id=s", { key })
      assert.strictEqual(onlySpan.status, 200)
      const onlyTrace = yield* request("GET", "/v5/span-assessments?trace_id=t", { key })
      assert.strictEqual(onlyTrace.status, 200)
      assert.deepStrictEqual(onlyTrace.body, { items: [], object: "list" })
    }))

  it.effect("query validation: exact loc and type", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const wrong = yield* request("GET", "/v5/span-assessments?span_id=&trace_id=&assessment_type=thumbs&limit=0&sort_order=up", {
        key
      })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["query", "span_id"], type: "string_too_short" },
        { loc: ["query", "trace_id"], type: "string_too_short" },
        { loc: ["query", "assessment_type"], type: "literal_error" },
        { loc: ["query", "limit"], type: "range_error" },
        { loc: ["query", "sort_order"], type: "literal_error" }
      ])
      const limit = yield* request("GET", "/v5/span-assessments?span_id=s&limit=abc", { key })
      assert.deepStrictEqual(issues(limit), [{ loc: ["query", "limit"], type: "number_parsing" }])
      const tooMany = yield* request("GET", "/v5/span-assessments?span_id=s&limit=10001", { key })
      assert.deepStrictEqual(issues(tooMany), [{ loc: ["query", "limit"], type: "range_error" }])
    }))

  it.effect("filters by span_id, trace_id (both AND-ed) and assessment_type, newest first (sort_order=asc: oldest)", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const a = yield* assess(client, "t1", "s1", "comment")
      const b = yield* assess(client, "t1", "s2", "rating")
      const c = yield* assess(client, "t1", "s1", "rating")
      const d = yield* assess(client, "t2", "s1", "approval")
      const e = yield* assess(client, "t2", "s3", "comment")
      const ids = (items: ReadonlyArray<{ readonly assessment_id: string }>) => items.map((x) => x.assessment_id)

      const bySpan = yield* client.spanAssessments.list({ urlParams: { span_id: "s1" } })
      assert.deepStrictEqual(ids(bySpan.items), [d, c, a].map((x) => x.assessment_id))
      assert.deepStrictEqual(bySpan.items[2], a)
      const byTrace = yield* client.spanAssessments.list({ urlParams: { trace_id: "t1" } })
      assert.deepStrictEqual(ids(byTrace.items), [c, b, a].map((x) => x.assessment_id))
      const oldestFirst = yield* client.spanAssessments.list({ urlParams: { trace_id: "t1", sort_order: "asc" } })
      assert.deepStrictEqual(ids(oldestFirst.items), [a, b, c].map((x) => x.assessment_id))
      const newestFirst = yield* request("GET", "/v5/span-assessments?trace_id=t1&sort_order=desc", { key })
      assert.deepStrictEqual(ids(newestFirst.body.items), [c, b, a].map((x) => x.assessment_id))
      const both = yield* client.spanAssessments.list({ urlParams: { trace_id: "t2", span_id: "s1" } })
      assert.deepStrictEqual(ids(both.items), [d.assessment_id])
      const typed = yield* client.spanAssessments.list({ urlParams: { trace_id: "t1", assessment_type: "rating" } })
      assert.deepStrictEqual(ids(typed.items), [c, b].map((x) => x.assessment_id))
      const comments = yield* client.spanAssessments.list({ urlParams: { trace_id: "t2", assessment_type: "comment" } })
      assert.deepStrictEqual(ids(comments.items), [e.assessment_id])
      const none = yield* client.spanAssessments.list({ urlParams: { span_id: "s1", assessment_type: "rubric" } })
      assert.deepStrictEqual(none.items, [])
      const unknown = yield* client.spanAssessments.list({ urlParams: { span_id: "nope" } })
      assert.deepStrictEqual(unknown, { items: [], object: "list" })

      // limit keeps the first matches of the order: the newest, or with asc the oldest
      const limited = yield* client.spanAssessments.list({ urlParams: { span_id: "s1", limit: 2 } })
      assert.deepStrictEqual(ids(limited.items), [d, c].map((x) => x.assessment_id))
      const limitedAsc = yield* client.spanAssessments.list({ urlParams: { span_id: "s1", limit: 2, sort_order: "asc" } })
      assert.deepStrictEqual(ids(limitedAsc.items), [a, c].map((x) => x.assessment_id))
    }))

  it.effect("only the caller's accounts are listed; account_id narrows (another account: 403)", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const accounts = yield* Accounts
      const mine = yield* assess(alice.client, "shared-trace", "shared-span", "comment")
      const theirs = yield* assess(bob.client, "shared-trace", "shared-span", "comment")

      const aliceList = yield* alice.client.spanAssessments.list({ urlParams: { span_id: "shared-span" } })
      assert.deepStrictEqual(aliceList.items, [mine])
      const forbidden = yield* request("GET", `/v5/span-assessments?span_id=shared-span&account_id=${bob.accountId}`, {
        key: alice.key
      })
      assert.strictEqual(forbidden.status, 403)

      // a member of both accounts sees both, or one with account_id / x-selected-account-id
      yield* accounts.addMember(alice.identityId, bob.accountId)
      const all = yield* alice.client.spanAssessments.list({ urlParams: { trace_id: "shared-trace" } })
      assert.deepStrictEqual(all.items.map((x) => x.assessment_id), [theirs.assessment_id, mine.assessment_id])
      const narrowed = yield* alice.client.spanAssessments.list({
        urlParams: { trace_id: "shared-trace", account_id: bob.accountId }
      })
      assert.deepStrictEqual(narrowed.items, [theirs])
      const selected = yield* request("GET", "/v5/span-assessments?trace_id=shared-trace", {
        key: alice.key,
        headers: { "x-selected-account-id": alice.accountId }
      })
      assert.deepStrictEqual(selected.body.items, [mine])

      // with two accounts, a create must name one (or select it)
      const unnamed = yield* request("POST", "/v5/span-assessments", {
        key: alice.key,
        body: { trace_id: "x", span_id: "y", assessment_type: "rating", rating: 1 }
      })
      assert.strictEqual(unnamed.status, 422)
      assert.deepStrictEqual(issues(unnamed), [{ loc: ["body", "account_id"], type: "missing" }])
      yield* storeSpan(bob.client, "x", "y")
      const chosen = yield* request("POST", "/v5/span-assessments", {
        key: alice.key,
        headers: { "x-selected-account-id": bob.accountId },
        body: { trace_id: "x", span_id: "y", assessment_type: "rating", rating: 1 }
      })
      assert.strictEqual(chosen.status, 200)
      assert.strictEqual(chosen.body.account_id, bob.accountId)
      const listed = yield* alice.client.spanAssessments.list({ urlParams: { span_id: "y" } })
      assert.deepStrictEqual(listed.items.map((x) => x.assessment_id), [chosen.body.assessment_id])
    }))
})
