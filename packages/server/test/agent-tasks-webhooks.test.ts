/**
 * Webhook triggers (docs/agent-tasks.md "Webhook triggers"): a trigger's key (sealed, answered
 * once, one per agent, name and source); the forward route's checks in agentex's order (Slack's
 * challenge, agent keys, GitHub's and Slack's signatures computed here with node:crypto); the
 * delivery forwarded to an agent of the test's own on 127.0.0.1 (raw body, headers, answer as it
 * is); another account's agent of the same name; every attempt recorded, a failed delivery
 * retried on the engine.
 */
import { assert, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option, TestClock } from "effect"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { eventually, issues, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

interface Received {
  readonly method: string
  readonly url: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: Buffer
}

/**
 * An agent's server: keeps every request; answers the first `failures` with 503, then 201 with a
 * header and a body of its own.
 */
const agentServer = (failures = 0) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly received: Array<Received>; readonly server: Http.Server }>((resume) => {
      const received: Array<Received> = []
      const server = Http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) })
          if (received.length <= failures) {
            res.writeHead(503, { "content-type": "text/plain" })
            res.end("busy")
            return
          }
          res.writeHead(201, { "content-type": "application/json", "x-agent": "seen" })
          res.end(JSON.stringify({ handled: received.length }))
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server })))
    }),
    ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  )

const register = (caller: Caller, name: string, acpUrl: string) =>
  caller.client.agents.register({ payload: { name, description: "hooks", acp_url: acpUrl, acp_type: "async" } })

const trigger = (caller: Caller, body: Record<string, unknown>) => request("POST", "/agent_api_keys/webhook-trigger", { key: caller.key, body })

const hmac = (secret: string, text: string) => Crypto.createHmac("sha256", secret).update(text).digest("hex")

/** A GitHub delivery of `payload` signed with `secret`, to `path` under the agent's forward route. */
const github = (agent: string, path: string, payload: string, secret: string) =>
  request("POST", `/agents/forward/name/${agent}/${path}`, {
    body: payload,
    headers: { "x-hub-signature-256": `sha256=${hmac(secret, payload)}`, "x-github-event": "pull_request" }
  })

/** The deliveries of an agent, with their attempts, as stored. */
const deliveriesOf = (agentId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const deliveries = yield* sql<{ id: string; status: string; attempts: number; request_sealed: string | null; key_id: string | null }>`
      SELECT id, status, attempts, request_sealed, key_id FROM agent_webhook_deliveries WHERE agent_id = ${agentId} ORDER BY created_at`
    return yield* Effect.forEach(deliveries, (delivery) =>
      Effect.map(
        sql<{ attempt: number; status_code: number | null; latency_ms: number; error: string | null }>`
          SELECT attempt, status_code, latency_ms, error FROM agent_webhook_delivery_attempts WHERE delivery_id = ${delivery.id} ORDER BY attempt`,
        (attempts) => ({ ...delivery, attempts: Number(delivery.attempts), tries: attempts.map((a) => ({ ...a, attempt: Number(a.attempt), status_code: a.status_code === null ? null : Number(a.status_code) })) })
      ))
  }).pipe(Effect.orDie)

