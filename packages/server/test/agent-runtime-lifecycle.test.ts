import { assert, layer } from "@effect/vitest"
import { Effect, TestClock, TestServices } from "effect"
import { provision, request, TestServerLive } from "../src/testing.js"
import { timedServer } from "./support/progression.js"

const live = (millis: number) => TestServices.provideLive(Effect.sleep(`${millis} millis`))
const path = (id: string) => `/v5/agent-runtime/deployments/${id}`

/** The deployment read until `done` (every `every` ms, 15 s at most), with each status seen once, in order. */
const pollUntil = (id: string, key: string, done: (deployment: any) => boolean, every = 5) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const started = Date.now()
    for (;;) {
      const deployment = (yield* request("GET", path(id), { key })).body
      if (seen.at(-1) !== deployment.status) seen.push(deployment.status)
      if (done(deployment) || Date.now() - started > 15_000) return { deployment, seen }
      yield* live(every)
    }
  })

const settled = (deployment: any) => deployment.status !== "PENDING" && deployment.status !== "DEPLOYING"

/** Creates a deployment one millisecond after the previous one (the suite's clock is a TestClock). */
const createDeployment = (key: string, body: Record<string, unknown> = {}) =>
  Effect.map(
    Effect.zipRight(
      TestClock.adjust("1 millis"),
      request("POST", "/v5/agent-runtime/deployments", { key, body: { build_id: "build-1", agent_name: "agent", ...body } })
    ),
    (response) => {
      assert.strictEqual(response.status, 200, JSON.stringify(response.body))
      assert.strictEqual(response.body.status, "PENDING")
      return response.body.id as string
    }
  )

const reasons = (deployment: any) => deployment.deploy_events.map((event: any) => event.reason)

