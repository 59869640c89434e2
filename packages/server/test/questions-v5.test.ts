/**
 * v5 questions (`/v5/questions`, docs/questions.md "v5 questions"): the same questions as
 * `/v4/questions`, in the v5 shape. A question created through either version reads through both;
 * every answer carries `question_type`; the cursor list holds both kinds.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"
import { noOptions } from "./support/questions.js"

const v5Keys = ["conditions", "configuration", "created_at", "created_by", "id", "name", "object", "prompt", "question_type"]


layer(TestServerLive)("v5 questions", (it) => {
  it.effect("create answers the v5 shape (question_type always); v4 reads the same question with its options", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key } = yield* provision()
      const response = yield* request("POST", "/v5/questions", {
        key,
        body: {
          question_type: "categorical",
          name: "Tone",
          prompt: "Is the answer polite?",
          conditions: [{ question_id: "q-1", equals: "yes" }],
          configuration: { choices: ["yes", "no"], multi: true, dropdown: false }
        }
      })
      assert.strictEqual(response.status, 200, JSON.stringify(response.body))
      const created = response.body
      assert.deepStrictEqual(Object.keys(created).sort(), v5Keys)
      assert.match(created.id, uuid)
      assert.deepStrictEqual({ ...created, id: "" }, {
        id: "",
        created_at: "1970-01-01T00:00:00.000Z",
        created_by: { id: identityId, type: "user", object: "identity" },
        name: "Tone",
        prompt: "Is the answer polite?",
        conditions: [{ question_id: "q-1", equals: "yes" }],
        question_type: "categorical",
        configuration: { choices: ["yes", "no"], dropdown: false, multi: true },
        object: "question"
      })
      const v5 = yield* request("GET", `/v5/questions/${created.id}`, { key })
      assert.deepStrictEqual(v5.body, created)
      const v4 = yield* request("GET", `/v4/questions/${created.id}`, { key })
      assert.strictEqual(v4.status, 200)
      assert.deepStrictEqual(v4.body, {
        ...noOptions,
        id: created.id,
        type: "categorical",
        title: "Tone",
        prompt: "Is the answer polite?",
        choices: [{ label: "yes", value: "yes", audit_required: false }, { label: "no", value: "no", audit_required: false }],
        multi: true,
        dropdown: false,
        conditions: [{ question_id: "q-1", equals: "yes" }],
        account_id: accountId,
        created_by_user_id: identityId,
        created_by_identity_type: "user",
        created_at: "1970-01-01T00:00:00.000Z"
      })
    }))

  it.effect("every type round-trips v5 → store → v5 and maps onto the v4 options", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const cases = [
        {
          body: { question_type: "rating", name: "r", prompt: "p", configuration: { min_label: "bad", max_label: "good", steps: 5 } },
          v4: { ratingOptions: { minLabel: "bad", maxLabel: "good", scaleSteps: 5 } }
        },
        {
          body: { question_type: "number", name: "n", prompt: "p", configuration: { min: 0, max: 10.5 } },
          v4: { numberOptions: { min: 0, max: 10.5 } }
        },
        {
          body: { question_type: "free_text", name: "f", prompt: "p", configuration: { min_length: 1, max_length: 200 } },
          v4: { freeTextOptions: { characterLimit: { min: 1, max: 200 } } }
        },
        {
          body: { question_type: "form", name: "fm", prompt: "p", configuration: { form_schema: { type: "object" } } },
          v4: { form_schema: { type: "object" } }
        },
        { body: { question_type: "timestamp", name: "t", prompt: "p", configuration: { multi: true } }, v4: { multi: true } }
      ] as const
      for (const { body, v4 } of cases) {
        const created = yield* client.questionsV5.create({ payload: body as any })
        assert.strictEqual(created.question_type, body.question_type)
        assert.deepStrictEqual({ ...created.configuration }, { ...noConfigurationOf(body.question_type), ...body.configuration })
        const asV4 = yield* client.questions.get({ path: { question_id: created.id } })
        assert.strictEqual(asV4.type, body.question_type)
        assert.strictEqual(asV4.title, body.name)
        const options = JSON.parse(JSON.stringify(asV4))
        for (const [field, value] of Object.entries(v4)) assert.deepStrictEqual(options[field], value, field)
        assert.deepStrictEqual(yield* client.questionsV5.get({ path: { question_id: created.id } }), created)
      }
    }))

  it.effect("without question_type the configuration's keys decide; with neither it is free text; options left out are null", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const typeOf = (configuration: unknown) =>
        Effect.map(
          request("POST", "/v5/questions", { key, body: { name: "q", prompt: "p", ...(configuration === undefined ? {} : { configuration }) } }),
          (response) => {
            assert.strictEqual(response.status, 200, JSON.stringify(response.body))
            return [response.body.question_type, response.body.configuration]
          }
        )
      assert.deepStrictEqual(yield* typeOf({ choices: ["a"] }), ["categorical", { choices: ["a"], dropdown: null, multi: null }])
      assert.deepStrictEqual(yield* typeOf({ min_label: "a", max_label: "b", steps: 3 }), ["rating", { min_label: "a", max_label: "b", steps: 3 }])
      assert.deepStrictEqual(yield* typeOf({ form_schema: {} }), ["form", { form_schema: {} }])
      assert.deepStrictEqual(yield* typeOf({ max_length: 5 }), ["free_text", { min_length: null, max_length: 5 }])
      assert.deepStrictEqual(yield* typeOf({ min: 1 }), ["number", { min: 1, max: null }])
      assert.deepStrictEqual(yield* typeOf({ multi: false }), ["timestamp", { multi: false }])
      assert.deepStrictEqual(yield* typeOf(undefined), ["free_text", { min_length: null, max_length: null }])
    }))

  it.effect("bad bodies are 422 at the broken field, nothing stored", () =>
    Effect.gen(function*() {
      const { key, client } = yield* provision()
      const bad = [
        { question_type: "categorical", name: "q", prompt: "p", configuration: { choices: [] } },
        { question_type: "categorical", name: "q", prompt: "p" },
        { question_type: "rating", name: "q", prompt: "p", configuration: { min_label: "a", max_label: "b", steps: 1 } },
        { question_type: "number", name: "q", prompt: "p", configuration: { min: 5, max: 1 } },
        { question_type: "free_text", name: "q", prompt: "p", configuration: { min_length: -1 } },
        { question_type: "yes_no", name: "q", prompt: "p" },
        { question_type: "free_text", name: "", prompt: "p" },
        { question_type: "free_text", name: "q" }
      ]
      for (const body of bad) {
        const response = yield* request("POST", "/v5/questions", { key, body })
        assert.strictEqual(response.status, 422, JSON.stringify(body))
        assert.isAbove(issues(response).length, 0)
        for (const issue of issues(response)) assert.strictEqual(issue.loc[0], "body")
      }
      const categorical = yield* request("POST", "/v5/questions", { key, body: bad[1] })
      assert.include(issues(categorical).map((issue: any) => issue.loc.join(".")), "body.configuration")
      assert.strictEqual((yield* client.questionsV5.list({ urlParams: {} })).total, 0)
    }))

  it.effect("a v4 question reads in the v5 shape: labels give way to values; a rating without options is an empty scale", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provision()
      const v4 = (body: Record<string, unknown>) =>
        Effect.map(request("POST", "/v4/questions", { key, body: { prompt: "p", account_id: accountId, ...body } }), (response) => {
          assert.strictEqual(response.status, 200, JSON.stringify(response.body))
          return response.body.id as string
        })
      const categorical = yield* v4({
        type: "categorical",
        title: "c",
        choices: [{ label: "Yes", value: "yes", audit_required: true }, { label: "No", value: "no" }],
        dropdown: true,
        required: true,
        default: "yes"
      })
      const read = yield* request("GET", `/v5/questions/${categorical}`, { key })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(Object.keys(read.body).sort(), v5Keys)
      assert.deepStrictEqual([read.body.question_type, read.body.name, read.body.configuration], [
        "categorical",
        "c",
        { choices: ["yes", "no"], dropdown: true, multi: null }
      ])
      const rating = yield* v4({ type: "rating", title: "r" })
      const ratingRead = yield* client.questionsV5.get({ path: { question_id: rating } })
      assert.deepStrictEqual([ratingRead.question_type, { ...ratingRead.configuration }], ["rating", { min_label: "", max_label: "", steps: 0 }])
      const form = yield* v4({ type: "form", title: "f" })
      const formRead = yield* client.questionsV5.get({ path: { question_id: form } })
      assert.deepStrictEqual([formRead.question_type, { ...formRead.configuration }], ["form", { form_schema: {} }])
    }))

  it.effect("the cursor list holds questions of both versions, newest first; other accounts' are 404 and absent", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const stranger = yield* provision()
      const ids: Array<string> = []
      for (const name of ["one", "two", "three"]) {
        const made = name === "two"
          ? (yield* caller.client.questions.create({ payload: { type: "free_text", title: name, prompt: "p", account_id: caller.accountId } })).id
          : (yield* caller.client.questionsV5.create({ payload: { question_type: "free_text", name, prompt: "p" } })).id
        ids.push(made)
        yield* TestClock.adjust("1 millis")
      }
      yield* stranger.client.questionsV5.create({ payload: { question_type: "free_text", name: "theirs", prompt: "p" } })
      const page = yield* caller.client.questionsV5.list({ urlParams: {} })
      assert.deepStrictEqual(page.items.map((q) => q.name), ["three", "two", "one"])
      assert.deepStrictEqual([page.total, page.has_more, page.limit, page.object], [3, false, 100, "list"])
      const first = yield* caller.client.questionsV5.list({ urlParams: { limit: 2, sort_order: "asc" } })
      assert.deepStrictEqual([first.items.map((q) => q.name), first.has_more], [["one", "two"], true])
      const next = yield* caller.client.questionsV5.list({ urlParams: { limit: 2, sort_order: "asc", starting_after: first.items[1]!.id } })
      assert.deepStrictEqual([next.items.map((q) => q.name), next.has_more], [["three"], false])
      // the v4 list sees the v5-made ones too
      assert.strictEqual((yield* caller.client.questions.list({ urlParams: {} })).total_item_count, 3)
      const foreign = yield* Effect.flip(stranger.client.questionsV5.get({ path: { question_id: ids[0]! } }))
      assert.strictEqual(foreign._tag, "NotFound")
    }))
})

/** The configuration of a type with every option left out, as the answer carries it. */
const noConfigurationOf = (type: string): Record<string, unknown> =>
  type === "number"
    ? { min: null, max: null }
    : type === "free_text"
    ? { min_length: null, max_length: null }
    : type === "timestamp"
    ? { multi: null }
    : {}
