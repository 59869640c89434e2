/**
 * Stored documents answered as stored (sql/documentForms.ts): a read by id answers the stored text
 * when its row was written in today's form of the Schema, and decodes and encodes it again when it
 * was not (rows written before migration 0019, or by an older Schema).
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import {
  AgentRuntimeDeployment,
  ApplicationDeployment,
  EvaluationConfig,
  FineTuningJob,
  ModelDeployment,
  ModelGroup,
  ModelServer,
  Question,
  V4Page,
  V5List
} from "@platform-kit/schema"
import { Arbitrary, Effect, FastCheck, Layer, Option, Schema } from "effect"
import { hasColumn } from "../src/sql/dialect.js"
import { formOf } from "../src/sql/documentForms.js"
import { migrateAll, migrateUpTo } from "./support/migrations.js"
import { ModelGroupsRepo } from "../src/model-groups/ModelGroupsRepo.js"
import { eventually, provision, TestServerLive } from "../src/testing.js"

/** The Schemas whose reads by id answer the stored text (`getText` and `storedResponse` in their handlers). */
const answeredAsStored: ReadonlyArray<readonly [string, Schema.Schema<any, any, never>]> = [
  ["ModelGroup", ModelGroup],
  ["AgentRuntimeDeployment", AgentRuntimeDeployment],
  ["ApplicationDeployment", ApplicationDeployment],
  ["EvaluationConfig", EvaluationConfig],
  ["FineTuningJob", FineTuningJob],
  ["Question", Question],
  ["ModelDeployment", ModelDeployment],
  ["ModelServer", ModelServer]
]

describe("the form of a Schema", () => {
  const Base = Schema.Struct({ id: Schema.String, name: Schema.String })

  it("is the same for the same structure, and ignores annotations", () => {
    assert.strictEqual(formOf(Base), formOf(Schema.Struct({ id: Schema.String, name: Schema.String })))
    assert.strictEqual(
      formOf(Base),
      formOf(Schema.Struct({ id: Schema.String, name: Schema.String.annotations({ description: "the name" }) }))
    )
    assert.match(formOf(ModelGroup), /^[A-Za-z0-9_-]{16}$/)
  })

  it("changes when a field is added, made optional, retyped or given a default", () => {
    const forms = [
      formOf(Base),
      formOf(Schema.Struct({ id: Schema.String, name: Schema.String, extra: Schema.Number })),
      formOf(Schema.Struct({ id: Schema.String, name: Schema.optional(Schema.String) })),
      formOf(Schema.Struct({ id: Schema.String, name: Schema.NullOr(Schema.String) })),
      formOf(Schema.Struct({ id: Schema.String, name: Schema.optionalWith(Schema.String, { default: () => "" }) })),
      formOf(Schema.Struct({ id: Schema.String, name: Schema.Literal("a", "b") }))
    ]
    assert.strictEqual(new Set(forms).size, forms.length)
  })

  it("tells apart Schemas alike but for a refinement's id or their parse options", () => {
    assert.notStrictEqual(formOf(Schema.Struct({ a: Schema.Trim })), formOf(Schema.Struct({ a: Schema.Lowercase })))
    assert.notStrictEqual(
      formOf(Base),
      formOf(Base.annotations({ parseOptions: { onExcessProperty: "preserve" } }))
    )
  })

  it("describes a recursive Schema whole, whichever part is described first", () => {
    interface A {
      readonly b: ReadonlyArray<B>
    }
    interface B {
      readonly a: ReadonlyArray<A>
      readonly n: number
    }
    const make = (n: Schema.Schema<number>) => {
      const A: Schema.Schema<A> = Schema.Struct({ b: Schema.Array(Schema.suspend((): Schema.Schema<B> => B)) })
      const B: Schema.Schema<B> = Schema.Struct({ a: Schema.Array(Schema.suspend((): Schema.Schema<A> => A)), n })
      return { A, B }
    }
    const first = make(Schema.Number)
    const second = make(Schema.Number)
    formOf(second.B)
    assert.strictEqual(formOf(first.A), formOf(second.A))
    // a change to the part reached only through the recursion changes the form
    assert.notStrictEqual(formOf(first.A), formOf(make(Schema.String as any).A))
  })

  for (const [name, schema] of answeredAsStored) {
    it(`${name}: encoding a decoded stored document gives back the stored text`, () => {
      const encode = Schema.encodeSync(schema)
      const decode = Schema.decodeUnknownSync(schema)
      FastCheck.assert(
        FastCheck.property(Arbitrary.make(schema), (value) => {
          const stored = JSON.stringify(encode(value))
          assert.strictEqual(JSON.stringify(encode(decode(JSON.parse(stored)))), stored)
        }),
        { numRuns: 200 }
      )
    })
  }
})