layer(TestServerLive)("agent runtime deployment lifecycle, immediate progression (the suite's)", (it) => {
  it.effect("PENDING, DEPLOYING, then READY, a deploy event per step", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const id = yield* createDeployment(key, { helm_release_name: "rel", namespace: "ns" })
      const { deployment, seen } = yield* pollUntil(id, key, settled)
      assert.strictEqual(deployment.status, "READY")
      assert.deepStrictEqual(seen, ["PENDING", "DEPLOYING", "READY"].filter((status) => seen.includes(status)))
      assert.deepStrictEqual(reasons(deployment), ["Created", "Deploying", "Ready"])
      assert.strictEqual(deployment.deploy_events[1].message, "Installing Helm release rel in namespace ns (simulated)")
      assert.isTrue(deployment.deploy_events.every((event: any) => event.type === "Normal"))
      yield* live(300)
      assert.deepStrictEqual((yield* request("GET", path(id), { key })).body, deployment)
    }))

  it.effect("a newer deployment of a preview label, once READY, supersedes the older ones of that label only", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const first = yield* createDeployment(key, { preview_label: "pr-1" })
      yield* pollUntil(first, key, settled)
      const other = yield* createDeployment(key, { preview_label: "pr-2" })
      const unlabelled = yield* createDeployment(key)
      const second = yield* createDeployment(key, { preview_label: "pr-1" })
      assert.strictEqual((yield* pollUntil(second, key, settled)).deployment.status, "READY")
      const superseded = (yield* pollUntil(first, key, (deployment) => deployment.status !== "READY")).deployment
      assert.strictEqual(superseded.status, "SUPERSEDED")
      assert.deepStrictEqual(reasons(superseded), ["Created", "Deploying", "Ready", "Superseded"])
      assert.strictEqual(superseded.deploy_events[3].message, `Superseded by deployment ${second}`)
      assert.strictEqual((yield* pollUntil(other, key, settled)).deployment.status, "READY")
      assert.strictEqual((yield* pollUntil(unlabelled, key, settled)).deployment.status, "READY")
      // the list filter by label sees both, the newer READY
      const listed = (yield* request("GET", "/v5/agent-runtime/deployments?preview_label=pr-1", { key })).body
      assert.deepStrictEqual(listed.items.map((d: any) => [d.id, d.status]), [[second, "READY"], [first, "SUPERSEDED"]])
    }))

  it.effect("a preview expires at expires_at (real time): READY until then, EXPIRED after, with its event", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const expiresAt = new Date(Date.now() + 2000).toISOString()
      const id = yield* createDeployment(key, { preview_label: "short", expires_at: expiresAt })
      const ready = (yield* pollUntil(id, key, settled)).deployment
      assert.strictEqual(ready.status, "READY")
      assert.isBelow(Date.now(), Date.parse(expiresAt))
      const { deployment, seen } = yield* pollUntil(id, key, (d) => d.status !== "READY", 20)
      assert.strictEqual(deployment.status, "EXPIRED")
      assert.deepStrictEqual(seen, ["READY", "EXPIRED"])
      assert.isAtLeast(Date.now(), Date.parse(expiresAt))
      assert.deepStrictEqual(reasons(deployment).slice(-1), ["Expired"])
      assert.strictEqual(deployment.deploy_events.at(-1).message, `Preview expired at ${expiresAt}`)

      // an expires_at already past: it expires as soon as it is ready
      const past = yield* createDeployment(key, { expires_at: "2020-01-01T00:00:00Z" })
      const expired = (yield* pollUntil(past, key, (d) => d.status === "EXPIRED" || d.status === "FAILED")).deployment
      assert.deepStrictEqual(reasons(expired), ["Created", "Deploying", "Ready", "Expired"])
    }))

  it.effect("DELETE takes a deployment down: DELETED with its event, kept readable; again answers the same; others' 404, no key 401", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const id = yield* createDeployment(alice.key)
      yield* pollUntil(id, alice.key, settled)
      assert.strictEqual((yield* request("DELETE", path(id), { key: bob.key })).status, 404)
      assert.strictEqual((yield* request("DELETE", path(id))).status, 401)
      assert.strictEqual((yield* request("GET", path(id), { key: alice.key })).body.status, "READY")

      const deleted = yield* request("DELETE", path(id), { key: alice.key })
      assert.strictEqual(deleted.status, 200)
      assert.strictEqual(deleted.body.status, "DELETED")
      assert.deepStrictEqual(reasons(deleted.body), ["Created", "Deploying", "Ready", "Deleted"])
      assert.deepStrictEqual((yield* request("GET", path(id), { key: alice.key })).body, deleted.body)
      const again = yield* alice.client.agentRuntime.delete({ path: { deployment_id: id } })
      assert.strictEqual(again.status, "DELETED")
      assert.strictEqual(again.deploy_events.length, 4)
      assert.strictEqual((yield* request("DELETE", path("no-such-id"), { key: alice.key })).status, 404)
    }))
})


layer(timedServer(0.5))("agent runtime deployment lifecycle, timed progression", (it) => {
  it.effect("a poller sees PENDING, DEPLOYING and READY, each for its simulated step", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const id = yield* createDeployment(key)
      const { seen } = yield* pollUntil(id, key, settled, 20)
      assert.deepStrictEqual(seen, ["PENDING", "DEPLOYING", "READY"])
    }))

  it.effect("deleted while deploying: DELETED stays, no Ready event follows", () =>
    Effect.gen(function*() {
      const { key } = yield* provision()
      const id = yield* createDeployment(key)
      yield* pollUntil(id, key, (deployment) => deployment.status === "DEPLOYING", 20)
      const deleted = yield* request("DELETE", path(id), { key })
      assert.strictEqual(deleted.body.status, "DELETED")
      yield* live(2000)
      const after = (yield* request("GET", path(id), { key })).body
      assert.strictEqual(after.status, "DELETED")
      assert.deepStrictEqual(reasons(after), ["Created", "Deploying", "Deleted"])
    }))
})
