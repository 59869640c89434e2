import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive } from "../src/testing.js"

type Client = Effect.Effect.Success<ReturnType<typeof provision>>["client"]

/** Creates a deployment one millisecond after the previous one. */
const deploy = (
  client: Client,
  payload: { readonly build_id: string; readonly agent_name?: string; readonly preview_label?: string }
) =>
  Effect.gen(function*() {
    yield* TestClock.adjust("1 millis")
    return yield* client.agentRuntime.create({ payload })
  })

const ids = (items: ReadonlyArray<{ readonly id: string }>) => items.map((item) => item.id)

layer(TestServerLive)("agent runtime deployments list", (it) => {
  it.effect("filters: build_id, agent_name, preview_label (exact), alone and together; newest first", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const a = yield* deploy(client, { build_id: "b1", agent_name: "support", preview_label: "pr-1" })
      const b = yield* deploy(client, { build_id: "b1", agent_name: "support" })
      const c = yield* deploy(client, { build_id: "b2", agent_name: "support", preview_label: "pr-2" })
      const d = yield* deploy(client, { build_id: "b3", agent_name: "billing", preview_label: "pr-1" })

      const byBuild = yield* client.agentRuntime.list({ urlParams: { build_id: "b1" } })
      assert.deepStrictEqual(ids(byBuild.items), ids([b, a]))
      assert.strictEqual(byBuild.total, 2)
      // as created, but for what its lifecycle moved (status, deploy events after the first)
      assert.deepStrictEqual(
        { ...byBuild.items[1]!, status: a.status, deploy_events: byBuild.items[1]!.deploy_events.slice(0, 1) },
        a
      )
      const byAgent = yield* client.agentRuntime.list({ urlParams: { agent_name: "support" } })
      assert.deepStrictEqual(ids(byAgent.items), ids([c, b, a]))
      assert.strictEqual(byAgent.total, 3)
      const byLabel = yield* client.agentRuntime.list({ urlParams: { preview_label: "pr-1" } })
      assert.deepStrictEqual(ids(byLabel.items), ids([d, a]))
      const together = yield* client.agentRuntime.list({
        urlParams: { build_id: "b1", agent_name: "support", preview_label: "pr-1" }
      })
      assert.deepStrictEqual(ids(together.items), ids([a]))
      assert.strictEqual(together.total, 1)

      // exact matches: no substrings, no other case
      const partial = yield* client.agentRuntime.list({ urlParams: { agent_name: "supp" } })
      assert.strictEqual(partial.total, 0)
      const upper = yield* client.agentRuntime.list({ urlParams: { agent_name: "SUPPORT" } })
      assert.strictEqual(upper.total, 0)
      const none = yield* client.agentRuntime.list({ urlParams: { build_id: "b2", agent_name: "billing" } })
      assert.deepStrictEqual(none, { items: [], total: 0, has_more: false, limit: 100, object: "list" })
      const all = yield* client.agentRuntime.list({ urlParams: {} })
      assert.deepStrictEqual(ids(all.items), ids([d, c, b, a]))
    }))

  it.effect("many deployments share one preview_label; the label filter finds every one", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const shared = []
      for (let i = 0; i < 6; i++) {
        shared.push(yield* deploy(client, { build_id: `build-${i}`, agent_name: `agent-${i % 2}`, preview_label: "staging" }))
      }
      yield* deploy(client, { build_id: "build-x", agent_name: "agent-0", preview_label: "staging-2" })
      assert.deepStrictEqual(new Set(shared.map((d) => d.preview_label)), new Set(["staging"]))

      const byLabel = yield* client.agentRuntime.list({ urlParams: { preview_label: "staging", sort_order: "asc" } })
      assert.deepStrictEqual(ids(byLabel.items), ids(shared))
      assert.strictEqual(byLabel.total, 6)
      const narrowed = yield* client.agentRuntime.list({ urlParams: { preview_label: "staging", agent_name: "agent-1" } })
      assert.deepStrictEqual(ids(narrowed.items), ids([shared[5]!, shared[3]!, shared[1]!]))
    }))

  it.effect("a cursor walk over a filtered list: every match once, in order, and back again", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const matching = []
      const others = []
      for (let i = 0; i < 7; i++) {
        matching.push(yield* deploy(client, { build_id: `b${i}`, agent_name: "walker" }))
        others.push(yield* deploy(client, { build_id: `o${i}`, agent_name: "other" }))
      }
      const walked: Array<string> = []
      let cursor: string | undefined = undefined
      let pages = 0
      for (;;) {
        const page: Effect.Effect.Success<ReturnType<Client["agentRuntime"]["list"]>> = yield* client.agentRuntime.list({
          urlParams: { agent_name: "walker", limit: 3, ...(cursor === undefined ? {} : { starting_after: cursor }) }
        })
        pages++
        assert.strictEqual(page.total, 7)
        assert.strictEqual(page.limit, 3)
        walked.push(...ids(page.items))
        if (!page.has_more) break
        cursor = page.items[page.items.length - 1]!.id
      }
      assert.strictEqual(pages, 3)
      assert.deepStrictEqual(walked, ids([...matching].reverse()))

      // back from the oldest: the page just before it, still newest first
      const back = yield* client.agentRuntime.list({
        urlParams: { agent_name: "walker", limit: 3, ending_before: matching[0]!.id }
      })
      assert.deepStrictEqual(ids(back.items), ids([matching[3]!, matching[2]!, matching[1]!]))
      assert.strictEqual(back.has_more, true)

      // ascending walk with the same filter
      const asc = yield* client.agentRuntime.list({
        urlParams: { agent_name: "walker", limit: 4, sort_order: "asc", starting_after: matching[2]!.id }
      })
      assert.deepStrictEqual(ids(asc.items), ids(matching.slice(3, 7)))
      assert.strictEqual(asc.has_more, false)

      // a deployment the filter leaves out is no cursor of this list
      const outside = yield* Effect.flip(
        client.agentRuntime.list({ urlParams: { agent_name: "walker", starting_after: others[3]!.id } })
      )
      assert.strictEqual(outside._tag, "ValidationError")
    }))

  it.effect("deployments without an agent name: listed, never matched by an agent_name filter, sorted as ''", () =>
    Effect.gen(function*() {
      const { client, key } = yield* provision()
      const named = yield* deploy(client, { build_id: "b1", agent_name: "support" })
      const nameless = yield* deploy(client, { build_id: "b1" })
      const all = yield* client.agentRuntime.list({ urlParams: {} })
      assert.deepStrictEqual(ids(all.items), ids([nameless, named]))
      assert.strictEqual(nameless.agent_name, null)
      const byAgent = yield* client.agentRuntime.list({ urlParams: { agent_name: "support" } })
      assert.deepStrictEqual(ids(byAgent.items), ids([named]))
      assert.strictEqual(byAgent.total, 1)
      const empty = yield* request("GET", "/v5/agent-runtime/deployments?agent_name=", { key })
      assert.strictEqual(empty.status, 200)
      assert.deepStrictEqual(empty.body.items, [])
      assert.strictEqual(empty.body.total, 0)
      const byBuild = yield* client.agentRuntime.list({ urlParams: { build_id: "b1" } })
      assert.strictEqual(byBuild.total, 2)
      const asc = yield* client.agentRuntime.list({ urlParams: { sort_by: "agent_name", sort_order: "asc", limit: 1 } })
      assert.deepStrictEqual(ids(asc.items), ids([nameless]))
      const next = yield* client.agentRuntime.list({
        urlParams: { sort_by: "agent_name", sort_order: "asc", starting_after: nameless.id }
      })
      assert.deepStrictEqual(ids(next.items), ids([named]))
    }))

  it.effect("sort_by agent_name (ties by id) in both orders", () =>
    Effect.gen(function*() {
      const { client } = yield* provision()
      const c = yield* deploy(client, { build_id: "1", agent_name: "charlie" })
      const a = yield* deploy(client, { build_id: "2", agent_name: "alpha" })
      const b = yield* deploy(client, { build_id: "3", agent_name: "bravo" })
      const asc = yield* client.agentRuntime.list({ urlParams: { sort_by: "agent_name", sort_order: "asc" } })
      assert.deepStrictEqual(ids(asc.items), ids([a, b, c]))
      const desc = yield* client.agentRuntime.list({ urlParams: { sort_by: "agent_name", limit: 2 } })
      assert.deepStrictEqual(ids(desc.items), ids([c, b]))
      assert.strictEqual(desc.has_more, true)
      const next = yield* client.agentRuntime.list({
        urlParams: { sort_by: "agent_name", limit: 2, starting_after: b.id }
      })
      assert.deepStrictEqual(ids(next.items), ids([a]))
    }))

  it.effect("list query validation: exact loc and type; an unknown or foreign cursor is a 422", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const foreign = yield* deploy(bob.client, { build_id: "b", agent_name: "a" })
      const wrong = yield* request(
        "GET",
        "/v5/agent-runtime/deployments?limit=0&sort_order=up&sort_by=status",
        { key: alice.key }
      )
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["query", "limit"], type: "range_error" },
        { loc: ["query", "sort_order"], type: "literal_error" },
        { loc: ["query", "sort_by"], type: "literal_error" }
      ])
      const nan = yield* request("GET", "/v5/agent-runtime/deployments?limit=ten", { key: alice.key })
      assert.deepStrictEqual(issues(nan), [{ loc: ["query", "limit"], type: "number_parsing" }])
      const unknown = yield* request("GET", "/v5/agent-runtime/deployments?starting_after=nope", { key: alice.key })
      assert.deepStrictEqual(issues(unknown), [{ loc: ["query", "starting_after"], type: "value_error" }])
      const theirs = yield* request("GET", `/v5/agent-runtime/deployments?ending_before=${foreign.id}`, {
        key: alice.key
      })
      assert.deepStrictEqual(issues(theirs), [{ loc: ["query", "ending_before"], type: "value_error" }])
      // bob's deployment stays his alone
      const alices = yield* alice.client.agentRuntime.list({ urlParams: { build_id: "b" } })
      assert.strictEqual(alices.total, 0)
      const bobs = yield* bob.client.agentRuntime.list({ urlParams: { build_id: "b" } })
      assert.deepStrictEqual(ids(bobs.items), [foreign.id])
    }))
})