layer(TestServerLive, { timeout: 60_000 })("agentex webhook triggers", (it) => {
  it.effect("a trigger: its key sealed and answered once, its URL; agentex's refusals", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const agent = yield* register(caller, "hooked", "http://127.0.0.1:9")
      const made = yield* trigger(caller, { agent_name: "hooked", forward_path: "/github-pr/config 1", name: "org/repo" })
      assert.strictEqual(made.status, 200, JSON.stringify(made.body))
      assert.match(made.body.key_id, uuid)
      assert.match(made.body.secret, /^[0-9a-f]{64}$/)
      assert.deepStrictEqual({ ...made.body, key_id: "", secret: "" }, {
        agent_name: "hooked",
        key_id: "",
        name: "org/repo",
        secret: "",
        source: "github",
        webhook_path: "/agents/forward/name/hooked/github-pr/config%201",
        webhook_url: null
      })
      // sealed at rest: the secret is nowhere in the row
      const sql = yield* SqlClient.SqlClient
      const rows = yield* Effect.orDie(sql<Record<string, unknown>>`SELECT * FROM agent_webhook_keys WHERE id = ${made.body.key_id}`)
      assert.strictEqual(rows.length, 1)
      assert.strictEqual(rows[0]!.agent_id, agent.id)
      assert.notInclude(JSON.stringify(rows), made.body.secret)

      const slack = yield* trigger(caller, { agent_name: "hooked", forward_path: "slack", name: "A123", source: "slack", secret: "s3cret", base_url: "https://hooks.example/" })
      assert.deepStrictEqual([slack.body.secret, slack.body.source, slack.body.webhook_url], ["s3cret", "slack", "https://hooks.example/agents/forward/name/hooked/slack"])

      // the same agent, name and source again: 409 with agentex's message
      const again = yield* trigger(caller, { agent_name: "hooked", forward_path: "x", name: "org/repo", source: "github", secret: "other" })
      assert.strictEqual(again.status, 409)
      assert.deepStrictEqual(again.body, { detail: "A github webhook key named 'org/repo' already exists for this agent." })
      // agentex's 400s are the kit's 422s; an unknown agent is a 404
      const refusals = [
        [{ agent_name: "hooked", forward_path: "x", name: "n", source: "internal" }, ["body", "source"]],
        [{ agent_name: "hooked", forward_path: "x", name: "n", source: "slack" }, ["body", "secret"]],
        [{ agent_name: "hooked", forward_path: "a\u0007b", name: "n" }, ["body", "forward_path"]]
      ] as const
      for (const [body, loc] of refusals) {
        const refused = yield* trigger(caller, body)
        assert.strictEqual(refused.status, 422, JSON.stringify(body))
        assert.deepStrictEqual(issues(refused).map((issue: any) => issue.loc), [loc])
      }
      assert.strictEqual((yield* trigger(caller, { agent_name: "nobody", forward_path: "x", name: "n" })).status, 404)
      // another account's agent of that name is not the caller's
      const other = yield* provision()
      assert.strictEqual((yield* trigger(other, { agent_name: "hooked", forward_path: "x", name: "n" })).status, 404)
    }))

  it.scoped("a GitHub delivery is verified and forwarded as it came; the agent's answer comes back as it is", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const server = yield* agentServer()
      const agent = yield* register(caller, "gh-agent", server.url)
      const made = yield* trigger(caller, { agent_name: "gh-agent", forward_path: "github-pr/cfg", name: "org/repo" })
      const secret: string = made.body.secret
      const payload = `{"action":"opened",  "repository":{"full_name":"org/repo"},"number":7}`

      const delivered = yield* github("gh-agent", "github-pr/cfg?source=gh&x=1", payload, secret)
      assert.strictEqual(delivered.status, 201)
      assert.deepStrictEqual(delivered.body, { handled: 1 })
      assert.strictEqual(delivered.headers["x-agent"], "seen")
      assert.strictEqual(server.received.length, 1)
      const seen = server.received[0]!
      assert.deepStrictEqual([seen.method, seen.url, seen.body.toString("utf8")], ["POST", "/github-pr/cfg?source=gh&x=1", payload])
      assert.strictEqual(seen.headers["x-hub-signature-256"], `sha256=${hmac(secret, payload)}`)
      assert.strictEqual(seen.headers["x-github-event"], "pull_request")
      const [recorded] = yield* deliveriesOf(agent.id)
      assert.deepStrictEqual([recorded!.status, recorded!.attempts, recorded!.request_sealed, recorded!.key_id], ["succeeded", 1, null, made.body.key_id])
      assert.deepStrictEqual(recorded!.tries.map((a) => [a.attempt, a.status_code, a.error]), [[1, 201, null]])

      // refused, in agentex's order and words; the agent never called
      const signedWith = (text: string) => ({ "x-hub-signature-256": `sha256=${hmac(secret, text)}` })
      const cases: ReadonlyArray<readonly [string, string, Record<string, string>, number, string]> = [
        ["nobody", payload, signedWith(payload), 404, "Agent nobody not found or has no ACP URL."],
        ["gh-agent", payload, { "x-hub-signature-256": `sha256=${hmac("wrong", payload)}` }, 401, "Invalid GitHub webhook signature"],
        ["gh-agent", `{"repository":{"full_name":"org/other"}}`, signedWith(`{"repository":{"full_name":"org/other"}}`), 404, "No GitHub webhook key named 'org/other' for agent gh-agent."],
        ["gh-agent", `{"action":"opened"}`, signedWith(`{"action":"opened"}`), 400, "A GitHub webhook payload needs repository.full_name."],
        ["gh-agent", payload, {}, 403, "Missing authentication for forward request."],
        ["gh-agent", payload, { "x-agent-api-key": "guess" }, 401, "Invalid agent API key."],
        ["gh-agent", payload, { authorization: "agentkey guess" }, 401, "Invalid agent API key."],
        // the kit's own API key does not open the route
        ["gh-agent", payload, { "x-api-key": caller.key }, 403, "Missing authentication for forward request."]
      ]
      for (const [name, body, headers, status, detail] of cases) {
        const refused = yield* request("POST", `/agents/forward/name/${name}/github-pr/cfg`, { body, headers })
        assert.deepStrictEqual([refused.status, refused.body], [status, { detail }], `${name} ${JSON.stringify(headers)}`)
      }
      // a GET is forwarded too (a signed empty object has no repository: 400 before the agent)
      const get = yield* request("GET", "/agents/forward/name/gh-agent/status", { headers: signedWith("") })
      assert.strictEqual(get.status, 400)
      assert.strictEqual(server.received.length, 1)
    }))

  it.scoped("Slack: the challenge first, then the v0 signature within 300 s", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const server = yield* agentServer()
      yield* register(caller, "slack-agent", server.url)
      yield* trigger(caller, { agent_name: "slack-agent", forward_path: "slack/events", name: "A42", source: "slack", secret: "signing" })
      // the server's clock (the test's): the window is checked against it
      const now = String(Math.floor((yield* Clock.currentTimeMillis) / 1000) + 1000)
      yield* TestClock.adjust("1000 seconds")

      // URL verification: answered before any signature, as text
      const challenge = yield* request("POST", "/agents/forward/name/slack-agent/slack/events", {
        body: `{"type":"url_verification","challenge":"c-123"}`,
        headers: { "x-slack-request-timestamp": now }
      })
      assert.deepStrictEqual([challenge.status, challenge.body], [200, "c-123"])
      assert.match(challenge.headers["content-type"]!, /^text\/plain/)
      const notJson = yield* request("POST", "/agents/forward/name/slack-agent/slack/events", { body: "nope", headers: { "x-slack-request-timestamp": now } })
      assert.deepStrictEqual([notJson.status, notJson.body], [400, { detail: "The request body is not JSON." }])

      const event = `{"api_app_id":"A42","event":{"type":"app_mention","text":"hi"}}`
      const signed = (ts: string, secret = "signing") => ({
        "x-slack-request-timestamp": ts,
        "x-slack-signature": `v0=${hmac(secret, `v0:${ts}:${event}`)}`
      })
      const delivered = yield* request("POST", "/agents/forward/name/slack-agent/slack/events", { body: event, headers: signed(now) })
      assert.strictEqual(delivered.status, 201)
      assert.strictEqual(server.received[0]!.body.toString("utf8"), event)
      assert.strictEqual(server.received[0]!.url, "/slack/events")

      const stale = String(Number(now) - 301)
      const cases: ReadonlyArray<readonly [Record<string, string>, number, string]> = [
        [signed(stale), 400, "Slack webhook request has bad timestamp."],
        [{ ...signed(now), "x-slack-request-timestamp": "soon" }, 400, "Slack webhook request has bad timestamp."],
        [{ "x-slack-signature": signed(now)["x-slack-signature"] }, 401, "Missing X-Slack-Request-Timestamp."],
        [signed(now, "wrong"), 401, "Invalid Slack webhook signature"]
      ]
      for (const [headers, status, detail] of cases) {
        const refused = yield* request("POST", "/agents/forward/name/slack-agent/slack/events", { body: event, headers })
        assert.deepStrictEqual([refused.status, refused.body], [status, { detail }], JSON.stringify(headers))
      }
      assert.strictEqual(server.received.length, 1)
    }))

  it.scoped("two accounts' agents of one name: a delivery reaches the agent whose key signed it, and no other", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const aliceServer = yield* agentServer()
      const bobServer = yield* agentServer()
      yield* register(alice, "twin", aliceServer.url)
      yield* register(bob, "twin", bobServer.url)
      const aliceSecret: string = (yield* trigger(alice, { agent_name: "twin", forward_path: "gh", name: "org/repo" })).body.secret
      const bobSecret: string = (yield* trigger(bob, { agent_name: "twin", forward_path: "gh", name: "org/repo" })).body.secret
      const payload = `{"repository":{"full_name":"org/repo"}}`
      assert.strictEqual((yield* github("twin", "gh", payload, bobSecret)).status, 201)
      assert.deepStrictEqual([aliceServer.received.length, bobServer.received.length], [0, 1])
      assert.strictEqual((yield* github("twin", "gh", payload, aliceSecret)).status, 201)
      assert.deepStrictEqual([aliceServer.received.length, bobServer.received.length], [1, 1])
      // a secret of neither: 401, nobody called
      assert.strictEqual((yield* github("twin", "gh", payload, "forged")).status, 401)
      assert.deepStrictEqual([aliceServer.received.length, bobServer.received.length], [1, 1])
    }))

  it.scoped("a failing agent: its answer passed on, every attempt recorded, the delivery retried on the engine until it is taken", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const server = yield* agentServer(2)
      const agent = yield* register(caller, "flaky", server.url)
      const secret: string = (yield* trigger(caller, { agent_name: "flaky", forward_path: "gh", name: "org/repo" })).body.secret
      const payload = `{"repository":{"full_name":"org/repo"},"n":1}`
      const first = yield* github("flaky", "gh", payload, secret)
      assert.deepStrictEqual([first.status, first.body], [503, "busy"])
      const [retrying] = yield* deliveriesOf(agent.id)
      assert.strictEqual(retrying!.status, "retrying")
      assert.isString(retrying!.request_sealed)
      assert.notInclude(retrying!.request_sealed!, "org/repo")

      // attempt 2 after 1 s (503 again), attempt 3 after 2 s more: taken
      const done = yield* eventually(Effect.map(deliveriesOf(agent.id), (rows) => Option.liftPredicate(rows[0]!, (row) => row.status !== "retrying")), 15_000)
      const ended = Option.getOrThrow(done)
      assert.deepStrictEqual([ended.status, ended.attempts, ended.request_sealed], ["succeeded", 3, null])
      assert.deepStrictEqual(ended.tries.map((a) => [a.attempt, a.status_code, a.error]), [
        [1, 503, "The agent answered 503"],
        [2, 503, "The agent answered 503"],
        [3, 201, null]
      ])
      for (const a of ended.tries) assert.isAtLeast(a.latency_ms, 0)
      assert.strictEqual(server.received.length, 3)
      for (const seen of server.received) {
        assert.deepStrictEqual([seen.url, seen.body.toString("utf8"), seen.headers["x-hub-signature-256"]], ["/gh", payload, `sha256=${hmac(secret, payload)}`])
      }
    }))

  it.scoped("an agent that cannot be reached: 502 to the sender, every attempt recorded with its error, given up after the fifth", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      // a port nobody listens on: a server closed at once
      const closed = yield* Effect.async<string>((resume) => {
        const server = Http.createServer()
        server.listen(0, "127.0.0.1", () => {
          const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
          server.close(() => resume(Effect.succeed(url)))
        })
      })
      const agent = yield* register(caller, "gone", closed)
      const secret: string = (yield* trigger(caller, { agent_name: "gone", forward_path: "gh", name: "org/repo" })).body.secret
      const answer = yield* github("gone", "gh", `{"repository":{"full_name":"org/repo"}}`, secret)
      assert.strictEqual(answer.status, 502)
      assert.match(answer.body.detail, /^The agent gone could not be reached: /)
      // retried 1, 2, 4 and 8 s apart, then given up: the sealed request dropped
      const givenUp = yield* eventually(Effect.map(deliveriesOf(agent.id), (rows) => Option.liftPredicate(rows[0]!, (row) => row.status !== "retrying")), 25_000)
      const row = Option.getOrThrow(givenUp)
      assert.deepStrictEqual([row.status, row.attempts, row.request_sealed], ["failed", 5, null])
      assert.deepStrictEqual(row.tries.map((a) => a.attempt), [1, 2, 3, 4, 5])
      for (const a of row.tries) {
        assert.isNull(a.status_code)
        assert.isString(a.error)
      }
    }))
})
