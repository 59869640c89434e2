/**
 * Agents-service variants (docs/applications.md "Agents-service variants"): a process goes to the
 * sync agent the variant's `params.agent_name` names, as a `message/send` to an ACP server of the
 * test's own on 127.0.0.1; the task and its messages are the agent half's own; the process is
 * recorded as an interaction; what cannot run is a 409 saying why.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { provision, request, TestServerLive } from "../src/testing.js"
import { echoAgent } from "./support/echoAgent.js"

type Caller = Effect.Effect.Success<ReturnType<typeof provision>>

const register = (caller: Caller, name: string, acp_url: string, acp_type: "sync" | "async" = "sync") =>
  caller.client.agents.register({ payload: { name, description: name, acp_url, acp_type } })

const agentsVariant = (caller: Caller, params: Record<string, unknown>) =>
  Effect.gen(function*() {
    const spec = yield* caller.client.applicationSpecs.create({ payload: { account_id: caller.accountId, name: "agentic", description: "d" } })
    const variant = yield* caller.client.applicationVariants.create({
      payload: {
        account_id: caller.accountId,
        application_spec_id: spec.id,
        name: "agent",
        version: "AGENTS_SERVICE",
        configuration: { type: "WORKFLOW", params, inputs: [{ name: "question", type: "ShortText" }] }
      }
    })
    return { spec: spec.id, variant: variant.id }
  })

const process = (caller: Caller, variant: string, body: unknown) => request("POST", `/v4/applications/${variant}/process`, { key: caller.key, body })

layer(TestServerLive, { timeout: 60_000 })("agents-service variants", (it) => {
  it.scoped("a process is a message to the named sync agent: its answer, its task and messages, the interaction", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const acp = yield* echoAgent
      const agent = yield* register(caller, "helper", acp.url)
      const { spec, variant } = yield* agentsVariant(caller, { agent_name: "helper" })

      const answered = yield* process(caller, variant, { inputs: { question: "hello" }, operation_metadata: { run: 1 } })
      assert.strictEqual(answered.status, 200, JSON.stringify(answered.body))
      const taskId = answered.body.session_data.task_id
      assert.deepStrictEqual(answered.body, {
        "output-text": "You said: hello",
        session_data: { agent_id: agent.id, task_id: taskId },
        application_interaction_id: answered.body.application_interaction_id
      })
      // the agent was sent the input's text, and the task carries the inputs as its params
      assert.strictEqual(acp.seen.at(-1).method, "message/send")
      assert.strictEqual(acp.seen.at(-1).params.content.content, "hello")
      const task = yield* request("GET", `/tasks/${taskId}`, { key: caller.key })
      assert.strictEqual(task.status, 200)
      assert.deepStrictEqual(task.body.params, { question: "hello" })
      const messages = yield* request("GET", `/messages?task_id=${taskId}`, { key: caller.key })
      assert.sameMembers(messages.body.map((m: any) => `${m.content.author}: ${m.content.content}`), ["user: hello", "agent: You said: hello"])

      // recorded: one interaction, its span the agent's turn
      const interaction = yield* caller.client.applications.getInteraction({
        path: { application_spec_id: spec, interaction_id: answered.body.application_interaction_id }
      })
      assert.strictEqual(interaction.error, null)
      assert.strictEqual(interaction.interaction_source, "AGENTS_SERVICE")
      assert.deepStrictEqual(interaction.node_latencies.map((latency) => latency.node_id), ["agent"])

      // the history's session_data continues the task
      const again = yield* process(caller, variant, {
        inputs: { question: "and again" },
        history: [{ request: "hello", response: "You said: hello", session_data: answered.body.session_data }]
      })
      assert.strictEqual(again.status, 200)
      assert.strictEqual(again.body.session_data.task_id, taskId)
      assert.strictEqual((yield* request("GET", `/messages?task_id=${taskId}`, { key: caller.key })).body.length, 4)

      // several inputs: sent as JSON
      const two = yield* process(caller, variant, { inputs: { question: "q", tone: "dry" } })
      assert.strictEqual(two.body["output-text"], `You said: ${JSON.stringify({ question: "q", tone: "dry" })}`)
      assert.notStrictEqual(two.body.session_data.task_id, taskId)
    }))

  it.scoped("a thread's turns are one task; streamed, the agent's text comes frame by frame", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const acp = yield* echoAgent
      yield* register(caller, "threaded", acp.url)
      const { variant } = yield* agentsVariant(caller, { agent_name: "threaded" })
      const thread = "9f1c2d3e-0000-4000-8000-000000000001"
      const first = yield* request("POST", `/v4/applications/${variant}/threads/${thread}/process`, { key: caller.key, body: { inputs: { question: "one" } } })
      const second = yield* request("POST", `/v4/applications/${variant}/threads/${thread}/process`, { key: caller.key, body: { inputs: { question: "two" } } })
      assert.strictEqual(first.status, 200, JSON.stringify(first.body))
      assert.strictEqual(second.body.session_data.task_id, first.body.session_data.task_id)
      const task = yield* request("GET", `/tasks/${first.body.session_data.task_id}`, { key: caller.key })
      assert.strictEqual(task.body.name, `application-thread-${thread}`)

      const streamed = yield* process(caller, variant, { inputs: { question: "live" }, stream: true })
      assert.strictEqual(streamed.status, 200)
      const frames = String(streamed.body).split("\n\n").filter((frame) => frame.length > 0).map((frame) => frame.replace(/^data: /, ""))
      assert.strictEqual(frames.at(-1), "[DONE]")
      const parsed = frames.slice(0, -1).map((frame) => JSON.parse(frame))
      assert.deepStrictEqual(parsed.filter((frame) => frame.type === "text"), [{ type: "text", node_id: "agent", text: "live" }])
      assert.strictEqual(parsed.at(-1).answer["output-text"], "You said: live")
    }))

  it.scoped("what cannot run is a 409 saying why; an agent that fails is a 502 naming it, recorded", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const acp = yield* echoAgent
      yield* register(caller, "later", acp.url, "async")
      yield* register(other, "theirs", acp.url)
      yield* register(caller, "down", "http://127.0.0.1:9")
      const refusals = [
        [{}, /names no agent/],
        [{ agent_name: "nobody" }, /agent nobody is not registered/],
        [{ agent_name: "theirs" }, /agent theirs is not registered/],
        [{ agent_name: "later" }, /is async: only sync agents/]
      ] as const
      for (const [params, reason] of refusals) {
        const { spec, variant } = yield* agentsVariant(caller, params)
        const refused = yield* process(caller, variant, { inputs: { question: "hi" } })
        assert.strictEqual(refused.status, 409)
        assert.match(refused.body.detail, reason)
        // nothing recorded, nothing sent
        assert.strictEqual((yield* caller.client.applications.listInteractions({ path: { application_spec_id: spec }, urlParams: {} })).items.length, 0)
      }
      assert.deepStrictEqual(acp.seen, [])

      const { spec, variant } = yield* agentsVariant(caller, { agent_name: "down" })
      const failed = yield* process(caller, variant, { inputs: { question: "hi" } })
      assert.strictEqual(failed.status, 502)
      assert.match(failed.body.detail, /^Agent down: /)
      const recorded = yield* caller.client.applications.listInteractions({ path: { application_spec_id: spec }, urlParams: {} })
      assert.strictEqual(recorded.items.length, 1)
      assert.match(recorded.items[0]!.error ?? "", /^Agent down: /)

      // a V0 variant's inputs are per input node
      const v0 = yield* caller.client.applicationSpecs.create({ payload: { account_id: caller.accountId, name: "v0", description: "d" } })
      const graph = yield* caller.client.applicationVariants.create({
        payload: {
          account_id: caller.accountId,
          application_spec_id: v0.id,
          name: "v0",
          version: "V0",
          configuration: {
            nodes: [{ id: "in", application_node_schema_id: "text_input_schema" }, { id: "out", application_node_schema_id: "text_output_schema" }],
            edges: [{ from_node: "in", from_field: "input-text", to_node: "out", to_field: "output-text" }]
          }
        }
      })
      const flat = yield* process(caller, graph.id, { inputs: { in: "hi" } })
      assert.strictEqual(flat.status, 422)
      assert.deepStrictEqual(flat.body.detail.map((issue: any) => [issue.loc, issue.type]), [[["body", "inputs", "in"], "dict_type"]])
    }))
})
