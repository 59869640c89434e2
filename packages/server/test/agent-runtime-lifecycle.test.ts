import { assert, layer } from "@effect/vitest"
import type { Client } from "@platform-kit/client"
import type { AgentRuntimeDeployment, CreateAgentRuntimeDeployment } from "@platform-kit/schema"
import { Effect, Option, TestClock, TestServices } from "effect"
import { eventually, provision, request, TestServerLive } from "../src/testing.js"
import { timedServer } from "./support/progression.js"

const live = (millis: number) => TestServices.provideLive(Effect.sleep(`${millis} millis`))
const path = (id: string) => `/v5/agent-runtime/deployments/${id}`
const get = (client: Client, id: string) => client.agentRuntime.get({ path: { deployment_id: id } })

/**
 * The deployment read (`eventually`, 15 s at most) until `done`, with each status seen once, in
 * order; the last one read if it never was.
 */
const pollUntil = (id: string, client: Client, done: (deployment: AgentRuntimeDeployment) => boolean) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    let last: AgentRuntimeDeployment | undefined
    yield* eventually(
      Effect.map(get(client, id), (deployment) => {
        last = deployment
        if (seen.at(-1) !== deployment.status) seen.push(deployment.status)
        return Option.liftPredicate(deployment, done)
      }),
      15_000
    )
    return { deployment: last!, seen }
  })

const settled = (deployment: AgentRuntimeDeployment) => deployment.status !== "PENDING" && deployment.status !== "DEPLOYING"

/** Creates a deployment one millisecond after the previous one (the suite's clock is a TestClock). */
const createDeployment = (client: Client, payload: Partial<CreateAgentRuntimeDeployment> = {}) =>
  Effect.map(
    Effect.zipRight(
      TestClock.adjust("1 millis"),
      client.agentRuntime.create({ payload: { build_id: "build-1", agent_name: "agent", ...payload } })
    ),
    (deployment) => {
      assert.strictEqual(deployment.status, "PENDING")
      return deployment.id
    }
  )

const reasons = (deployment: AgentRuntimeDeployment) => deployment.deploy_events.map((event) => event.reason)

