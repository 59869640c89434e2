/**
 * One agent step (docs/models.md "Agents: one step"): the built-in model's deterministic choice,
 * the reply protocol through the account's model of the name on an upstream of the test's own on
 * 127.0.0.1 (what it is sent, how its reply is read), memory, the context limit, and the 422s.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { defaultInstructions, systemPrompt } from "../src/agents-execute/step.js"
import { issues, provision, request, TestServerLive } from "../src/testing.js"
import { type Caller, readyDeploymentOf, registerModel } from "./support/models.js"
import { chatAnswer, upstream } from "./support/upstream.js"

const execute = (caller: Caller, body: Record<string, unknown>) => request("POST", "/v4/agents/execute", { key: caller.key, body })

const weather = {
  name: "get_weather",
  description: "Today's weather in a city.",
  arguments: {
    type: "object",
    properties: {
      city: { type: "string", description: "The city", default: "Paris" },
      unit: { type: "string", description: "C or F", examples: ["C"] }
    }
  }
} as const
const clock = { name: "clock", description: "The time now.", arguments: { type: "object", properties: {} } } as const
const tools = [weather, clock]

layer(TestServerLive, { timeout: 60_000 })("agents: execute", (it) => {
  it.effect("the built-in model: asks for the tool the last user message names (defaults as arguments), else answers", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const asked = yield* execute(caller, { model: "gpt-4", tools, messages: [{ role: "user", content: "What does CLOCK say, and get_weather?" }] })
      assert.strictEqual(asked.status, 200, JSON.stringify(asked.body))
      assert.deepStrictEqual(asked.body, { action: "tool_request", context: { content: null, tool_request: { name: "clock", arguments: "{}" } } })
      const withDefaults = yield* execute(caller, { model: "claude-2", tools, messages: [{ content: [{ type: "text", text: "use get_weather" }] }] })
      assert.deepStrictEqual(withDefaults.body.context.tool_request, { name: "get_weather", arguments: "{\"city\":\"Paris\"}" })
      // a part of a word is no name; no tool named: the built-in model's answer (it replies with the last user turn)
      const answered = yield* execute(caller, { model: "gpt-3.5-turbo", tools, messages: [{ role: "user", content: "the clockwork" }] })
      assert.deepStrictEqual(answered.body, { action: "content", context: { content: "the clockwork", tool_request: null } })
      // after the tool's output the step answers (the output is the turn it replies to)
      const after = yield* caller.client.agentsExecute.execute({
        payload: {
          model: "gpt-4",
          tools,
          messages: [
            { role: "user", content: "what does the clock say?" },
            { role: "agent", tool_request: { name: "clock", arguments: "{}" } },
            { role: "tool", name: "clock", content: "12:00" }
          ]
        }
      })
      assert.deepStrictEqual(after.action, "content")
      assert.deepStrictEqual(after.context, { content: "Tool clock returned:\n12:00", tool_request: null })
    }))

  it.scoped("the account's model of the name on an upstream: the tools in the system prompt, a JSON reply is a tool request", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const server = yield* upstream((_, count) => ({
        status: 200,
        body: chatAnswer(count === 1 ? "```json\n{\"tool\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n```" : "It is sunny in Oslo.")
      }))
      const model = yield* registerModel(caller, "gpt-4")
      yield* readyDeploymentOf(caller, model, { provider: "openai_compatible", base_url: server.url, model: "m" })
      const messages = [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Oslo?" }
      ]
      const first = yield* execute(caller, {
        model: "gpt-4",
        tools,
        instructions: "You report weather.",
        messages,
        model_parameters: { topP: 0.9, topK: 5, max_tokens: 50, stop_sequences: ["END"] }
      })
      assert.deepStrictEqual(first.body, {
        action: "tool_request",
        context: { content: null, tool_request: { name: "get_weather", arguments: "{\"city\":\"Oslo\"}" } }
      })
      const sent = server.received[0]!.body
      assert.deepStrictEqual(sent.messages, [
        { role: "system", content: systemPrompt("You report weather.", tools) },
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Oslo?" }
      ])
      assert.include(sent.messages[0].content, "- get_weather: Today's weather in a city. Arguments: city (string): The city; unit (string): C or F.")
      assert.deepStrictEqual([sent.temperature, sent.top_p, sent.top_k, sent.max_tokens, sent.stop], [0.2, 0.9, 5, 50, ["END"]])
      // the tool's output sent back: the agent's request and the output written in the protocol's words
      const second = yield* execute(caller, {
        model: "gpt-4",
        tools,
        messages: [
          ...messages,
          { role: "agent", tool_request: { name: "get_weather", arguments: "{\"city\":\"Oslo\"}" } },
          { role: "tool", name: "get_weather", content: "sunny" }
        ],
        memory_strategy: { name: "last_k", params: { k: 2 } },
        model_parameters: { temperature: 0 }
      })
      assert.deepStrictEqual(second.body, { action: "content", context: { content: "It is sunny in Oslo.", tool_request: null } })
      assert.deepStrictEqual(server.received[1]!.body.messages, [
        { role: "system", content: systemPrompt(defaultInstructions, tools) },
        { role: "assistant", content: "{\"tool\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"}}" },
        { role: "user", content: "Tool get_weather returned:\nsunny" }
      ])
      assert.strictEqual(server.received[1]!.body.temperature, 0)
      // another account has no model named gpt-4: the built-in model runs it
      const other = yield* provision()
      const builtin = yield* execute(other, { model: "gpt-4", tools: [], messages: [{ role: "user", content: "hi" }] })
      assert.deepStrictEqual([builtin.body.context.content, server.received.length], ["hi", 2])
    }))

  it.effect("a step over the model's context window is a 422 context_length_exceeded; bad input is a 422", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const long = Array.from({ length: 5_000 }, (_, i) => `w${i}`).join(" ")
      const over = yield* execute(caller, { model: "gpt-3.5-turbo", tools: [], messages: [{ role: "user", content: long }] })
      assert.deepStrictEqual([over.status, issues(over)], [422, [{ loc: ["body", "messages"], type: "context_length_exceeded" }]])
      assert.match(over.body.detail[0].msg, /context window of 4096/)
      // the same fits a 16k window, and a last_k memory that leaves it out fits the small one
      const fits = yield* execute(caller, { model: "gpt-3.5-turbo-16k", tools: [], messages: [{ role: "user", content: long }] })
      assert.strictEqual(fits.status, 200)
      const forgotten = yield* execute(caller, {
        model: "gpt-3.5-turbo",
        tools: [],
        messages: [{ role: "user", content: long }, { role: "user", content: "short" }],
        memory_strategy: { params: { k: 1 } }
      })
      assert.deepStrictEqual([forgotten.status, forgotten.body.context.content], [200, "short"])
      // max_tokens counts: room asked for the answer that the window has not
      const noRoom = yield* execute(caller, { model: "gpt-4", tools: [], messages: [{ role: "user", content: "hi" }], model_parameters: { max_tokens: 8_192 } })
      assert.deepStrictEqual(issues(noRoom), [{ loc: ["body", "messages"], type: "context_length_exceeded" }])
      const messages = [{ role: "user", content: "hi" }]
      for (
        const [body, loc] of [
          [{ model: "gpt-5", tools: [], messages }, ["body", "model"]],
          [{ model: "gpt-4", messages }, ["body", "tools"]],
          [{ model: "gpt-4", tools: [clock, clock], messages }, ["body", "tools", 1, "name"]],
          [{ model: "gpt-4", tools: [{ ...clock, arguments: {} }], messages }, ["body", "tools", 0, "arguments", "type"]],
          [{ model: "gpt-4", tools: [], messages, model_parameters: { temperature: 2 } }, ["body", "model_parameters", "temperature"]],
          [{ model: "gpt-4", tools: [], messages, memory_strategy: { name: "last_k", params: { k: 0 } } }, ["body", "memory_strategy", "params", "k"]]
        ] as const
      ) {
        const response = yield* execute(caller, body)
        assert.strictEqual(response.status, 422, JSON.stringify(body))
        assert.deepStrictEqual(issues(response)[0].loc, loc, JSON.stringify(response.body))
      }
      const stops = yield* execute(caller, { model: "gpt-4", tools: [], messages, model_parameters: { stop_sequences: ["a", "b", "c", "d", "e"] } })
      assert.strictEqual(stops.status, 422)
    }))
})
