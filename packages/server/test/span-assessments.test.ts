import { assert, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive, uuidPattern as uuid, isoPattern as iso } from "../src/testing.js"

const assessmentKeys = [
  "account_id",
  "approval",
  "assessment_id",
  "assessment_type",
  "comment",
  "created_at",
  "created_by",
  "metadata",
  "object",
  "overwrite",
  "rating",
  "rubric",
  "span_id",
  "trace_id",
  "updated_at"
]

/**
 * A new account holding the spans its assessments name: `span-1` of `trace-1` and `s` of `t`
 * (an assessment needs a stored span).
 */
const provisionWithSpans = () =>
  Effect.gen(function*() {
    const made = yield* provision()
    const start_timestamp = "2026-01-01T00:00:00.000Z"
    yield* made.client.spans.upsertBatch({
      payload: {
        items: [
          { id: "span-1", trace_id: "trace-1", name: "span", start_timestamp },
          { id: "s", trace_id: "t", name: "span", start_timestamp }
        ]
      }
    })
    return made
  })

const countRows = (accountId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number }>`SELECT COUNT(*) AS n FROM span_assessments WHERE account_id = ${accountId}`
  ).pipe(Effect.map((rows) => Number(rows[0]!.n)))

layer(TestServerLive)("span assessments", (it) => {
  it.effect("create answers every field of a span assessment; get and list read it back", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key, client } = yield* provisionWithSpans()
      const response = yield* request("POST", "/v5/span-assessments", {
        key,
        body: {
          trace_id: "trace-1",
          span_id: "span-1",
          assessment_type: "comment",
          comment: "the answer cites the wrong source",
          metadata: { reviewer: "qa" },
          account_id: accountId,
          created_by: "someone-else",
          ignored_field: true
        }
      })
      assert.strictEqual(response.status, 200)
      const created = response.body
      assert.deepStrictEqual(Object.keys(created).sort(), assessmentKeys)
      assert.match(created.assessment_id, uuid)
      assert.strictEqual(created.trace_id, "trace-1")
      assert.strictEqual(created.span_id, "span-1")
      assert.strictEqual(created.created_by, identityId)
      assert.strictEqual(created.assessment_type, "comment")
      assert.strictEqual(created.object, "span.assessment")
      assert.strictEqual(created.comment, "the answer cites the wrong source")
      assert.strictEqual(created.rating, null)
      assert.strictEqual(created.approval, null)
      assert.strictEqual(created.rubric, null)
      assert.deepStrictEqual(created.metadata, { reviewer: "qa" })
      assert.strictEqual(created.overwrite, null)
      assert.strictEqual(created.account_id, accountId)
      assert.match(created.created_at, iso)
      assert.strictEqual(created.updated_at, created.created_at)

      const read = yield* request("GET", `/v5/span-assessments/${created.assessment_id}`, { key })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.body, created)
      const list = yield* request("GET", "/v5/span-assessments?span_id=span-1", { key })
      assert.strictEqual(list.status, 200)
      assert.deepStrictEqual(list.body, { items: [created], object: "list" })

      const typed = yield* client.spanAssessments.get({ path: { assessment_id: created.assessment_id } })
      assert.strictEqual(typed.comment, created.comment)
      const typedList = yield* client.spanAssessments.list({ urlParams: { trace_id: "trace-1" } })
      assert.deepStrictEqual(typedList.items.map((a) => a.assessment_id), [created.assessment_id])
      assert.strictEqual(typedList.object, "list")
    }))

  it.effect("each type is created with its own value field, through the typed client", () =>
    Effect.gen(function*() {
      const { client } = yield* provisionWithSpans()
      const base = { trace_id: "t", span_id: "s" }
      const rating = yield* client.spanAssessments.create({ payload: { ...base, assessment_type: "rating", rating: 4 } })
      assert.strictEqual(rating.rating, 4)
      assert.strictEqual(rating.comment, null)
      const approval = yield* client.spanAssessments.create({
        payload: { ...base, assessment_type: "approval", approval: "approved" }
      })
      assert.strictEqual(approval.approval, "approved")
      const rejected = yield* client.spanAssessments.create({
        payload: { ...base, assessment_type: "approval", approval: "rejected" }
      })
      assert.strictEqual(rejected.approval, "rejected")
      const rubric = yield* client.spanAssessments.create({
        payload: { ...base, assessment_type: "rubric", rubric: { accuracy: 3, tone: "ok" } }
      })
      assert.deepStrictEqual(rubric.rubric, { accuracy: 3, tone: "ok" })
      const metadata = yield* client.spanAssessments.create({
        payload: { ...base, assessment_type: "metadata", metadata: { source: "import" } }
      })
      assert.deepStrictEqual(metadata.metadata, { source: "import" })
      const overwrite = yield* client.spanAssessments.create({
        payload: { ...base, assessment_type: "overwrite", overwrite: { output: "corrected" }, comment: "why" }
      })
      assert.deepStrictEqual(overwrite.overwrite, { output: "corrected" })
      assert.strictEqual(overwrite.comment, "why")
      const comment = yield* client.spanAssessments.create({ payload: { ...base, assessment_type: "comment", comment: "" } })
      assert.strictEqual(comment.comment, "")
    }))

  it.effect("create validation: 422 with exact loc and type, and nothing written", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* provisionWithSpans()
      const missing = yield* request("POST", "/v5/span-assessments", { key, body: { comment: "c" } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "trace_id"], type: "missing" },
        { loc: ["body", "span_id"], type: "missing" },
        { loc: ["body", "assessment_type"], type: "missing" }
      ])

      const wrong = yield* request("POST", "/v5/span-assessments", {
        key,
        body: {
          trace_id: "",
          span_id: 7,
          assessment_type: "thumbs",
          comment: 1,
          rating: 4.5,
          approval: "maybe",
          rubric: "x",
          metadata: [],
          overwrite: 3
        }
      })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "trace_id"], type: "string_too_short" },
        { loc: ["body", "span_id"], type: "string_type" },
        { loc: ["body", "assessment_type"], type: "literal_error" },
        { loc: ["body", "comment"], type: "string_type" },
        { loc: ["body", "rating"], type: "int_type" },
        { loc: ["body", "approval"], type: "literal_error" },
        { loc: ["body", "rubric"], type: "dict_type" },
        { loc: ["body", "metadata"], type: "dict_type" },
        { loc: ["body", "overwrite"], type: "dict_type" }
      ])

      // the value field of the type is required (absent or null), whatever else is given
      const base = { trace_id: "t", span_id: "s" }
      const cases = [
        { body: { ...base, assessment_type: "comment", rating: 3 }, field: "comment" },
        { body: { ...base, assessment_type: "rating", comment: "c" }, field: "rating" },
        { body: { ...base, assessment_type: "approval", approval: null }, field: "approval" },
        { body: { ...base, assessment_type: "rubric" }, field: "rubric" },
        { body: { ...base, assessment_type: "metadata" }, field: "metadata" },
        { body: { ...base, assessment_type: "overwrite", metadata: { a: 1 } }, field: "overwrite" }
      ]
      for (const { body, field } of cases) {
        const response = yield* request("POST", "/v5/span-assessments", { key, body })
        assert.strictEqual(response.status, 422)
        assert.deepStrictEqual(issues(response), [{ loc: ["body", field], type: "value_error" }])
        assert.strictEqual(response.body.detail[0].msg, `${field} is required for a ${body.assessment_type} assessment`)
      }

      const malformed = yield* request("POST", "/v5/span-assessments", { key, body: "{\"trace_id\":" })
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      assert.strictEqual(yield* countRows(accountId), 0)
      const list = yield* request("GET", "/v5/span-assessments?trace_id=t", { key })
      assert.deepStrictEqual(list.body.items, [])
    }))

  it.effect("create: 404 unless the account stores the span in that trace, nothing written", () =>
    Effect.gen(function*() {
      const alice = yield* provisionWithSpans()
      const bob = yield* provisionWithSpans()
      yield* bob.client.spans.upsertBatch({
        payload: { items: [{ id: "bobs-span", trace_id: "t", name: "span", start_timestamp: "2026-01-01T00:00:00.000Z" }] }
      })
      const cases = [
        { trace_id: "t", span_id: "no-such-span" },
        { trace_id: "trace-1", span_id: "s" },
        { trace_id: "t", span_id: "bobs-span" }
      ]
      for (const ids of cases) {
        const response = yield* request("POST", "/v5/span-assessments", {
          key: alice.key,
          body: { ...ids, assessment_type: "comment", comment: "c" }
        })
        assert.strictEqual(response.status, 404)
        assert.deepStrictEqual(response.body, { detail: `Span ${ids.span_id} of trace ${ids.trace_id} not found` })
      }
      // the shape is checked first
      const shape = yield* request("POST", "/v5/span-assessments", {
        key: alice.key,
        body: { trace_id: "t", span_id: "no-such-span", assessment_type: "comment" }
      })
      assert.strictEqual(shape.status, 422)
      assert.strictEqual(yield* countRows(alice.accountId), 0)
    }))

  it.effect("403 for an account_id the caller is not in (after the shape checks), nothing written", () =>
    Effect.gen(function*() {
      const alice = yield* provisionWithSpans()
      const bob = yield* provisionWithSpans()
      const body = { trace_id: "t", span_id: "s", assessment_type: "rating", rating: 1, account_id: alice.accountId }
      const forbidden = yield* request("POST", "/v5/span-assessments", { key: bob.key, body })
      assert.strictEqual(forbidden.status, 403)
      assert.isString(forbidden.body.detail)
      const shapeFirst = yield* request("POST", "/v5/span-assessments", { key: bob.key, body: { ...body, rating: "x" } })
      assert.strictEqual(shapeFirst.status, 422)
      assert.strictEqual(yield* countRows(alice.accountId), 0)
      assert.strictEqual(yield* countRows(bob.accountId), 0)
    }))

  it.effect("401 without a key (or with an unknown one) on every endpoint, and nothing written", () =>
    Effect.gen(function*() {
      const { accountId, client } = yield* provisionWithSpans()
      const created = yield* client.spanAssessments.create({
        payload: { trace_id: "t", span_id: "s", assessment_type: "comment", comment: "c" }
      })
      const path = `/v5/span-assessments/${created.assessment_id}`
      const calls = [
        request("POST", "/v5/span-assessments", { body: { trace_id: "t", span_id: "s", assessment_type: "comment", comment: "x" } }),
        request("GET", "/v5/span-assessments?span_id=s"),
        request("GET", path),
        request("PATCH", path, { body: { comment: "changed" } }),
        request("DELETE", path),
        request("GET", "/v5/span-assessments?span_id=s", { key: "pk_unknown" })
      ]
      for (const call of calls) {
        const response = yield* call
        assert.strictEqual(response.status, 401)
        assert.isString(response.body.detail)
      }
      const unchanged = yield* client.spanAssessments.get({ path: { assessment_id: created.assessment_id } })
      assert.deepStrictEqual(unchanged, created)
      assert.strictEqual(yield* countRows(accountId), 1)
    }))

  it.effect("get: 404 for a missing id (any shape) and for another account's assessment", () =>
    Effect.gen(function*() {
      const alice = yield* provisionWithSpans()
      const bob = yield* provisionWithSpans()
      const created = yield* alice.client.spanAssessments.create({
        payload: { trace_id: "t", span_id: "s", assessment_type: "rating", rating: 2 }
      })
      const missing = yield* Effect.flip(alice.client.spanAssessments.get({ path: { assessment_id: "no-such-id" } }))
      assert.strictEqual(missing._tag, "NotFound")
      const uuidShaped = yield* request("GET", "/v5/span-assessments/00000000-0000-4000-8000-000000000000", {
        key: alice.key
      })
      assert.strictEqual(uuidShaped.status, 404)
      const foreign = yield* request("GET", `/v5/span-assessments/${created.assessment_id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Span assessment ${created.assessment_id} not found` })
    }))

  it.effect("PATCH changes only the fields given, moves updated_at, and answers the assessment", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provisionWithSpans()
      const created = yield* client.spanAssessments.create({
        payload: {
          trace_id: "t",
          span_id: "s",
          assessment_type: "rating",
          rating: 2,
          comment: "meh",
          metadata: { a: 1 }
        }
      })
      yield* TestClock.adjust("5 millis")
      const response = yield* request("PATCH", `/v5/span-assessments/${created.assessment_id}`, {
        key,
        body: { rating: 5, rubric: { clarity: "high" }, comment: null, assessment_type: "comment", trace_id: "other" }
      })
      assert.strictEqual(response.status, 200)
      const updated = response.body
      assert.deepStrictEqual(updated, {
        ...created,
        rating: 5,
        rubric: { clarity: "high" },
        comment: null,
        updated_at: new Date(Date.parse(created.created_at) + 5).toISOString()
      })
      const read = yield* client.spanAssessments.get({ path: { assessment_id: created.assessment_id } })
      assert.deepStrictEqual(read.rating, 5)
      assert.deepStrictEqual(read.comment, null)
      assert.deepStrictEqual(read.metadata, { a: 1 })
      assert.strictEqual(read.assessment_type, "rating")
      assert.strictEqual(read.trace_id, "t")
      assert.strictEqual(read.updated_at, updated.updated_at)

      // an empty body changes nothing but updated_at
      yield* TestClock.adjust("1 millis")
      const touched = yield* client.spanAssessments.update({ path: { assessment_id: created.assessment_id }, payload: {} })
      assert.deepStrictEqual({ ...touched, updated_at: updated.updated_at }, { ...read })
      assert.notStrictEqual(touched.updated_at, updated.updated_at)
    }))

  it.effect("PATCH validation: wrong types, and clearing the value of the assessment's own type, change nothing", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provisionWithSpans()
      const created = yield* client.spanAssessments.create({
        payload: { trace_id: "t", span_id: "s", assessment_type: "approval", approval: "approved" }
      })
      const path = `/v5/span-assessments/${created.assessment_id}`
      const wrong = yield* request("PATCH", path, {
        key,
        body: { comment: 5, rating: "high", approval: "ok", rubric: [], metadata: "m", overwrite: true }
      })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "comment"], type: "string_type" },
        { loc: ["body", "rating"], type: "number_type" },
        { loc: ["body", "approval"], type: "literal_error" },
        { loc: ["body", "rubric"], type: "dict_type" },
        { loc: ["body", "metadata"], type: "dict_type" },
        { loc: ["body", "overwrite"], type: "dict_type" }
      ])
      const fraction = yield* request("PATCH", path, { key, body: { rating: 1.5 } })
      assert.deepStrictEqual(issues(fraction), [{ loc: ["body", "rating"], type: "int_type" }])
      const cleared = yield* request("PATCH", path, { key, body: { approval: null, comment: "c" } })
      assert.strictEqual(cleared.status, 422)
      assert.deepStrictEqual(issues(cleared), [{ loc: ["body", "approval"], type: "value_error" }])
      const malformed = yield* request("PATCH", path, { key, body: "{" })
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      const read = yield* client.spanAssessments.get({ path: { assessment_id: created.assessment_id } })
      assert.deepStrictEqual(read, created)
      // changing the value of the own type is fine
      const changed = yield* client.spanAssessments.update({
        path: { assessment_id: created.assessment_id },
        payload: { approval: "rejected" }
      })
      assert.strictEqual(changed.approval, "rejected")
    }))

  it.effect("PATCH: 404 for a missing id and for another account's assessment, which stays unchanged", () =>
    Effect.gen(function*() {
      const alice = yield* provisionWithSpans()
      const bob = yield* provisionWithSpans()
      const created = yield* alice.client.spanAssessments.create({
        payload: { trace_id: "t", span_id: "s", assessment_type: "comment", comment: "mine" }
      })
      const missing = yield* Effect.flip(
        alice.client.spanAssessments.update({ path: { assessment_id: "nope" }, payload: { comment: "x" } })
      )
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("PATCH", `/v5/span-assessments/${created.assessment_id}`, {
        key: bob.key,
        body: { comment: "theirs" }
      })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Span assessment ${created.assessment_id} not found` })
      const read = yield* alice.client.spanAssessments.get({ path: { assessment_id: created.assessment_id } })
      assert.deepStrictEqual(read, created)
    }))

  it.effect("DELETE removes the assessment for good and answers it as it was", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provisionWithSpans()
      const kept = yield* client.spanAssessments.create({
        payload: { trace_id: "t", span_id: "s", assessment_type: "comment", comment: "keep" }
      })
      const created = yield* client.spanAssessments.create({
        payload: { trace_id: "t", span_id: "s", assessment_type: "rating", rating: 1 }
      })
      const response = yield* request("DELETE", `/v5/span-assessments/${created.assessment_id}`, { key })
      assert.strictEqual(response.status, 200)
      assert.deepStrictEqual(response.body, Object.fromEntries(Object.entries(created)))
      assert.deepStrictEqual(Object.keys(response.body).sort(), assessmentKeys)

      const gone = yield* request("GET", `/v5/span-assessments/${created.assessment_id}`, { key })
      assert.strictEqual(gone.status, 404)
      const again = yield* request("DELETE", `/v5/span-assessments/${created.assessment_id}`, { key })
      assert.strictEqual(again.status, 404)
      const patch = yield* request("PATCH", `/v5/span-assessments/${created.assessment_id}`, { key, body: { rating: 2 } })
      assert.strictEqual(patch.status, 404)
      const list = yield* client.spanAssessments.list({ urlParams: { span_id: "s" } })
      assert.deepStrictEqual(list.items.map((a) => a.assessment_id), [kept.assessment_id])
      assert.strictEqual(yield* countRows(accountId), 1)
    }))

  it.effect("DELETE: 404 for a missing id and for another account's assessment, which is not deleted", () =>
    Effect.gen(function*() {
      const alice = yield* provisionWithSpans()
      const bob = yield* provisionWithSpans()
      const created = yield* alice.client.spanAssessments.create({
        payload: { trace_id: "t", span_id: "s", assessment_type: "comment", comment: "mine" }
      })
      const missing = yield* Effect.flip(alice.client.spanAssessments.delete({ path: { assessment_id: "nope" } }))
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("DELETE", `/v5/span-assessments/${created.assessment_id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Span assessment ${created.assessment_id} not found` })
      const read = yield* alice.client.spanAssessments.get({ path: { assessment_id: created.assessment_id } })
      assert.deepStrictEqual(read, created)
      assert.strictEqual(yield* countRows(alice.accountId), 1)
    }))
})
