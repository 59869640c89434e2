/**
 * Several server instances on one PostgreSQL database (docs/postgresql.md "Running N instances"):
 * two real server processes (`src/bin.ts` bundled, as `npm start` runs it) on one fresh,
 * empty schema of the database of DATABASE_URL, started at the same moment.
 *
 * - With no key configured, exactly one of them creates and prints the first-start account and
 *   key; the database holds one account and one key, and that key works on both.
 * - With the key configured on both, both start (the migrations and the key's registration are
 *   not run twice), then concurrent creates and event appends go through both: every answer is
 *   200, every read through either instance sees the same rows, each task's event sequence is
 *   1..N without a gap or a repeat, and an `Idempotency-Key` used on one instance is replayed by
 *   the other; a task's stream on one instance shows the messages written through the other.
 *
 * Runs under `npm run test:pg` only (the `processes-pg` project of vitest.config.ts).
 */
import { FetchHttpClient } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { type Client, makeClient } from "@platform-kit/client"
import type { TaskEvent } from "@platform-kit/schema"
import { Array as Arr, Effect, Order } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import * as Pg from "pg"
import { withSearchPath } from "../../src/testDatabase.js"
import { type ServerProcess, serverAccount, serverKey, startServer } from "../support/processes.js"
import { assertSendsSerialAcrossProcesses } from "../support/agentSends.js"
import { assertStreamAcrossProcesses } from "../support/taskStreams.js"

const baseUrl = process.env.DATABASE_URL ?? ""
const onPostgres = /^postgres(ql)?:\/\//.test(baseUrl)

/** Every instance on one database seals credential secrets with the same key. */
const secretKey = "11".repeat(32)

const range = (n: number) => Arr.makeBy(n, (i) => i)

/** A pool on the database of DATABASE_URL, closed with the scope. */
const adminPool = Effect.acquireRelease(
  Effect.sync(() => new Pg.Pool({ connectionString: baseUrl, max: 2 })),
  (pool) => Effect.promise(() => pool.end())
)

/** A new, empty schema (dropped with the scope) and the URL whose connections use it. */
const emptySchema = (pool: Pg.Pool) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const schema = `multi_${randomBytes(6).toString("hex")}`
      await pool.query(`CREATE SCHEMA ${schema}`)
      return schema
    }),
    (schema) => Effect.promise(() => pool.query(`DROP SCHEMA ${schema} CASCADE`))
  ).pipe(Effect.map((schema) => ({ schema, url: withSearchPath(baseUrl, schema) })))