/** The response of `GET path` as its status and exact text. */
const getText = (path: string, key: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.get(path).pipe(HttpClientRequest.setHeader("x-api-key", key)))
    return { status: response.status, contentType: response.headers["content-type"], text: yield* response.text }
  }).pipe(Effect.scoped, Effect.orDie)

layer(TestServerLive)("reads by id of stored documents", (it) => {
  it.effect("a row in today's form is answered as stored; a row in another form is decoded and encoded again", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { accountId, client, key } = yield* provision()
      const created = yield* client.modelGroups.create({ payload: { name: "g", account_id: accountId, description: "d" } })
      const path = `/v4/model-groups/${created.id}`
      const canonical = JSON.stringify(Schema.encodeSync(ModelGroup)(created))

      const [row] = yield* sql<{ form: string | null }>`SELECT form FROM model_groups WHERE id = ${created.id}`
      assert.strictEqual(row!.form, formOf(ModelGroup))
      assert.deepStrictEqual(yield* getText(path, key), { status: 200, contentType: "application/json", text: canonical })

      // the same document with its keys in another order and spaced: the text of the row is answered
      // when the row says today's form, and today's encoding of it when the row says another form
      const { id, ...rest } = JSON.parse(canonical)
      const reordered = JSON.stringify({ ...rest, id }, null, 1)
      yield* sql`UPDATE model_groups SET doc = ${reordered} WHERE id = ${created.id}`
      assert.strictEqual((yield* getText(path, key)).text, reordered)
      yield* sql`UPDATE model_groups SET form = ${"an older one"} WHERE id = ${created.id}`
      assert.strictEqual((yield* getText(path, key)).text, canonical)
      yield* sql`UPDATE model_groups SET form = NULL WHERE id = ${created.id}`
      assert.strictEqual((yield* getText(path, key)).text, canonical)

      // the typed client reads either answer as the group created
      assert.deepStrictEqual(yield* client.modelGroups.get({ path: { model_group_id: created.id } }), created)

      // another account's row and an unknown id: 404, as before
      const other = yield* provision()
      assert.strictEqual((yield* getText(path, other.key)).status, 404)
      assert.strictEqual((yield* getText(`/v4/model-groups/${crypto.randomUUID()}`, key)).status, 404)
    }))

  it.effect("list pages splice each document's text into the encoded envelope, stored or re-encoded", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { accountId, client, key } = yield* provision()
      const groups = [] as Array<ModelGroup>
      for (const name of ["a", "b", "c"]) {
        groups.push(yield* client.modelGroups.create({ payload: { name, account_id: accountId } }))
      }
      const pageText = (path: string) => Effect.map(getText(path, key), (response) => response.text)
      const encodePage = Schema.encodeSync(V4Page(ModelGroup))
      const first = yield* client.modelGroups.list({ urlParams: {} })
      assert.strictEqual(first.items.length, 3)
      assert.strictEqual(yield* pageText("/v4/model-groups"), JSON.stringify(encodePage(first)))

      // one row's text reordered in today's form (answered as stored), another in an older form
      // (answered as today's encoding): both inside the same envelope
      const reorder = (group: ModelGroup) => {
        const { id, ...rest } = Schema.encodeSync(ModelGroup)(group)
        return JSON.stringify({ ...rest, id })
      }
      yield* sql`UPDATE model_groups SET doc = ${reorder(groups[0]!)} WHERE id = ${groups[0]!.id}`
      yield* sql`UPDATE model_groups SET doc = ${reorder(groups[1]!)}, form = NULL WHERE id = ${groups[1]!.id}`
      const canonical = JSON.stringify(encodePage(first))
      const expected = canonical.replace(JSON.stringify(Schema.encodeSync(ModelGroup)(groups[0]!)), reorder(groups[0]!))
      assert.notStrictEqual(expected, canonical)
      assert.strictEqual(yield* pageText("/v4/model-groups"), expected)
      assert.deepStrictEqual(yield* client.modelGroups.list({ urlParams: {} }), first)

      // an empty page, and a page past the end, keep the envelope
      assert.strictEqual(
        yield* pageText("/v4/model-groups?page=9&limit=2"),
        JSON.stringify({ items: [], total_item_count: 3, current_page: 9, items_per_page: 2 })
      )
    }))

  it.effect("a v5 cursor page is the encoded envelope around the stored texts, in both directions", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      for (const build_id of ["b1", "b2", "b3"]) yield* client.agentRuntime.create({ payload: { build_id } })
      const encodeList = Schema.encodeSync(V5List(AgentRuntimeDeployment))
      // their lifecycles settled first (READY), so that every read below sees the same documents
      const listed = client.agentRuntime.list({ urlParams: {} })
      const settled = yield* eventually(Effect.map(listed, Option.liftPredicate((page) => page.items.every((item) => item.status === "READY"))), 5_000)
      const all = Option.isSome(settled) ? settled.value : yield* listed
      assert.strictEqual(all.items.length, 3)
      assert.strictEqual((yield* getText("/v5/agent-runtime/deployments", key)).text, JSON.stringify(encodeList(all)))
      const after = yield* client.agentRuntime.list({ urlParams: { limit: 1, starting_after: all.items[0]!.id } })
      const afterText = (yield* getText(`/v5/agent-runtime/deployments?limit=1&starting_after=${all.items[0]!.id}`, key)).text
      assert.strictEqual(afterText, JSON.stringify(encodeList(after)))
      assert.isTrue(after.has_more)
      const before = yield* client.agentRuntime.list({ urlParams: { limit: 2, ending_before: all.items[2]!.id } })
      assert.deepStrictEqual(before.items.map((item) => item.id), [all.items[0]!.id, all.items[1]!.id])
      const beforeText = (yield* getText(`/v5/agent-runtime/deployments?limit=2&ending_before=${all.items[2]!.id}`, key)).text
      assert.strictEqual(beforeText, JSON.stringify(encodeList(before)))
    }))
})

