/**
 * Agent deployments and the deployment history (docs/agent-tasks.md "Deployments"): a deployment
 * made `Pending`, `Ready` once its ACP server registers naming it, previewed there, promoted to be
 * where the agent's RPC goes (logged when of a new commit), refused a delete while it is
 * production; promotes at once leave one production; an agent with no deployment called at its
 * registration's URL as before; other accounts' ids 404; a deployment id is its agent's own.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { issues, isoPattern as iso, provision, request, TestServerLive } from "../src/testing.js"
import { echoAgent } from "./support/echoAgent.js"

const deploymentKeys = [
  "acp_url",
  "agent_id",
  "created_at",
  "docker_image",
  "expires_at",
  "helm_release_name",
  "id",
  "is_production",
  "promoted_at",
  "registration_metadata",
  "sgp_deploy_id",
  "status"
]

const register = (key: string, name: string, acp_url: string, registration_metadata?: Record<string, unknown>) =>
  request("POST", "/agents/register", { key, body: { name, description: `${name} agent`, acp_url, acp_type: "sync", registration_metadata } })

const promote = (key: string, agentId: string, deploymentId: string) =>
  request("POST", `/agents/${agentId}/deployments/${deploymentId}/promote`, { key })

/** `message/send` through `path` (the agent's RPC or a deployment's preview): the agent's answer text. */
const say = (key: string, path: string, text: string) =>
  Effect.map(
    request("POST", path, { key, body: { method: "message/send", params: { content: { type: "text", author: "user", content: text } } } }),
    (response) => {
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.body.error, null, JSON.stringify(response.body))
      return response.body.result[0].content.content as string
    }
  )

