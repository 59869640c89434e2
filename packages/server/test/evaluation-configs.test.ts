import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { Accounts } from "../src/auth/Accounts.js"
import { issues, provision, request, TestServerLive, uuidPattern as uuid, isoPattern as iso } from "../src/testing.js"

/** A question set (without questions) of `caller`'s account, or of `accountId`: what a config must name. */
const questionSet = (caller: { readonly key: string; readonly accountId: string }, accountId = caller.accountId) =>
  Effect.map(
    request("POST", "/v4/question-sets", { key: caller.key, body: { account_id: accountId, name: "Set", question_ids: [] } }),
    (response) => response.body.id as string
  )

layer(TestServerLive)("evaluation configs", (it) => {
  it.effect("create answers every field of an evaluation config with audit fields from the key; get and list read it back", () =>
    Effect.gen(function*() {
      const { accountId, identityId, key, client } = yield* provision()
      const setId = yield* questionSet({ key, accountId })
      const project = yield* request("POST", "/v4/studio-projects", {
        key,
        body: { account_id: accountId, name: "Studio", description: "", studio_api_key: "studio-key" }
      })
      const response = yield* request("POST", "/v4/evaluation-configs", {
        key,
        body: {
          evaluation_type: "studio",
          question_set_id: setId,
          studio_project_id: project.body.id,
          auto_evaluation_model: "judge-large",
          auto_evaluation_parameters: { temperature: 0.2, batch_size: 8 },
          account_id: accountId,
          created_by_identity_type: "service_account"
        }
      })
      assert.strictEqual(response.status, 200)
      const created = response.body
      assert.match(created.id, uuid)
      assert.match(created.created_at, iso)
      assert.deepStrictEqual(created, {
        id: created.id,
        evaluation_type: "studio",
        question_set_id: setId,
        studio_project_id: project.body.id,
        auto_evaluation_model: "judge-large",
        auto_evaluation_parameters: { temperature: 0.2, batch_size: 8 },
        account_id: accountId,
        created_by_user_id: identityId,
        created_by_identity_type: "user",
        created_at: created.created_at
      })

      const read = yield* request("GET", `/v4/evaluation-configs/${created.id}`, { key })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.body, created)
      const viaClient = yield* client.evaluationConfigs.get({ path: { evaluation_config_id: created.id } })
      assert.strictEqual(viaClient.auto_evaluation_parameters?.batch_size, 8)

      const page = yield* request("GET", "/v4/evaluation-configs", { key })
      assert.deepStrictEqual(page.body, { items: [created], total_item_count: 1, current_page: 1, items_per_page: 100 })
    }))

  it.effect("optional fields not given are null; a half-given parameters object keeps null for the rest", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provision()
      const setId = yield* questionSet({ key, accountId })
      const minimal = yield* request("POST", "/v4/evaluation-configs", {
        key,
        body: { evaluation_type: "studio", question_set_id: setId, account_id: accountId, studio_project_id: null }
      })
      assert.strictEqual(minimal.status, 200)
      assert.strictEqual(minimal.body.studio_project_id, null)
      assert.strictEqual(minimal.body.auto_evaluation_model, null)
      assert.strictEqual(minimal.body.auto_evaluation_parameters, null)

      const half = yield* client.evaluationConfigs.create({
        payload: {
          evaluation_type: "studio",
          question_set_id: setId,
          account_id: accountId,
          auto_evaluation_parameters: { batch_size: 1 }
        }
      })
      assert.deepStrictEqual({ ...half.auto_evaluation_parameters }, { temperature: null, batch_size: 1 })
      const read = yield* request("GET", `/v4/evaluation-configs/${half.id}`, { key })
      assert.deepStrictEqual(read.body.auto_evaluation_parameters, { temperature: null, batch_size: 1 })
    }))

  it.effect("validation: missing fields, wrong values and out-of-range parameters give 422; nothing is written", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provision()
      const missing = yield* request("POST", "/v4/evaluation-configs", { key, body: {} })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "evaluation_type"], type: "missing" },
        { loc: ["body", "question_set_id"], type: "missing" },
        { loc: ["body", "account_id"], type: "missing" }
      ])

      const wrong = yield* request("POST", "/v4/evaluation-configs", {
        key,
        body: {
          evaluation_type: "judge",
          question_set_id: "",
          account_id: accountId,
          auto_evaluation_model: 7,
          auto_evaluation_parameters: { temperature: 2.5, batch_size: 0 }
        }
      })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "evaluation_type"], type: "literal_error" },
        { loc: ["body", "question_set_id"], type: "string_too_short" },
        { loc: ["body", "auto_evaluation_model"], type: "string_type" },
        { loc: ["body", "auto_evaluation_parameters", "temperature"], type: "range_error" },
        { loc: ["body", "auto_evaluation_parameters", "batch_size"], type: "greater_than_equal" }
      ])

      const types = yield* request("POST", "/v4/evaluation-configs", {
        key,
        body: {
          evaluation_type: "studio",
          question_set_id: "qs",
          account_id: accountId,
          auto_evaluation_parameters: { temperature: "hot", batch_size: 1.5 }
        }
      })
      assert.deepStrictEqual(issues(types), [
        { loc: ["body", "auto_evaluation_parameters", "temperature"], type: "number_type" },
        { loc: ["body", "auto_evaluation_parameters", "batch_size"], type: "int_type" }
      ])

      const notObject = yield* request("POST", "/v4/evaluation-configs", {
        key,
        body: { evaluation_type: "studio", question_set_id: "qs", account_id: accountId, auto_evaluation_parameters: [] }
      })
      assert.deepStrictEqual(issues(notObject), [{ loc: ["body", "auto_evaluation_parameters"], type: "dict_type" }])

      assert.strictEqual((yield* client.evaluationConfigs.list({ urlParams: {} })).total_item_count, 0)
    }))

  it.effect("401 without a key or with an unknown one, on every endpoint", () =>
    Effect.gen(function*() {
      const { accountId } = yield* provision()
      const create = yield* request("POST", "/v4/evaluation-configs", {
        body: { evaluation_type: "studio", question_set_id: "qs", account_id: accountId }
      })
      assert.strictEqual(create.status, 401)
      assert.isString(create.body.detail)
      assert.strictEqual((yield* request("GET", "/v4/evaluation-configs/x")).status, 401)
      assert.strictEqual((yield* request("GET", "/v4/evaluation-configs", { key: "pk_nope" })).status, 401)
    }))

  it.effect("404 for a missing id and for another account's config; 403 for another account_id", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const config = yield* alice.client.evaluationConfigs.create({
        payload: { evaluation_type: "studio", question_set_id: yield* questionSet(alice), account_id: alice.accountId }
      })

      const missing = yield* Effect.flip(
        bob.client.evaluationConfigs.get({ path: { evaluation_config_id: "no-such-id" } })
      )
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("GET", `/v4/evaluation-configs/${config.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Evaluation config ${config.id} not found` })

      const forbidden = yield* request("POST", "/v4/evaluation-configs", {
        key: bob.key,
        body: { evaluation_type: "studio", question_set_id: "qs", account_id: alice.accountId }
      })
      assert.strictEqual(forbidden.status, 403)
      assert.isString(forbidden.body.detail)
      const foreignList = yield* request("GET", `/v4/evaluation-configs?account_id=${alice.accountId}`, {
        key: bob.key
      })
      assert.strictEqual(foreignList.status, 403)
      assert.strictEqual((yield* bob.client.evaluationConfigs.list({ urlParams: {} })).total_item_count, 0)
      assert.strictEqual((yield* alice.client.evaluationConfigs.list({ urlParams: {} })).total_item_count, 1)
    }))

  it.effect("delete answers {count: 1, success: true} and the config is gone; a missing one, or another account's, is a 404 and stays", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const setId = yield* questionSet(alice)
      const make = () =>
        alice.client.evaluationConfigs.create({ payload: { evaluation_type: "studio", question_set_id: setId, account_id: alice.accountId } })
      const [gone, kept] = [yield* make(), yield* make()]

      const foreign = yield* request("DELETE", `/v4/evaluation-configs/${gone.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Evaluation config ${gone.id} not found` })
      assert.strictEqual((yield* request("GET", `/v4/evaluation-configs/${gone.id}`, { key: alice.key })).status, 200)

      const deleted = yield* request("DELETE", `/v4/evaluation-configs/${gone.id}`, { key: alice.key })
      assert.strictEqual(deleted.status, 200)
      assert.deepStrictEqual(deleted.body, { count: 1, success: true })
      assert.strictEqual((yield* request("GET", `/v4/evaluation-configs/${gone.id}`, { key: alice.key })).status, 404)
      const again = yield* Effect.flip(alice.client.evaluationConfigs.delete({ path: { evaluation_config_id: gone.id } }))
      assert.strictEqual(again._tag, "NotFound")
      const listed = yield* alice.client.evaluationConfigs.list({ urlParams: {} })
      assert.deepStrictEqual(listed.items.map((config) => config.id), [kept.id])
      assert.strictEqual(listed.total_item_count, 1)
    }))

  it.effect("the question set and Studio project must be the account's (404 naming them, nothing written); every evaluation type is taken", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const mine = yield* questionSet(alice)
      const theirs = yield* questionSet(bob)
      const theirProject = yield* request("POST", "/v4/studio-projects", {
        key: bob.key,
        body: { account_id: bob.accountId, name: "Theirs", description: "", studio_api_key: "their-key" }
      })
      const post = (body: Record<string, unknown>) =>
        request("POST", "/v4/evaluation-configs", { key: alice.key, body: { evaluation_type: "studio", account_id: alice.accountId, ...body } })

      const unknown = yield* post({ question_set_id: "no-such-set" })
      assert.deepStrictEqual([unknown.status, unknown.body], [404, { detail: "Question set no-such-set not found" }])
      const foreign = yield* post({ question_set_id: theirs })
      assert.deepStrictEqual([foreign.status, foreign.body], [404, { detail: `Question set ${theirs} not found` }])
      const project = yield* post({ question_set_id: mine, studio_project_id: theirProject.body.id })
      assert.deepStrictEqual([project.status, project.body], [404, { detail: `Studio project ${theirProject.body.id} not found` }])
      assert.strictEqual((yield* alice.client.evaluationConfigs.list({ urlParams: {} })).total_item_count, 0)

      // an archived set is still the account's: a config may name it
      yield* request("DELETE", `/v4/question-sets/${mine}`, { key: alice.key })
      for (const evaluation_type of ["studio", "human", "llm_auto", "llm_benchmark"]) {
        const made = yield* post({ evaluation_type, question_set_id: mine })
        assert.deepStrictEqual([made.status, made.body.evaluation_type], [200, evaluation_type])
      }
      const wrong = yield* post({ evaluation_type: "robot", question_set_id: mine })
      assert.deepStrictEqual(issues(wrong).map((issue: { loc: unknown }) => issue.loc), [["body", "evaluation_type"]])
    }))

  it.effect("list returns the configs of every account of the caller, newest first, paged", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const caller = yield* provision()
      const second = yield* accounts.createAccount()
      yield* accounts.addMember(caller.identityId, second)
      const stranger = yield* provision()
      yield* stranger.client.evaluationConfigs.create({
        payload: { evaluation_type: "studio", question_set_id: yield* questionSet(stranger), account_id: stranger.accountId }
      })

      const made = []
      for (const account_id of [caller.accountId, second, caller.accountId]) {
        made.push(
          yield* caller.client.evaluationConfigs.create({
            payload: { evaluation_type: "studio", question_set_id: yield* questionSet(caller, account_id), account_id }
          })
        )
        yield* TestClock.adjust("1 millis")
      }
      const qs = made.map((config) => config.question_set_id)
      const all = yield* caller.client.evaluationConfigs.list({ urlParams: {} })
      assert.deepStrictEqual(all.items.map((c) => c.question_set_id), [qs[2], qs[1], qs[0]])
      assert.strictEqual(all.total_item_count, 3)

      const narrowed = yield* caller.client.evaluationConfigs.list({ urlParams: { account_id: second } })
      assert.deepStrictEqual(narrowed.items.map((c) => c.question_set_id), [qs[1]])

      const paged = yield* caller.client.evaluationConfigs.list({ urlParams: { page: 2, limit: 2 } })
      assert.deepStrictEqual(paged.items.map((c) => c.question_set_id), [qs[0]])
      assert.strictEqual(paged.total_item_count, 3)

      const bad = yield* request("GET", "/v4/evaluation-configs?page=-1&limit=0", { key: caller.key })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad), [
        { loc: ["query", "page"], type: "greater_than_equal" },
        { loc: ["query", "limit"], type: "range_error" }
      ])
    }))
})