layer(TestServerLive)("agent runtime deployment lifecycle, immediate progression (the suite's)", (it) => {
  it.effect("PENDING, DEPLOYING, then READY, a deploy event per step", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const id = yield* createDeployment(client, { helm_release_name: "rel", namespace: "ns" })
      const { deployment, seen } = yield* pollUntil(id, client, settled)
      assert.strictEqual(deployment.status, "READY")
      assert.deepStrictEqual(seen, ["PENDING", "DEPLOYING", "READY"].filter((status) => seen.includes(status)))
      assert.deepStrictEqual(reasons(deployment), ["Created", "Deploying", "Ready"])
      assert.strictEqual(deployment.deploy_events[1].message, "Installing Helm release rel in namespace ns (simulated)")
      assert.isTrue(deployment.deploy_events.every((event: any) => event.type === "Normal"))
      yield* live(300)
      assert.deepStrictEqual(yield* get(client, id), deployment)
    }))

  it.effect("a newer deployment of a preview label, once READY, supersedes the older ones of that label only", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const first = yield* createDeployment(client, { preview_label: "pr-1" })
      yield* pollUntil(first, client, settled)
      const other = yield* createDeployment(client, { preview_label: "pr-2" })
      const unlabelled = yield* createDeployment(client)
      const second = yield* createDeployment(client, { preview_label: "pr-1" })
      assert.strictEqual((yield* pollUntil(second, client, settled)).deployment.status, "READY")
      const superseded = (yield* pollUntil(first, client, (deployment) => deployment.status !== "READY")).deployment
      assert.strictEqual(superseded.status, "SUPERSEDED")
      assert.deepStrictEqual(reasons(superseded), ["Created", "Deploying", "Ready", "Superseded"])
      assert.strictEqual(superseded.deploy_events[3].message, `Superseded by deployment ${second}`)
      assert.strictEqual((yield* pollUntil(other, client, settled)).deployment.status, "READY")
      assert.strictEqual((yield* pollUntil(unlabelled, client, settled)).deployment.status, "READY")
      // the list filter by label sees both, the newer READY
      const listed = yield* client.agentRuntime.list({ urlParams: { preview_label: "pr-1" } })
      assert.deepStrictEqual(listed.items.map((d) => [d.id, d.status]), [[second, "READY"], [first, "SUPERSEDED"]])
    }))

  it.effect("a preview expires at expires_at (real time): READY until then, EXPIRED after, with its event", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const expiresAt = new Date(Date.now() + 2000).toISOString()
      const id = yield* createDeployment(client, { preview_label: "short", expires_at: expiresAt })
      const ready = (yield* pollUntil(id, client, settled)).deployment
      assert.strictEqual(ready.status, "READY")
      assert.isBelow(Date.now(), Date.parse(expiresAt))
      const { deployment, seen } = yield* pollUntil(id, client, (d) => d.status !== "READY")
      assert.strictEqual(deployment.status, "EXPIRED")
      assert.deepStrictEqual(seen, ["READY", "EXPIRED"])
      assert.isAtLeast(Date.now(), Date.parse(expiresAt))
      assert.deepStrictEqual(reasons(deployment).slice(-1), ["Expired"])
      assert.strictEqual(deployment.deploy_events.at(-1)!.message, `Preview expired at ${expiresAt}`)

      // an expires_at already past: it expires as soon as it is ready
      const past = yield* createDeployment(client, { expires_at: "2020-01-01T00:00:00Z" })
      const expired = (yield* pollUntil(past, client, (d) => d.status === "EXPIRED" || d.status === "FAILED")).deployment
      assert.deepStrictEqual(reasons(expired), ["Created", "Deploying", "Ready", "Expired"])
    }))

  it.effect("DELETE takes a deployment down: DELETED with its event, kept readable; again answers the same; others' 404, no key 401", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const id = yield* createDeployment(alice.client)
      yield* pollUntil(id, alice.client, settled)
      assert.strictEqual((yield* Effect.flip(bob.client.agentRuntime.delete({ path: { deployment_id: id } })))._tag, "NotFound")
      assert.strictEqual((yield* request("DELETE", path(id))).status, 401)
      assert.strictEqual((yield* get(alice.client, id)).status, "READY")

      const deleted = yield* alice.client.agentRuntime.delete({ path: { deployment_id: id } })
      assert.strictEqual(deleted.status, "DELETED")
      assert.deepStrictEqual(reasons(deleted), ["Created", "Deploying", "Ready", "Deleted"])
      assert.deepStrictEqual(yield* get(alice.client, id), deleted)
      const again = yield* alice.client.agentRuntime.delete({ path: { deployment_id: id } })
      assert.strictEqual(again.status, "DELETED")
      assert.strictEqual(again.deploy_events.length, 4)
      const missing = yield* Effect.flip(alice.client.agentRuntime.delete({ path: { deployment_id: "no-such-id" } }))
      assert.strictEqual(missing._tag, "NotFound")
    }))
})


layer(timedServer(0.5))("agent runtime deployment lifecycle, timed progression", (it) => {
  it.effect("a poller sees PENDING, DEPLOYING and READY, each for its simulated step", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const id = yield* createDeployment(client)
      const { seen } = yield* pollUntil(id, client, settled)
      assert.deepStrictEqual(seen, ["PENDING", "DEPLOYING", "READY"])
    }))

  it.effect("deleted while deploying: DELETED stays, no Ready event follows", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const id = yield* createDeployment(client)
      yield* pollUntil(id, client, (deployment) => deployment.status === "DEPLOYING")
      const deleted = yield* client.agentRuntime.delete({ path: { deployment_id: id } })
      assert.strictEqual(deleted.status, "DELETED")
      yield* live(2000)
      const after = yield* get(client, id)
      assert.strictEqual(after.status, "DELETED")
      assert.deepStrictEqual(reasons(after), ["Created", "Deploying", "Deleted"])
    }))
})