/** Counts rows of `table` in `schema`. */
const count = (pool: Pg.Pool, schema: string, table: string) =>
  Effect.promise(() => pool.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${schema}.${table}`)).pipe(
    Effect.map((result) => Number(result.rows[0]!.n))
  )

/** Two servers on `url`, started at the same moment; stopped (SIGTERM) with the scope. */
const startTwo = (url: string, env: Record<string, string | undefined>) =>
  Effect.all(
    [0, 1].map(() =>
      Effect.acquireRelease(
        Effect.promise(() => startServer({ databaseUrl: url, env: { PLATFORM_SECRET_KEY: secretKey, ...env } })),
        (server: ServerProcess) => Effect.promise(() => server.stop("SIGTERM"))
      )
    ),
    { concurrency: "unbounded" }
  )

/** A raw request to one server, for what the typed client does not show (headers, status). */
const call = (server: ServerProcess, method: string, path: string, key: string, options: {
  readonly body?: unknown
  readonly headers?: Record<string, string>
} = {}) =>
  Effect.promise(async () => {
    const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
      method,
      headers: { "x-api-key": key, "content-type": "application/json", ...options.headers },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
    })
    const text = await response.text()
    return { status: response.status, body: text.length > 0 ? JSON.parse(text) : undefined }
  })

const bySequence = Order.mapInput(Order.number, (event: TaskEvent) => event.sequence_id)

describe.skipIf(!onPostgres)("several instances on one PostgreSQL database", () => {
  it.live("two instances starting at once on an empty database: one first-start account and key, valid on both", () =>
    Effect.gen(function*() {
      const pool = yield* adminPool
      const { schema, url } = yield* emptySchema(pool)
      const servers = yield* startTwo(url, { PLATFORM_API_KEY: undefined, PLATFORM_ACCOUNT_ID: undefined })

      const printed = servers.flatMap((server) => [...server.output().matchAll(/api key: (pk_\S+)/g)].map((m) => m[1]!))
      assert.strictEqual(printed.length, 1, servers.map((server) => server.output()).join("\n---\n"))
      assert.strictEqual(yield* count(pool, schema, "accounts"), 1)
      assert.strictEqual(yield* count(pool, schema, "identities"), 1)
      assert.strictEqual(yield* count(pool, schema, "api_keys"), 1)
      for (const server of servers) {
        const answer = yield* call(server, "GET", "/v5/evaluations", printed[0]!)
        assert.strictEqual(answer.status, 200)
      }
    }).pipe(Effect.scoped))

  it.live("concurrent creates and event appends through both: both read the same rows, each task's sequence is 1..N", () =>
    Effect.gen(function*() {
      const pool = yield* adminPool
      const { schema, url } = yield* emptySchema(pool)
      // the configured key on both: registered once, not twice (nor a failed start)
      const [a, b] = yield* startTwo(url, {})
      assert.strictEqual(yield* count(pool, schema, "api_keys"), 1)
      assert.strictEqual(yield* count(pool, schema, "accounts"), 1)
      const servers = [a!, b!]
      const clients: ReadonlyArray<Client> = yield* Effect.all(servers.map((server) =>
        makeClient({ apiKey: serverKey, baseUrl: `http://127.0.0.1:${server.port}` })
      ))
      const via = (i: number) => clients[i % 2]!

      // creates, split between the instances, all at once
      const created = yield* Effect.forEach(
        range(120),
        (i) => via(i).evaluations.create({ payload: { name: `parallel ${i}`, tags: [`t${i % 3}`] }, urlParams: {} }),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(new Set(created.map((evaluation) => evaluation.id)).size, 120)

      // event appends: 4 tasks × 2 agents, 60 appends per task, every one racing through both
      const tasks = range(4).map(() => randomUUID())
      const agents = range(2).map(() => randomUUID())
      const perTask = 60
      const appended = yield* Effect.forEach(
        range(tasks.length * perTask),
        (i) =>
          via(i).events.append({
            payload: {
              task_id: tasks[i % tasks.length]!,
              agent_id: agents[Math.floor(i / tasks.length) % agents.length]!,
              content: { type: "text", content: `message ${i}` }
            }
          }),
        { concurrency: "unbounded" }
      )
      const expected = range(perTask).map((i) => i + 1)
      for (const task of tasks) {
        const sequences = appended.filter((event) => event.task_id === task).map((event) => event.sequence_id)
        assert.deepStrictEqual([...sequences].sort((x, y) => x - y), expected, `answers of task ${task}`)
      }

      // a task's stream on one instance shows what is written through the other
      yield* assertStreamAcrossProcesses(via(1), `http://127.0.0.1:${a!.port}`, "across-pg")
      // message/send to one task through every instance reaches its agent one at a time
      yield* assertSendsSerialAcrossProcesses(clients, "serial-pg")

      // every read, through either instance, sees the same rows
      const byId = new Map(appended.map((event) => [event.id, event]))
      for (const client of clients) {
        const listed = yield* client.evaluations.list({ urlParams: { limit: 1000 } })
        assert.strictEqual(listed.total, 120)
        const listedById = new Map(listed.items.map((evaluation) => [evaluation.id, evaluation]))
        for (const evaluation of created) assert.deepStrictEqual(listedById.get(evaluation.id), evaluation)

        for (const task of tasks) {
          const streams = yield* Effect.forEach(agents, (agent) =>
            client.events.list({ urlParams: { task_id: task, agent_id: agent, limit: 1000 } }))
          const events = Arr.sort(streams.flat(), bySequence)
          assert.deepStrictEqual(events.map((event) => event.sequence_id), expected, `stream of task ${task}`)
          for (const event of events) assert.deepStrictEqual(event, byId.get(event.id))
        }
      }
      const gotBack = yield* Effect.forEach(
        appended,
        (event, i) => via(i + 1).events.get({ path: { event_id: event.id } }),
        { concurrency: 20 }
      )
      assert.deepStrictEqual(gotBack, appended)

      // what the database holds: per task, 1..N once each
      const stored = yield* Effect.promise(() =>
        pool.query<{ task_id: string; n: string; distinct_ids: string; low: number; high: number }>(
          `SELECT task_id, COUNT(*) AS n, COUNT(DISTINCT sequence_id) AS distinct_ids,
            MIN(sequence_id) AS low, MAX(sequence_id) AS high
           FROM ${schema}.events WHERE account_id = $1 GROUP BY task_id ORDER BY task_id`,
          [serverAccount]
        )
      )
      assert.deepStrictEqual(
        stored.rows.map((row) => [row.task_id, Number(row.n), Number(row.distinct_ids), Number(row.low), Number(row.high)]),
        [...tasks].sort().map((task) => [task, perTask, perTask, 1, perTask])
      )

      // an Idempotency-Key used on one instance is replayed by the other
      const body = { name: "once", tags: [] }
      const headers = { "idempotency-key": `multi-${randomUUID()}` }
      const first = yield* call(a!, "POST", "/v5/evaluations", serverKey, { body, headers })
      const again = yield* call(b!, "POST", "/v5/evaluations", serverKey, { body, headers })
      assert.strictEqual(first.status, 200)
      assert.strictEqual(again.status, 200)
      assert.deepStrictEqual(again.body, first.body)
      assert.strictEqual((yield* via(1).evaluations.list({ urlParams: { limit: 1000 } })).total, 121)

      for (const server of servers) assert.notInclude(server.output(), "request failed")
    }).pipe(Effect.provide(FetchHttpClient.layer), Effect.scoped))
})