describe("document forms on an upgraded SQLite file", () => {
  it.effect("migration 0019 adds the form column; rows written before it are answered by today's encoding", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrateUpTo(18)
      // the tables as a release before 0019 made them: `documentTable` declares `form` since
      const tables = (yield* sql<{ name: string }>`SELECT m.name FROM sqlite_master m
        WHERE m.type = 'table' AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name = 'form')`).map((row) => row.name)
      assert.strictEqual(tables.length, 24)
      for (const table of tables) yield* sql.unsafe(`ALTER TABLE ${table} DROP COLUMN form`)
      const group = new ModelGroup({
        id: "m1",
        name: "before",
        description: null,
        account_id: "a",
        created_by_user_id: "u",
        created_by_identity_type: "user",
        created_at: "2026-01-01T00:00:00.000Z"
      })
      const canonical = JSON.stringify(Schema.encodeSync(ModelGroup)(group))
      const { id, ...rest } = JSON.parse(canonical)
      yield* sql`INSERT INTO model_groups ${
        sql.insert({ id: "m1", account_id: "a", created_at: group.created_at, doc: JSON.stringify({ ...rest, id }) })
      }`
      yield* migrateAll
      for (const table of tables) assert.isTrue(yield* hasColumn(table, "form"), table)

      const [row] = yield* sql<{ form: string | null }>`SELECT form FROM model_groups WHERE id = 'm1'`
      assert.isNull(row!.form)
      const repo = yield* Effect.provide(ModelGroupsRepo, ModelGroupsRepo.Default)
      assert.strictEqual(yield* repo.getText("m1", ["a"]), canonical)
      assert.deepStrictEqual(yield* repo.get("m1", ["a"]), group)

      // a row written since has today's form
      yield* repo.insert(new ModelGroup({ ...group, id: "m2" }))
      const [written] = yield* sql<{ form: string | null }>`SELECT form FROM model_groups WHERE id = 'm2'`
      assert.strictEqual(written!.form, formOf(ModelGroup))
    }).pipe(Effect.provide(Layer.fresh(SqliteClient.layer({ filename: ":memory:" })))))
})
