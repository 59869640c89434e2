/**
 * Concurrency through the real HTTP server: many creates at once on a SQLite file all succeed (no
 * SQLITE_BUSY surfacing as a 500), and concurrent PATCHes of one entity apply one after the other:
 * each ends in a state one PATCH wrote, whole, and no PATCH starts from a state another has
 * already replaced (no lost update).
 */
import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { Array as Arr, Effect, Redacted } from "effect"
import { provision, TestServerLive } from "../src/testing.js"
import { fileServer } from "./support/fileServer.js"
import { cleanup, tempDir } from "./support/processes.js"
import { assertSerial, assertSerialNameAndTags, writer } from "./support/serial.js"

const range = (n: number) => Arr.makeBy(n, (i) => i)

describe("200 parallel creates on a SQLite file", () => {
  it.live("all 200 answer 200, and 200 rows are stored, each as answered", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("creates")), (dir) => Effect.sync(() => cleanup(dir)))
      const program = Effect.gen(function*() {
        const { client } = yield* provision()
        const created = yield* Effect.forEach(
          range(200),
          (i) => client.evaluations.create({ payload: { name: `parallel ${i}`, tags: [`t${i % 7}`] }, urlParams: {} }),
          { concurrency: 200 }
        )
        assert.strictEqual(created.length, 200)
        assert.strictEqual(new Set(created.map((e) => e.id)).size, 200)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM evaluations`
        assert.strictEqual(Number(rows[0]!.n), 200)
        const listed = yield* client.evaluations.list({ urlParams: { limit: 1000 } })
        assert.strictEqual(listed.total, 200)
        const byId = new Map(listed.items.map((e) => [e.id, e]))
        for (const evaluation of created) assert.deepStrictEqual(byId.get(evaluation.id), evaluation)
      })
      yield* program.pipe(Effect.provide(fileServer(`sqlite:${dir}/platform.db`)))
    }).pipe(Effect.scoped), 120_000)
})

/** How many PATCHes of one entity race each other. */
const racers = 24

layer(TestServerLive)("parallel PATCHes of one entity", (it) => {
  it.effect("evaluations: every PATCH applies whole, one after the other, none lost; the tag index agrees", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const start = yield* client.evaluations.create({
        payload: { name: "start", description: "start", tags: ["start"], metadata: { writer: "start" } },
        urlParams: {}
      })
      const path = { evaluation_id: start.id }
      // even PATCHes write name + description, odd ones tags + metadata: a mix of two PATCHes
      // would show in a pair, and a PATCH that started from a replaced state breaks the chain
      const answers = yield* Effect.forEach(
        range(racers),
        (i) =>
          client.evaluations.update({
            path,
            payload: i % 2 === 0
              ? { name: `name ${i}`, description: `description ${i}` }
              : { tags: [`tag-${i}`], metadata: { writer: String(i) } },
            urlParams: {}
          }),
        { concurrency: "unbounded" }
      )
      for (const answer of [...answers, yield* client.evaluations.get({ path, urlParams: {} })]) {
        assert.strictEqual(writer(answer.description), writer(answer.name))
        assert.strictEqual((answer.metadata as { writer: string }).writer, writer(answer.tags[0]))
      }
      const final = yield* client.evaluations.get({ path, urlParams: {} })
      assertSerialNameAndTags(answers, final)
      // the tag index was rewritten with the document, in the same transaction
      const byFinalTag = yield* client.evaluations.list({ urlParams: { tags: final.tags } })
      assert.deepStrictEqual(byFinalTag.items.map((e) => e.id), [start.id])
      const byOldTag = yield* client.evaluations.list({ urlParams: { tags: ["start"] } })
      assert.strictEqual(byOldTag.total, 0)
    }))

  it.effect("evaluation dashboards: every PATCH applies whole, one after the other, none lost", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const start = yield* client.evaluationDashboards.create({
        payload: { name: "start", description: "start", tags: ["start"] }
      })
      const path = { dashboard_id: start.id }
      const answers = yield* Effect.forEach(
        range(racers),
        (i) =>
          client.evaluationDashboards.update({
            path,
            payload: i % 2 === 0 ? { name: `name ${i}`, description: `description ${i}` } : { tags: [`tag-${i}`] }
          }),
        { concurrency: "unbounded" }
      )
      const final = yield* client.evaluationDashboards.get({ path, urlParams: {} })
      for (const answer of [...answers, final]) assert.strictEqual(writer(answer.description), writer(answer.name))
      assertSerialNameAndTags(answers, final)
      const byOldTag = yield* client.evaluationDashboards.list({ urlParams: { tags: ["start"] } })
      assert.strictEqual(byOldTag.total, 0)
    }))

  it.effect("credentials: every PATCH applies whole, one after the other, none lost; the secret is the last one written", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const start = yield* client.credentials.create({
        payload: { name: "start", type: "start", payload: Redacted.make("start"), description: "start" }
      })
      const path = { credential_id: start.id }
      const answers = yield* Effect.forEach(
        range(racers),
        (i) =>
          client.credentials.update({
            path,
            payload: i % 2 === 0
              ? { description: `description ${i}`, type: `type-${i}` }
              : { credential_metadata: { writer: String(i) }, payload: Redacted.make(`secret-${i}`) }
          }),
        { concurrency: "unbounded" }
      )
      const metadataWriter = (metadata: unknown) => writer((metadata as { writer?: string } | null)?.writer)
      const final = yield* client.credentials.get({ path })
      for (const answer of [...answers, final]) assert.strictEqual(writer(answer.type), writer(answer.description))
      assertSerial(
        answers.map((answer, i) =>
          i % 2 === 0
            ? { kind: "a", own: writer(answer.description), seen: metadataWriter(answer.credential_metadata) }
            : { kind: "b", own: metadataWriter(answer.credential_metadata), seen: writer(answer.description) }
        ),
        { a: writer(final.description), b: metadataWriter(final.credential_metadata) }
      )
      // the secret was written with the metadata, by the same PATCH
      const secret = yield* client.credentials.secret({ path })
      assert.strictEqual(Redacted.value(secret.result), `secret-${metadataWriter(final.credential_metadata)}`)
    }))
})
