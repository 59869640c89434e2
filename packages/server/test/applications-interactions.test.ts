import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

const interactions = (spec: string) => `/v4/applications/${spec}/interactions`

/** How many interactions the caller sees for `spec`, read back through the metrics. */
const requests = (key: string, spec: string, query = "") =>
  Effect.map(
    request("GET", `/v4/applications/${spec}/metrics/scalar/total_requests${query}`, { key }),
    (response) => response.body.value as number
  )

layer(TestServerLive)("application interactions", (it) => {
  it.effect("record answers the stored interaction with audit fields from the key; metrics read it back", () =>
    Effect.gen(function*() {
      const { accountId, identityId, client, key } = yield* provision()
      const recorded = yield* client.applications.recordInteraction({
        path: { application_spec_id: "spec-1" },
        payload: {
          application_variant_id: "variant-a",
          start_timestamp: "2026-03-01T12:00:00.250Z",
          duration_ms: 1234,
          input_tokens: 100,
          output_tokens: 42,
          error: "model timed out",
          user_id: "end-user-7",
          node_latencies: [{ node_id: "retrieve", duration_ms: 200 }, { node_id: "llm", duration_ms: 1000 }],
          feedback: "thumbs_down",
          account_id: accountId
        }
      })
      assert.match(recorded.id, uuid)
      assert.strictEqual(recorded.application_spec_id, "spec-1")
      assert.strictEqual(recorded.application_variant_id, "variant-a")
      assert.strictEqual(recorded.start_timestamp, "2026-03-01T12:00:00.250Z")
      assert.strictEqual(recorded.duration_ms, 1234)
      assert.strictEqual(recorded.input_tokens, 100)
      assert.strictEqual(recorded.output_tokens, 42)
      assert.strictEqual(recorded.error, "model timed out")
      assert.strictEqual(recorded.user_id, "end-user-7")
      assert.deepStrictEqual(recorded.node_latencies.map((n) => ({ ...n })), [
        { node_id: "retrieve", duration_ms: 200 },
        { node_id: "llm", duration_ms: 1000 }
      ])
      assert.strictEqual(recorded.feedback, "thumbs_down")
      assert.strictEqual(recorded.account_id, accountId)
      assert.strictEqual(recorded.created_by_user_id, identityId)
      assert.strictEqual(recorded.created_by_identity_type, "user")
      assert.strictEqual(recorded.created_at, "1970-01-01T00:00:00.000Z")

      const read = (metric: string) =>
        Effect.map(
          request("GET", `/v4/applications/spec-1/metrics/scalar/${metric}`, { key }),
          (response) => response.body
        )
      assert.deepStrictEqual(yield* read("total_requests"), { value: 1, unit: "count" })
      assert.deepStrictEqual(yield* read("total_errors"), { value: 1, unit: "count" })
      assert.deepStrictEqual(yield* read("total_tokens"), { value: 142, unit: "tokens" })
      assert.deepStrictEqual(yield* read("average_latency"), { value: 1234, unit: "ms" })
      assert.deepStrictEqual(yield* read("average_users"), { value: 1, unit: "users" })
      assert.deepStrictEqual(yield* read("feedback"), { value: 0, unit: "ratio" })
      assert.deepStrictEqual(yield* read("execution_average_latency_per_node"), { value: 1000, unit: "ms" })
    }))

  it.effect("an interaction is read back by id and listed per spec, newest first; other specs and accounts are 404", () =>
    Effect.gen(function*() {
      const { accountId, client, key } = yield* provision()
      const record = (spec: string, variant: string) =>
        client.applications.recordInteraction({
          path: { application_spec_id: spec },
          payload: {
            application_variant_id: variant,
            start_timestamp: "2026-03-01T12:00:00.000Z",
            duration_ms: 10,
            input_tokens: 1,
            output_tokens: 2,
            account_id: accountId
          }
        })
      const first = yield* record("spec-r", "a")
      yield* TestClock.adjust("1 millis")
      const second = yield* record("spec-r", "b")
      yield* record("spec-other", "c")

      const read = yield* client.applications.getInteraction({
        path: { application_spec_id: "spec-r", interaction_id: first.id }
      })
      assert.deepStrictEqual(read, first)
      const page = yield* client.applications.listInteractions({ path: { application_spec_id: "spec-r" }, urlParams: {} })
      assert.deepStrictEqual(page.items.map((i) => i.id), [second.id, first.id])
      assert.strictEqual(page.total_item_count, 2)
      const small = yield* client.applications.listInteractions({
        path: { application_spec_id: "spec-r" },
        urlParams: { page: 2, limit: 1 }
      })
      assert.deepStrictEqual(small.items.map((i) => i.id), [first.id])

      const wrongSpec = yield* request("GET", `/v4/applications/spec-other/interactions/${first.id}`, { key })
      assert.strictEqual(wrongSpec.status, 404)
      const bob = yield* provision()
      const foreign = yield* request("GET", `/v4/applications/spec-r/interactions/${first.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      const foreignList = yield* request("GET", "/v4/applications/spec-r/interactions", { key: bob.key })
      assert.strictEqual(foreignList.body.total_item_count, 0)
      const badPage = yield* request("GET", "/v4/applications/spec-r/interactions?page=0&limit=x", { key })
      assert.deepStrictEqual(issues(badPage), [
        { loc: ["query", "page"], type: "greater_than_equal" },
        { loc: ["query", "limit"], type: "number_parsing" }
      ])
      const unauthenticated = yield* request("GET", `/v4/applications/spec-r/interactions/${first.id}`)
      assert.strictEqual(unauthenticated.status, 401)
    }))

  it.effect("optional fields: absent or null are null / []; an offset start time is stored in UTC", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key } = yield* provision({ type: "service_account" })
      const response = yield* request("POST", interactions("spec-2"), {
        key,
        body: {
          application_variant_id: "v",
          start_timestamp: "2026-03-01T14:00:00+02:00",
          duration_ms: 0,
          input_tokens: 0,
          output_tokens: 0,
          error: null,
          feedback: null,
          unknown_field: "ignored"
        }
      })
      assert.strictEqual(response.status, 200)
      assert.deepStrictEqual(response.body, {
        id: response.body.id,
        application_spec_id: "spec-2",
        application_variant_id: "v",
        start_timestamp: "2026-03-01T12:00:00.000Z",
        duration_ms: 0,
        input_tokens: 0,
        output_tokens: 0,
        error: null,
        user_id: null,
        node_latencies: [],
        feedback: null,
        // what a process or POST /v4/interactions/ records; a usage record has none of it
        input: {},
        output: {},
        operation_metadata: null,
        chat_thread_id: null,
        interaction_source: null,
        account_id: accountId,
        created_by_user_id: identityId,
        created_by_identity_type: "service_account",
        created_at: response.body.created_at
      })
      assert.strictEqual(yield* requests(key, "spec-2"), 1)
      const window = `?from_ts=${Date.parse("2026-03-01T12:00:00Z") / 1000}&to_ts=${Date.parse("2026-03-01T12:00:00Z") / 1000}`
      assert.strictEqual(yield* requests(key, "spec-2", window), 1)
    }))

  it.effect("validation: missing fields, wrong types and bad values are 422 with exact loc; nothing is written", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const missing = yield* request("POST", interactions("spec-3"), { key, body: {} })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "application_variant_id"], type: "missing" },
        { loc: ["body", "start_timestamp"], type: "missing" },
        { loc: ["body", "duration_ms"], type: "missing" },
        { loc: ["body", "input_tokens"], type: "missing" },
        { loc: ["body", "output_tokens"], type: "missing" }
      ])

      const wrong = yield* request("POST", interactions("spec-3"), {
        key,
        body: {
          application_variant_id: "",
          start_timestamp: "yesterday",
          duration_ms: -1,
          input_tokens: 1.5,
          output_tokens: "7",
          error: false,
          user_id: 9,
          node_latencies: [{ node_id: "a", duration_ms: 1 }, { duration_ms: -2 }],
          feedback: "meh"
        }
      })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "application_variant_id"], type: "string_too_short" },
        { loc: ["body", "start_timestamp"], type: "value_error" },
        { loc: ["body", "duration_ms"], type: "greater_than_equal" },
        { loc: ["body", "input_tokens"], type: "int_type" },
        { loc: ["body", "output_tokens"], type: "number_type" },
        { loc: ["body", "error"], type: "string_type" },
        { loc: ["body", "user_id"], type: "string_type" },
        { loc: ["body", "node_latencies", 1, "node_id"], type: "missing" },
        { loc: ["body", "node_latencies", 1, "duration_ms"], type: "greater_than_equal" },
        { loc: ["body", "feedback"], type: "literal_error" }
      ])

      const malformed = yield* request("POST", interactions("spec-3"), { key, body: "{" })
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      assert.strictEqual(yield* requests(key, "spec-3"), 0)
    }))

  it.effect("401 without a key; 403 for another account_id; neither writes anything", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const body = {
        application_variant_id: "v",
        start_timestamp: "2026-03-01T12:00:00Z",
        duration_ms: 5,
        input_tokens: 1,
        output_tokens: 1
      }
      const none = yield* request("POST", interactions("spec-4"), { body })
      assert.strictEqual(none.status, 401)
      assert.isString(none.body.detail)

      const forbidden = yield* Effect.flip(
        bob.client.applications.recordInteraction({
          path: { application_spec_id: "spec-4" },
          payload: { ...body, account_id: alice.accountId }
        })
      )
      assert.strictEqual(forbidden._tag, "Forbidden")
      const selected = yield* request("POST", interactions("spec-4"), {
        key: bob.key,
        body,
        headers: { "x-selected-account-id": alice.accountId }
      })
      assert.strictEqual(selected.status, 403)

      assert.strictEqual(yield* requests(alice.key, "spec-4"), 0)
      assert.strictEqual(yield* requests(bob.key, "spec-4"), 0)
    }))

  it.effect("a caller of several accounts names one (else 422); interactions count in their own account", () =>
    Effect.gen(function*() {
      const { key, identityId, accountId } = yield* provision()
      const accounts = yield* Accounts
      const second = yield* accounts.createAccount()
      yield* accounts.addMember(identityId, second)
      const body = {
        application_variant_id: "v",
        start_timestamp: "2026-03-01T12:00:00Z",
        duration_ms: 5,
        input_tokens: 1,
        output_tokens: 1
      }
      const unnamed = yield* request("POST", interactions("spec-5"), { key, body })
      assert.strictEqual(unnamed.status, 422)
      assert.deepStrictEqual(issues(unnamed), [{ loc: ["body", "account_id"], type: "missing" }])

      const named = yield* request("POST", interactions("spec-5"), { key, body: { ...body, account_id: second } })
      assert.strictEqual(named.body.account_id, second)
      const header = yield* request("POST", interactions("spec-5"), {
        key,
        body,
        headers: { "x-selected-account-id": accountId }
      })
      assert.strictEqual(header.body.account_id, accountId)

      assert.strictEqual(yield* requests(key, "spec-5"), 2)
      assert.strictEqual(yield* requests(key, "spec-5", `?account_id=${second}`), 1)
    }))
})