layer(TestServerLive, { timeout: 60_000 })("agent deployments", (it) => {
  it.scoped("pending, ready at its registration, previewed, promoted (the agent's RPC goes there, the history says so), kept while production", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const [own, deployed] = [yield* echoAgent, yield* echoAgent]
      // an agent as registered before deployments: its RPC reaches its registration's URL
      const agent = (yield* register(key, "deployer", own.url, { agent_commit: "c1", branch_name: "main", author_name: "Ada" })).body
      assert.strictEqual(yield* say(key, `/agents/${agent.id}/rpc`, "one"), "You said: one")
      assert.strictEqual(own.seen.length, 1)

      yield* TestClock.adjust("1 second")
      const created = yield* request("POST", `/agents/${agent.id}/deployments`, {
        key,
        body: { docker_image: "registry.local/deployer:v2", registration_metadata: { commit_hash: "c2", branch_name: "feature", author_email: "ada@example.com" } }
      })
      assert.strictEqual(created.status, 200)
      const deployment = created.body
      assert.deepStrictEqual(Object.keys(deployment).sort(), deploymentKeys)
      assert.include(deployment, { agent_id: agent.id, status: "Pending", is_production: false, acp_url: null, expires_at: null, promoted_at: null, helm_release_name: null })
      assert.match(deployment.created_at, iso)
      const path = `/agents/${agent.id}/deployments/${deployment.id}`
      assert.deepStrictEqual((yield* request("GET", path, { key })).body, deployment)
      assert.deepStrictEqual((yield* request("GET", `/agents/${agent.id}/deployments`, { key })).body, [deployment])

      // not ready: no promote (agentex: 500), no preview (agentex: 400)
      const early = yield* request("POST", `${path}/promote`, { key })
      assert.strictEqual(early.status, 409)
      assert.strictEqual(early.body.detail, "Cannot promote deployment with status Pending. Deployment must be in Ready status.")
      const blind = yield* request("POST", `${path}/rpc`, { key, body: { method: "task/create", params: {} } })
      assert.strictEqual(blind.status, 409)
      assert.strictEqual(blind.body.detail, `Deployment ${deployment.id} does not have an ACP URL configured`)

      // its ACP server registers naming it: the deployment is ready there, the agent untouched
      yield* TestClock.adjust("1 second")
      const registered = yield* request("POST", "/agents/register", {
        key,
        body: { name: "deployer", description: "changed", acp_url: deployed.url, acp_type: "sync", registration_metadata: { deployment_id: deployment.id } }
      })
      assert.strictEqual(registered.status, 200)
      assert.strictEqual(registered.body.description, "deployer agent")
      assert.strictEqual(registered.body.updated_at, agent.updated_at)
      assert.strictEqual(registered.body.production_deployment_id, null)
      const ready = (yield* request("GET", path, { key })).body
      assert.include(ready, { status: "Ready", acp_url: deployed.url, is_production: false })

      // a preview reaches the deployment with the key its registration got; the agent's RPC does not move
      assert.strictEqual(yield* say(key, `${path}/rpc`, "two"), "You said: two")
      assert.deepStrictEqual(deployed.keys, [registered.body.agent_api_key])
      assert.strictEqual(yield* say(key, `/agents/${agent.id}/rpc`, "three"), "You said: three")
      assert.deepStrictEqual([own.seen.length, deployed.seen.length], [2, 1])

      // promote: production, the agent's route, a history entry
      yield* TestClock.adjust("1 second")
      const promoted = yield* request("POST", `${path}/promote`, { key })
      assert.strictEqual(promoted.status, 200)
      assert.include(promoted.body, { id: deployment.id, is_production: true, status: "Ready" })
      assert.match(promoted.body.promoted_at, iso)
      assert.strictEqual((yield* request("GET", `/agents/${agent.id}`, { key })).body.production_deployment_id, deployment.id)
      assert.strictEqual(yield* say(key, `/agents/${agent.id}/rpc`, "four"), "You said: four")
      assert.deepStrictEqual([own.seen.length, deployed.seen.length], [2, 2])

      const history = yield* request("GET", `/deployment-history?agent_id=${agent.id}`, { key })
      assert.strictEqual(history.status, 200)
      assert.deepStrictEqual(history.body.map((entry: any) => [entry.commit_hash, entry.branch_name, entry.author_name, entry.author_email]), [
        ["c2", "feature", "N/A", "ada@example.com"],
        ["c1", "main", "Ada", "N/A"]
      ])
      assert.strictEqual(history.body[0].deployment_timestamp, promoted.body.promoted_at)
      assert.strictEqual(history.body[1].deployment_timestamp, agent.registered_at)
      assert.deepStrictEqual((yield* request("GET", `/deployment-history/${history.body[0].id}`, { key })).body, history.body[0])
      assert.deepStrictEqual((yield* request("GET", "/deployment-history?agent_name=deployer&order_direction=asc", { key })).body, [...history.body].reverse())

      // the production deployment stays (agentex: 400); another one is soft-deleted
      const refused = yield* request("DELETE", path, { key })
      assert.strictEqual(refused.status, 409)
      assert.strictEqual(refused.body.detail, "Cannot delete the current production deployment. Promote a different deployment first.")
      assert.strictEqual((yield* request("GET", path, { key })).body.expires_at, null)
      const other = (yield* request("POST", `/agents/${agent.id}/deployments`, { key, body: { docker_image: "registry.local/deployer:v3" } })).body
      const removed = yield* request("DELETE", `/agents/${agent.id}/deployments/${other.id}`, { key })
      assert.deepStrictEqual(removed.body, { id: other.id, message: `Deployment '${other.id}' deleted successfully` })
      assert.match((yield* request("GET", `/agents/${agent.id}/deployments/${other.id}`, { key })).body.expires_at, iso)
      assert.deepStrictEqual((yield* request("GET", `/agents/${agent.id}/deployments`, { key })).body.map((d: any) => d.id), [deployment.id])
      assert.strictEqual((yield* request("POST", `/agents/${agent.id}/deployments/${other.id}/promote`, { key })).status, 404)

      // a registration naming no deployment makes the agent's own URL its route again
      yield* register(key, "deployer", own.url)
      assert.strictEqual((yield* request("GET", path, { key })).body.is_production, false)
      assert.strictEqual((yield* request("GET", `/agents/${agent.id}`, { key })).body.production_deployment_id, null)
      assert.strictEqual(yield* say(key, `/agents/${agent.id}/rpc`, "five"), "You said: five")
      assert.deepStrictEqual([own.seen.length, deployed.seen.length], [3, 2])
    }))

  it.scoped("a registration naming a new deployment id makes it, ready; the history is written for a new commit only", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const server = yield* echoAgent
      const agent = (yield* register(key, "fresh", server.url, { agent_commit: "c1", branch_name: "main" })).body
      // the same commit again: no entry
      yield* register(key, "fresh", server.url, { agent_commit: "c1", branch_name: "main" })
      const made = yield* register(key, "fresh", server.url, { deployment_id: "build-42", docker_image: "registry.local/fresh:42" })
      assert.strictEqual(made.status, 200)
      const deployment = (yield* request("GET", `/agents/${agent.id}/deployments/build-42`, { key })).body
      assert.include(deployment, { id: "build-42", status: "Ready", docker_image: "registry.local/fresh:42", acp_url: server.url, is_production: false })
      assert.strictEqual((yield* request("GET", `/deployment-history?agent_id=${agent.id}`, { key })).body.length, 1)
      // registrations naming one new id at once make one deployment
      const raced = yield* Effect.forEach(Array.from({ length: 6 }), () => register(key, "fresh", server.url, { deployment_id: "raced" }), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(raced.map((response) => response.status), Array(6).fill(200), JSON.stringify(raced.map((r) => r.body)))
      const ids = (yield* request("GET", `/agents/${agent.id}/deployments`, { key })).body.map((d: any) => d.id)
      assert.deepStrictEqual(ids.filter((id: string) => id === "raced"), ["raced"])
      const bad = yield* register(key, "fresh", server.url, { deployment_id: 42 })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad), [{ loc: ["body", "registration_metadata", "deployment_id"], type: "value_error" }])
    }))

  it.scoped("a promote logs a commit other than the latest entry's only: not the production one again, not one without a commit", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const server = yield* echoAgent
      const agent = (yield* register(key, "logged", server.url, { agent_commit: "c1", branch_name: "main" })).body
      /** A deployment of `agent` with `metadata`, ready at `server`, promoted: its answer. */
      const promoteNew = (metadata: Record<string, unknown> | undefined) =>
        Effect.gen(function*() {
          const made = (yield* request("POST", `/agents/${agent.id}/deployments`, { key, body: { docker_image: "i", registration_metadata: metadata } })).body
          yield* register(key, "logged", server.url, { deployment_id: made.id })
          return yield* promote(key, agent.id, made.id)
        })
      const commits = Effect.map(
        request("GET", `/deployment-history?agent_id=${agent.id}&order_by=deployment_timestamp&order_direction=asc`, { key }),
        (response) => response.body.map((entry: any) => [entry.commit_hash, entry.branch_name])
      )

      yield* TestClock.adjust("1 second")
      const first = yield* promoteNew({ commit_hash: "c2" })
      assert.strictEqual(first.status, 200)
      assert.deepStrictEqual(yield* commits, [["c1", "main"], ["c2", "N/A"]])
      // the production deployment promoted again: 200, nothing logged
      yield* TestClock.adjust("1 second")
      const again = yield* promote(key, agent.id, first.body.id)
      assert.strictEqual(again.status, 200)
      assert.isTrue(again.body.is_production)
      // a deployment naming no commit: promoted, nothing logged
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* promoteNew({ branch_name: "x", author_name: "Ada" })).status, 200)
      // the c2 deployment back: its commit is the latest entry's, nothing logged
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* promote(key, agent.id, first.body.id)).status, 200)
      assert.deepStrictEqual(yield* commits, [["c1", "main"], ["c2", "N/A"]])
      // a registration's `agent_commit` names one too
      yield* TestClock.adjust("1 second")
      const back = yield* promoteNew({ agent_commit: "c1", branch_name: "main" })
      assert.deepStrictEqual(yield* commits, [["c1", "main"], ["c2", "N/A"], ["c1", "main"]])
      const latest = (yield* request("GET", `/deployment-history?agent_id=${agent.id}`, { key })).body[0]
      assert.strictEqual(latest.deployment_timestamp, back.body.promoted_at)
    }))

  it.scoped("promotes of two deployments at once: each a 200 or a 409, one production after", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const server = yield* echoAgent
      const agent = (yield* register(key, "racing", server.url)).body
      yield* register(key, "racing", server.url, { deployment_id: "blue" })
      yield* register(key, "racing", server.url, { deployment_id: "green" })
      const answers = yield* Effect.forEach(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? "blue" : "green")),
        (id) => promote(key, agent.id, id),
        { concurrency: "unbounded" }
      )
      for (const answer of answers) assert.include([200, 409], answer.status, JSON.stringify(answer.body))
      assert.include(answers.map((answer) => answer.status), 200)
      const listed = (yield* request("GET", `/agents/${agent.id}/deployments`, { key })).body
      const production = listed.filter((deployment: any) => deployment.is_production).map((deployment: any) => deployment.id)
      assert.strictEqual(production.length, 1, JSON.stringify(listed))
      assert.strictEqual((yield* request("GET", `/agents/${agent.id}`, { key })).body.production_deployment_id, production[0])
    }))

  it.scoped("a promote makes an agent known only by its build Ready", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const server = yield* echoAgent
      const built = yield* request("POST", "/agents/register-build", { key, body: { name: "built", description: "built agent" } })
      assert.strictEqual(built.status, 200)
      assert.include(built.body, { status: "BuildOnly", registered_at: null })
      // its deployment's ACP server registers: the agent stays as it was
      const ready = yield* register(key, "built", server.url, { deployment_id: "first" })
      assert.strictEqual(ready.body.status, "BuildOnly")
      yield* TestClock.adjust("1 second")
      const promoted = yield* promote(key, built.body.id, "first")
      assert.strictEqual(promoted.status, 200)
      const agent = (yield* request("GET", `/agents/${built.body.id}`, { key })).body
      assert.include(agent, {
        status: "Ready",
        status_reason: "Agent registered successfully.",
        registered_at: promoted.body.promoted_at,
        updated_at: promoted.body.promoted_at,
        production_deployment_id: "first"
      })
    }))

  it.scoped("a deleted deployment is previewed still; an agent that fails answers a 200 with error -32603", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const [own, deployed] = [yield* echoAgent, yield* echoAgent]
      const agent = (yield* register(key, "previewed", own.url)).body
      yield* register(key, "previewed", deployed.url, { deployment_id: "old" })
      const path = `/agents/${agent.id}/deployments/old`
      assert.strictEqual((yield* request("DELETE", path, { key })).status, 200)
      assert.strictEqual(yield* say(key, `${path}/rpc`, "still"), "You said: still")
      assert.deepStrictEqual([own.seen.length, deployed.seen.length], [0, 1])

      // a deployment whose ACP server is gone (nothing listens on port 1)
      yield* register(key, "previewed", "http://127.0.0.1:1", { deployment_id: "gone" })
      const failed = yield* request("POST", `/agents/${agent.id}/deployments/gone/rpc`, {
        key,
        body: { jsonrpc: "2.0", id: 7, method: "message/send", params: { content: { type: "text", author: "user", content: "hello?" } } }
      })
      assert.strictEqual(failed.status, 200)
      assert.strictEqual(failed.body.id, 7)
      assert.strictEqual(failed.body.result, null)
      assert.strictEqual(failed.body.error.code, -32603, JSON.stringify(failed.body))
      assert.isString(failed.body.error.message)
      // the agent's own route was not tried
      assert.deepStrictEqual([own.seen.length, deployed.seen.length], [0, 1])
    }))

  it.scoped("another account's agents, deployments and history are 404; a deployment id is its agent's own; the history needs one agent", () =>
    Effect.gen(function*() {
      const mine = yield* provision()
      const theirs = yield* provision()
      const server = yield* echoAgent
      const agent = (yield* register(mine.key, "mine", server.url, { agent_commit: "c1", branch_name: "main" })).body
      const second = (yield* register(mine.key, "second", server.url)).body
      const deployment = (yield* request("POST", `/agents/${agent.id}/deployments`, { key: mine.key, body: { docker_image: "i" } })).body
      const entry = (yield* request("GET", `/deployment-history?agent_id=${agent.id}`, { key: mine.key })).body[0]
      const path = `/agents/${agent.id}/deployments/${deployment.id}`

      for (const [method, target] of [
        ["GET", path],
        ["DELETE", path],
        ["POST", `${path}/promote`],
        ["GET", `/agents/${agent.id}/deployments`],
        ["GET", `/deployment-history/${entry.id}`],
        ["GET", `/deployment-history?agent_id=${agent.id}`]
      ] as const) {
        const response = yield* request(method, target, { key: theirs.key })
        assert.strictEqual(response.status, 404, `${method} ${target}`)
        assert.isString(response.body.detail)
      }
      assert.strictEqual((yield* request("POST", `/agents/${agent.id}/deployments`, { key: theirs.key, body: { docker_image: "i" } })).status, 404)
      assert.strictEqual((yield* request("POST", `${path}/rpc`, { key: theirs.key, body: { method: "task/create", params: {} } })).status, 404)
      // a deployment is found under its own agent only
      assert.strictEqual((yield* request("GET", `/agents/${second.id}/deployments/${deployment.id}`, { key: mine.key })).status, 404)
      // a deployment id is its agent's own: their registration naming my deployment's id makes a
      // deployment of theirs (as a fresh id would: nothing says mine exists), and mine stays pending
      const named = yield* register(theirs.key, "theirs", server.url, { deployment_id: deployment.id })
      assert.strictEqual(named.status, 200)
      const twin = yield* request("GET", `/agents/${named.body.id}/deployments/${deployment.id}`, { key: theirs.key })
      assert.include(twin.body, { id: deployment.id, agent_id: named.body.id, status: "Ready", acp_url: server.url })
      assert.include((yield* request("GET", path, { key: mine.key })).body, { agent_id: agent.id, status: "Pending", acp_url: null })
      assert.strictEqual(yield* say(theirs.key, `/agents/${named.body.id}/deployments/${deployment.id}/rpc`, "twin"), "You said: twin")
      assert.strictEqual(server.keys.at(-1), named.body.agent_api_key)
      // so does my other agent's; each is promoted and deleted on its own
      yield* register(mine.key, "second", server.url, { deployment_id: deployment.id })
      assert.strictEqual((yield* promote(mine.key, second.id, deployment.id)).status, 200)
      assert.strictEqual((yield* request("DELETE", `/agents/${named.body.id}/deployments/${deployment.id}`, { key: theirs.key })).status, 200)
      assert.include((yield* request("GET", path, { key: mine.key })).body, { status: "Pending", is_production: false, expires_at: null })
      assert.strictEqual((yield* request("GET", `/agents/${second.id}/deployments/${deployment.id}`, { key: mine.key })).body.is_production, true)

      const neither = yield* request("GET", "/deployment-history", { key: mine.key })
      assert.strictEqual(neither.status, 422)
      assert.deepStrictEqual(issues(neither), [{ loc: ["query", "agent_id"], type: "value_error" }])
      assert.strictEqual((yield* request("GET", `/deployment-history?agent_id=${agent.id}&agent_name=mine`, { key: mine.key })).status, 422)
      assert.strictEqual((yield* request("GET", "/deployment-history/nope", { key: mine.key })).body.detail, "Deployment not found: Item with id 'nope' does not exist.")
      const noImage = yield* request("POST", `/agents/${agent.id}/deployments`, { key: mine.key, body: {} })
      assert.deepStrictEqual(issues(noImage), [{ loc: ["body", "docker_image"], type: "missing" }])
    }))
})
