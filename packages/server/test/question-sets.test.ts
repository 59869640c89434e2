/**
 * v4 question sets (docs/questions.md "v4 question sets"): a set's questions must be the account's
 * v4 questions (404 naming one that is not, nothing written), a read answers them in the set's
 * order, the list fills them only with `view=Questions`; DELETE archives, `{restore: true}` restores.
 */
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { QuestionSetsRepo } from "../src/question-sets/QuestionSetsRepo.js"
import { issues, isoPattern as iso, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

/** A free-text v4 question of the caller's account. */
const question = (caller: { readonly key: string; readonly accountId: string }, title: string) =>
  Effect.map(
    request("POST", "/v4/questions", { key: caller.key, body: { type: "free_text", title, prompt: `${title}?`, account_id: caller.accountId } }),
    (response) => response.body as { readonly id: string; readonly title: string }
  )

const storedSets = (accountId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT COUNT(*) AS n FROM question_sets WHERE account_id = ${accountId}`)
    .pipe(Effect.map((rows) => Number(rows[0]!.n)))

layer(TestServerLive)("question sets", (it) => {
  it.effect("create answers the set without its questions; get answers them in the order of question_ids; the list only with view=Questions", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const [a, b, c] = [yield* question(caller, "Accurate"), yield* question(caller, "Tone"), yield* question(caller, "Helpful")]
      const created = yield* request("POST", "/v4/question-sets", {
        key: caller.key,
        body: {
          account_id: caller.accountId,
          name: "Quality",
          question_ids: [c.id, a.id, b.id],
          instructions: "Read the answer first",
          question_id_to_config: { [a.id]: { required: true }, [c.id]: {} }
        }
      })
      assert.strictEqual(created.status, 200)
      const set = created.body
      assert.match(set.id, uuid)
      assert.match(set.created_at, iso)
      assert.deepStrictEqual(set, {
        id: set.id,
        name: "Quality",
        instructions: "Read the answer first",
        question_id_to_config: { [a.id]: { required: true }, [c.id]: { required: false } },
        archived_at: null,
        account_id: caller.accountId,
        created_by_user_id: caller.identityId,
        created_by_identity_type: "user",
        created_at: set.created_at
      })

      const read = yield* request("GET", `/v4/question-sets/${set.id}`, { key: caller.key })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.body.questions.map((q: { title: string }) => q.title), ["Helpful", "Accurate", "Tone"])
      assert.deepStrictEqual({ ...read.body, questions: undefined }, { ...set, questions: undefined })

      // the export other families read (evaluations, the judge): the same set, the same order
      const repo = yield* Effect.provide(QuestionSetsRepo, QuestionSetsRepo.Default)
      const expanded = yield* repo.withQuestions(set.id, [caller.accountId])
      assert.deepStrictEqual(expanded.questions.map((q) => q.id), [c.id, a.id, b.id])
      const elsewhere = yield* Effect.flip(repo.withQuestions(set.id, ["another-account"]))
      assert.strictEqual(elsewhere.detail, `Question set ${set.id} not found`)

      yield* TestClock.adjust("1 millis")
      const minimal = yield* caller.client.questionSets.create({ payload: { account_id: caller.accountId, name: "Empty", question_ids: [] } })
      assert.strictEqual(minimal.instructions, null)
      assert.strictEqual(minimal.question_id_to_config, null)

      const plain = yield* request("GET", "/v4/question-sets", { key: caller.key })
      assert.deepStrictEqual(plain.body, { items: [minimal, set].map((s) => JSON.parse(JSON.stringify(s))), total_item_count: 2, current_page: 1, items_per_page: 100 })
      assert.notProperty(plain.body.items[1], "questions")
      const withQuestions = yield* request("GET", "/v4/question-sets?view=Questions&limit=1&page=2", { key: caller.key })
      assert.strictEqual(withQuestions.status, 200)
      assert.deepStrictEqual(withQuestions.body.items.map((s: any) => s.questions.map((q: { id: string }) => q.id)), [[c.id, a.id, b.id]])
      assert.strictEqual(withQuestions.body.total_item_count, 2)
      const badView = yield* request("GET", "/v4/question-sets?view=Everything", { key: caller.key })
      assert.deepStrictEqual(issues(badView).map((issue: { loc: unknown }) => issue.loc), [["query", "view", 0]])
    }))

  it.effect("a question not of the account is a 404 naming it; stray config keys and repeated ids are 422; nothing is written", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const mine = yield* question(alice, "Mine")
      const theirs = yield* question(bob, "Theirs")
      const post = (body: Record<string, unknown>) =>
        request("POST", "/v4/question-sets", { key: alice.key, body: { account_id: alice.accountId, name: "Set", ...body } })

      const foreign = yield* post({ question_ids: [mine.id, theirs.id] })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Question ${theirs.id} not found` })
      const unknown = yield* post({ question_ids: ["no-such-question"] })
      assert.deepStrictEqual([unknown.status, unknown.body.detail], [404, "Question no-such-question not found"])

      const stray = yield* post({ question_ids: [mine.id], question_id_to_config: { [theirs.id]: { required: true } } })
      assert.strictEqual(stray.status, 422)
      assert.deepStrictEqual(issues(stray).map((issue: { loc: unknown }) => issue.loc), [["body", "question_id_to_config", theirs.id]])
      const twice = yield* post({ question_ids: [mine.id, mine.id] })
      assert.deepStrictEqual(issues(twice).map((issue: { loc: unknown }) => issue.loc), [["body", "question_ids", 1]])
      const missing = yield* request("POST", "/v4/question-sets", { key: alice.key, body: { account_id: alice.accountId } })
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "name"], type: "missing" },
        { loc: ["body", "question_ids"], type: "missing" }
      ])
      const forbidden = yield* request("POST", "/v4/question-sets", {
        key: bob.key,
        body: { account_id: alice.accountId, name: "Set", question_ids: [] }
      })
      assert.strictEqual(forbidden.status, 403)
      assert.strictEqual(yield* storedSets(alice.accountId), 0)
    }))

  it.effect("update changes the fields given, checks new question_ids and drops the configs of questions left out", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const [a, b] = [yield* question(alice, "A"), yield* question(alice, "B")]
      const theirs = yield* question(bob, "Theirs")
      const set = yield* alice.client.questionSets.create({
        payload: { account_id: alice.accountId, name: "Set", question_ids: [a.id, b.id], question_id_to_config: { [a.id]: { required: true }, [b.id]: { required: true } } }
      })
      const path = `/v4/question-sets/${set.id}`

      const renamed = yield* request("PATCH", path, { key: alice.key, body: { name: "Renamed", instructions: null } })
      assert.strictEqual(renamed.status, 200)
      assert.deepStrictEqual(renamed.body, JSON.parse(JSON.stringify({ ...set, name: "Renamed" })))

      const refused = yield* request("PATCH", path, { key: alice.key, body: { question_ids: [theirs.id], name: "Lost" } })
      assert.deepStrictEqual([refused.status, refused.body.detail], [404, `Question ${theirs.id} not found`])
      const config = yield* request("PATCH", path, { key: alice.key, body: { question_id_to_config: { [a.id]: { required: false } } } })
      assert.deepStrictEqual(config.body.question_id_to_config, { [a.id]: { required: true }, [b.id]: { required: true } })

      const reordered = yield* request("PATCH", path, { key: alice.key, body: { question_ids: [b.id] } })
      assert.strictEqual(reordered.body.name, "Renamed")
      assert.deepStrictEqual(reordered.body.question_id_to_config, { [b.id]: { required: true } })
      const read = yield* request("GET", path, { key: alice.key })
      assert.deepStrictEqual(read.body.questions.map((q: { id: string }) => q.id), [b.id])

      const foreign = yield* request("PATCH", path, { key: bob.key, body: { name: "Mine now" } })
      assert.deepStrictEqual(foreign.body, { detail: `Question set ${set.id} not found` })
      assert.strictEqual((yield* request("GET", path, { key: bob.key })).status, 404)
      assert.strictEqual((yield* request("GET", path, { key: alice.key })).body.name, "Renamed")
    }))

  it.effect("delete archives (reads answer it, lists hide it unless include_archived); {restore: true} alone brings it back", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const set = yield* alice.client.questionSets.create({ payload: { account_id: alice.accountId, name: "Set", question_ids: [] } })
      yield* TestClock.adjust("1 millis")
      const kept = yield* alice.client.questionSets.create({ payload: { account_id: alice.accountId, name: "Kept", question_ids: [] } })
      const path = `/v4/question-sets/${set.id}`

      const foreign = yield* request("DELETE", path, { key: bob.key })
      assert.deepStrictEqual([foreign.status, foreign.body], [404, { detail: `Question set ${set.id} not found` }])
      const deleted = yield* request("DELETE", path, { key: alice.key })
      assert.deepStrictEqual([deleted.status, deleted.body], [200, { count: 1, success: true }])
      const archived = (yield* request("GET", path, { key: alice.key })).body
      assert.match(archived.archived_at, iso)
      const again = yield* request("DELETE", path, { key: alice.key })
      assert.strictEqual(again.status, 200)
      assert.strictEqual((yield* request("GET", path, { key: alice.key })).body.archived_at, archived.archived_at)

      const listed = yield* alice.client.questionSets.list({ urlParams: {} })
      assert.deepStrictEqual([listed.items.map((s) => s.id), listed.total_item_count], [[kept.id], 1])
      const all = yield* alice.client.questionSets.list({ urlParams: { include_archived: true } })
      assert.deepStrictEqual([all.items.map((s) => s.id), all.total_item_count], [[kept.id, set.id], 2])

      const mixed = yield* request("PATCH", path, { key: alice.key, body: { restore: true, name: "x" } })
      assert.deepStrictEqual(issues(mixed).map((issue: { loc: unknown }) => issue.loc), [["body", "name"]])
      const restored = yield* request("PATCH", path, { key: alice.key, body: { restore: true } })
      const { questions: _, ...archivedSet } = archived
      assert.deepStrictEqual(restored.body, { ...archivedSet, archived_at: null })
      assert.strictEqual((yield* alice.client.questionSets.list({ urlParams: {} })).total_item_count, 2)
      assert.strictEqual((yield* bob.client.questionSets.list({ urlParams: { include_archived: true } })).total_item_count, 0)
    }))
})
