import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive, uuidPattern as uuid, isoPattern as iso } from "../src/testing.js"
import { noOptions } from "./support/questions.js"


layer(TestServerLive)("questions", (it) => {
  it.effect("create answers every field of a question with audit fields from the key; get and list read it back", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key, client } = yield* provision()
      const response = yield* request("POST", "/v4/questions", {
        key,
        body: {
          type: "categorical",
          title: "Tone",
          prompt: "Is the answer polite?",
          account_id: accountId,
          choices: [{ label: "Yes", value: "yes", audit_required: true }, { label: "No", value: "no" }],
          multi: true,
          dropdown: false,
          required: true,
          conditions: [{ question_id: "q-1", equals: "yes" }],
          default: "yes",
          form_schema: { type: "object" },
          created_by_user_id: "forged",
          unknown_field: 1
        }
      })
      assert.strictEqual(response.status, 200)
      const created = response.body
      assert.match(created.id, uuid)
      assert.match(created.created_at, iso)
      assert.deepStrictEqual(created, {
        id: created.id,
        type: "categorical",
        title: "Tone",
        prompt: "Is the answer polite?",
        choices: [
          { label: "Yes", value: "yes", audit_required: true },
          { label: "No", value: "no", audit_required: false }
        ],
        ratingOptions: null,
        numberOptions: null,
        freeTextOptions: null,
        multi: true,
        dropdown: false,
        required: true,
        conditions: [{ question_id: "q-1", equals: "yes" }],
        default: "yes",
        form_schema: { type: "object" },
        account_id: accountId,
        created_by_user_id: identityId,
        created_by_identity_type: "user",
        created_at: created.created_at
      })

      const read = yield* request("GET", `/v4/questions/${created.id}`, { key })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.body, created)

      const viaClient = yield* client.questions.get({ path: { question_id: created.id } })
      assert.strictEqual(viaClient.id, created.id)
      assert.deepStrictEqual(viaClient.choices?.map((c) => c.audit_required), [true, false])

      const page = yield* request("GET", "/v4/questions", { key })
      assert.deepStrictEqual(page.body, { items: [created], total_item_count: 1, current_page: 1, items_per_page: 100 })
    }))

  it.effect("a question without options answers null for each; the typed client creates every type", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provision({ type: "service_account" })
      const minimal = yield* request("POST", "/v4/questions", {
        key,
        body: { type: "free_text", title: "Notes", prompt: "Anything else?", account_id: accountId, multi: null }
      })
      assert.strictEqual(minimal.status, 200)
      assert.deepStrictEqual(minimal.body, {
        id: minimal.body.id,
        type: "free_text",
        title: "Notes",
        prompt: "Anything else?",
        ...noOptions,
        account_id: accountId,
        created_by_user_id: minimal.body.created_by_user_id,
        created_by_identity_type: "service_account",
        created_at: minimal.body.created_at
      })

      const rating = yield* client.questions.create({
        payload: {
          type: "rating",
          title: "Helpfulness",
          prompt: "How helpful?",
          account_id: accountId,
          ratingOptions: { minLabel: "poor", maxLabel: "great", scaleSteps: 5 }
        }
      })
      assert.deepStrictEqual(
        { ...rating.ratingOptions },
        { minLabel: "poor", maxLabel: "great", scaleSteps: 5 }
      )
      const number = yield* client.questions.create({
        payload: { type: "number", title: "Score", prompt: "Score?", account_id: accountId, numberOptions: { min: 0.5 } }
      })
      assert.deepStrictEqual({ ...number.numberOptions }, { min: 0.5, max: null })
      const freeText = yield* client.questions.create({
        payload: {
          type: "free_text",
          title: "Why",
          prompt: "Why?",
          account_id: accountId,
          freeTextOptions: { characterLimit: { min: 1, max: 280 } },
          default: { text: "" }
        }
      })
      assert.deepStrictEqual({ ...freeText.freeTextOptions?.characterLimit }, { min: 1, max: 280 })
      assert.deepStrictEqual(freeText.default, { text: "" })
      const form = yield* client.questions.create({
        payload: { type: "form", title: "Form", prompt: "Fill in", account_id: accountId, form_schema: { a: [1] } }
      })
      assert.deepStrictEqual(form.form_schema, { a: [1] })

      const readBack = yield* request("GET", `/v4/questions/${number.id}`, { key })
      assert.deepStrictEqual(readBack.body.numberOptions, { min: 0.5, max: null })
      const page = yield* client.questions.list({ urlParams: {} })
      assert.strictEqual(page.total_item_count, 5)
    }))

  it.effect("allowMultiTimestamps is request-only: it sets multi of a timestamp question unless multi is given", () =>
    Effect.gen(function*() {
      const { accountId, key } = yield* provision()
      const create = (body: Record<string, unknown>) =>
        request("POST", "/v4/questions", { key, body: { title: "t", prompt: "p", account_id: accountId, ...body } })

      const timestamp = yield* create({ type: "timestamp", allowMultiTimestamps: true })
      assert.strictEqual(timestamp.status, 200)
      assert.strictEqual(timestamp.body.multi, true)
      assert.notProperty(timestamp.body, "allowMultiTimestamps")

      const explicit = yield* create({ type: "timestamp", allowMultiTimestamps: true, multi: false })
      assert.strictEqual(explicit.body.multi, false)

      const other = yield* create({ type: "free_text", allowMultiTimestamps: true })
      assert.strictEqual(other.body.multi, null)

      const read = yield* request("GET", `/v4/questions/${timestamp.body.id}`, { key })
      assert.strictEqual(read.body.multi, true)
      assert.notProperty(read.body, "allowMultiTimestamps")
    }))

  it.effect("validation: missing required fields and wrong types give 422 with exact loc; nothing is written", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provision()
      const missing = yield* request("POST", "/v4/questions", { key, body: {} })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "type"], type: "missing" },
        { loc: ["body", "title"], type: "missing" },
        { loc: ["body", "prompt"], type: "missing" },
        { loc: ["body", "account_id"], type: "missing" }
      ])

      const wrong = yield* request("POST", "/v4/questions", {
        key,
        body: {
          type: "essay",
          title: "",
          prompt: 3,
          account_id: accountId,
          choices: [{ label: 1, value: "a" }, { value: "b" }],
          ratingOptions: { minLabel: "a", maxLabel: "b", scaleSteps: 1 },
          numberOptions: { min: 5, max: 1 },
          freeTextOptions: { characterLimit: { min: -1, max: 2.5 } },
          multi: "yes",
          conditions: [1],
          form_schema: "schema"
        }
      })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "type"], type: "literal_error" },
        { loc: ["body", "title"], type: "string_too_short" },
        { loc: ["body", "prompt"], type: "string_type" },
        { loc: ["body", "choices", 0, "label"], type: "string_type" },
        { loc: ["body", "choices", 1, "label"], type: "missing" },
        { loc: ["body", "ratingOptions", "scaleSteps"], type: "greater_than_equal" },
        { loc: ["body", "numberOptions"], type: "value_error" },
        { loc: ["body", "freeTextOptions", "characterLimit", "min"], type: "greater_than_equal" },
        { loc: ["body", "freeTextOptions", "characterLimit", "max"], type: "int_type" },
        { loc: ["body", "multi"], type: "bool_type" },
        { loc: ["body", "conditions", 0], type: "dict_type" },
        { loc: ["body", "form_schema"], type: "dict_type" }
      ])

      const noLimit = yield* request("POST", "/v4/questions", {
        key,
        body: { type: "free_text", title: "t", prompt: "p", account_id: accountId, freeTextOptions: {} }
      })
      assert.deepStrictEqual(issues(noLimit), [{ loc: ["body", "freeTextOptions", "characterLimit"], type: "missing" }])

      const malformed = yield* request("POST", "/v4/questions", { key, body: "{\"type\":" })
      assert.deepStrictEqual(issues(malformed), [{ loc: ["body"], type: "json_invalid" }])

      const page = yield* client.questions.list({ urlParams: {} })
      assert.strictEqual(page.total_item_count, 0)
    }))

  it.effect("a categorical question without choices is a 422 at body.choices, before the account check", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provision()
      const other = yield* provision()
      const base = { type: "categorical", title: "t", prompt: "p", account_id: accountId }

      const absent = yield* request("POST", "/v4/questions", { key, body: base })
      assert.strictEqual(absent.status, 422)
      assert.deepStrictEqual(issues(absent), [{ loc: ["body", "choices"], type: "missing" }])

      const nulled = yield* request("POST", "/v4/questions", { key, body: { ...base, choices: null } })
      assert.deepStrictEqual(issues(nulled), [{ loc: ["body", "choices"], type: "missing" }])

      const empty = yield* request("POST", "/v4/questions", { key, body: { ...base, choices: [] } })
      assert.strictEqual(empty.status, 422)
      assert.deepStrictEqual(issues(empty), [{ loc: ["body", "choices"], type: "too_short" }])

      const foreign = yield* request("POST", "/v4/questions", {
        key,
        body: { ...base, account_id: other.accountId }
      })
      assert.strictEqual(foreign.status, 422)

      // other types need no choices
      const rating = yield* request("POST", "/v4/questions", { key, body: { ...base, type: "rating" } })
      assert.strictEqual(rating.status, 200)

      const page = yield* client.questions.list({ urlParams: {} })
      assert.deepStrictEqual(page.items.map((q) => q.type), ["rating"])
    }))

  it.effect("401 without a key or with an unknown one, on every endpoint", () =>
    Effect.gen(function*() {
      const { accountId } = yield* provision()
      const create = yield* request("POST", "/v4/questions", {
        body: { type: "free_text", title: "t", prompt: "p", account_id: accountId }
      })
      assert.strictEqual(create.status, 401)
      assert.isString(create.body.detail)
      assert.strictEqual((yield* request("GET", "/v4/questions/some-id")).status, 401)
      assert.strictEqual((yield* request("GET", "/v4/questions", { key: "pk_nope" })).status, 401)
    }))

  it.effect("404 for a missing id and for another account's question; 403 for another account_id", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const question = yield* alice.client.questions.create({
        payload: { type: "free_text", title: "t", prompt: "p", account_id: alice.accountId }
      })

      const missing = yield* Effect.flip(bob.client.questions.get({ path: { question_id: "no-such-id" } }))
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("GET", `/v4/questions/${question.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Question ${question.id} not found` })

      const forbidden = yield* Effect.flip(
        bob.client.questions.create({
          payload: { type: "free_text", title: "t", prompt: "p", account_id: alice.accountId }
        })
      )
      assert.strictEqual(forbidden._tag, "Forbidden")
      const foreignList = yield* request("GET", `/v4/questions?account_id=${alice.accountId}`, { key: bob.key })
      assert.strictEqual(foreignList.status, 403)

      assert.strictEqual((yield* bob.client.questions.list({ urlParams: {} })).total_item_count, 0)
      assert.strictEqual((yield* alice.client.questions.list({ urlParams: {} })).total_item_count, 1)
    }))

  it.effect("list pages newest first and validates page and limit", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provision()
      for (let i = 0; i < 3; i++) {
        yield* client.questions.create({
          payload: { type: "number", title: `q${i}`, prompt: "p", account_id: accountId }
        })
        yield* TestClock.adjust("1 millis")
      }
      const first = yield* client.questions.list({ urlParams: { page: 1, limit: 2, account_id: accountId } })
      assert.deepStrictEqual(first.items.map((q) => q.title), ["q2", "q1"])
      assert.strictEqual(first.total_item_count, 3)
      assert.strictEqual(first.items_per_page, 2)
      const second = yield* client.questions.list({ urlParams: { page: 2, limit: 2 } })
      assert.deepStrictEqual(second.items.map((q) => q.title), ["q0"])
      assert.strictEqual(second.current_page, 2)

      const bad = yield* request("GET", "/v4/questions?page=0&limit=abc", { key })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad), [
        { loc: ["query", "page"], type: "greater_than_equal" },
        { loc: ["query", "limit"], type: "number_parsing" }
      ])
    }))
})
