/**
 * Usage (docs/models.md "Usage"): every execution is recorded, and the usage statistics of a
 * deployment and of a model read the recorded executions over a window in chunks. The suite's
 * clock is a TestClock at the epoch: executions are placed in time by adjusting it.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive } from "../src/testing.js"
import { readyDeployment, readyDeploymentOf, registerModel } from "./support/models.js"

const post = (caller: { readonly key: string }, path: string, body: unknown) => request("POST", path, { key: caller.key, body })

const usagePath = (deployment: string, query: string) => `/v4/model-deployments/${deployment}/usage-statistics?${query}`

const hour = "1970-01-01T01:00:00.000Z"

layer(TestServerLive, { timeout: 60_000 })("model usage", (it) => {
  it.effect("each execution is counted in the chunk it started in: tokens, requests, errors, latency; streams when they end", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* readyDeployment(caller)
      // hour 0: a chat (2 + 2 tokens) and a streamed completion (1 + 1)
      assert.strictEqual((yield* post(caller, `/v4/models/${id}/chat-completions`, { chat_history: [], prompt: "a b" })).status, 200)
      const streamed = yield* post(caller, `/v4/models/${id}/completions`, { prompt: "c", stream: true })
      assert.include(streamed.body, "[DONE]")
      // hour 1: embeddings of 3 tokens, and a request the model refuses before running (not an execution)
      yield* TestClock.adjust("90 minutes")
      assert.strictEqual((yield* post(caller, `/v4/models/${id}/embeddings`, { texts: ["x y", "z"] })).status, 200)
      assert.strictEqual((yield* post(caller, `/v4/models/${id}/chat-completions`, { prompt: 3 })).status, 422)

      const usage = yield* request("GET", usagePath(id, `chunks=2&start_date=1970-01-01T00:00:00Z&end_date=1970-01-01T02:00:00Z`), {
        key: caller.key
      })
      assert.strictEqual(usage.status, 200, JSON.stringify(usage.body))
      assert.deepStrictEqual(usage.body.start_date, "1970-01-01T00:00:00.000Z")
      assert.deepStrictEqual(usage.body.end_date, hour)
      const [first, second] = usage.body.data
      assert.deepInclude(first, {
        date: "1970-01-01T00:00:00.000Z",
        prompt_tokens: 3,
        response_tokens: 3,
        summary_tokens: 6,
        request_count: 2,
        error_count: 0
      })
      assert.deepInclude(second, { date: hour, prompt_tokens: 3, response_tokens: 0, summary_tokens: 3, request_count: 1, error_count: 0 })
      assert.isAtLeast(first.average_latency_ms, 0)

      // the typed client reads the same, and a window of one chunk sums it all
      const typed = yield* caller.client.models.deploymentUsage({
        path: { model_deployment_id: id },
        urlParams: { chunks: 1, start_date: new Date(0), end_date: new Date(7_200_000) }
      })
      assert.strictEqual(typed.data.length, 1)
      assert.deepInclude({ ...typed.data[0]! }, { prompt_tokens: 6, response_tokens: 3, summary_tokens: 9, request_count: 3 })
      // a date without a zone is UTC, a date alone its midnight
      const naive = yield* request("GET", usagePath(id, `chunks=1&start_date=1970-01-01&end_date=1970-01-01T01:00:00`), { key: caller.key })
      assert.deepInclude(naive.body.data[0], { prompt_tokens: 3, request_count: 2 })
    }))

  it.effect("an upstream's failure is recorded as an error with its status; the model's usage sums its deployments", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const model = yield* registerModel(caller, "summed")
      const builtin = yield* readyDeploymentOf(caller, model)
      // an upstream that does not exist: a 502, recorded
      const down = yield* readyDeploymentOf(caller, model, {
        provider: "openai_compatible",
        base_url: "http://127.0.0.1:9/v1",
        model: "m",
        max_retries: 0
      })
      assert.strictEqual((yield* post(caller, `/v4/models/${down}/chat-completions`, { chat_history: [], prompt: "x" })).status, 502)
      assert.strictEqual((yield* post(caller, `/v4/models/${builtin}/completions`, { prompt: "one two three" })).status, 200)

      const failed = yield* request("GET", usagePath(down, "start_date=1970-01-01T00:00:00Z&end_date=1970-01-02T00:00:00Z"), { key: caller.key })
      assert.deepInclude(failed.body.data[0], { request_count: 1, error_count: 1, summary_tokens: 0 })

      for (const name of [model, "summed"]) {
        const summed = yield* request("GET", `/v4/models/${name}/usage-statistics?start_date=1970-01-01&end_date=1970-01-02`, { key: caller.key })
        assert.strictEqual(summed.status, 200, JSON.stringify(summed.body))
        assert.deepInclude(summed.body.data[0], { request_count: 2, error_count: 1, prompt_tokens: 3, response_tokens: 3 })
      }
    }))

  it.effect("the window: defaults to the deployment's life in one chunk; a bad window a 422; another account's deployment a 404", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const id = yield* readyDeployment(caller)
      assert.strictEqual((yield* post(caller, `/v4/models/${id}/completions`, { prompt: "p" })).status, 200)
      yield* TestClock.adjust("1 minute")
      const whole = yield* request("GET", `/v4/model-deployments/${id}/usage-statistics`, { key: caller.key })
      assert.strictEqual(whole.status, 200, JSON.stringify(whole.body))
      assert.strictEqual(whole.body.data.length, 1)
      assert.deepInclude(whole.body.data[0], { request_count: 1, summary_tokens: 2 })

      const backwards = yield* request("GET", usagePath(id, "start_date=1970-01-02&end_date=1970-01-01"), { key: caller.key })
      assert.strictEqual(backwards.status, 422)
      assert.deepStrictEqual(issues(backwards), [{ loc: ["query", "end_date"], type: "value_error" }])
      for (const query of ["chunks=0", "chunks=1001", "chunks=x", "start_date=yesterday", "end_date=1970-13-01"]) {
        const bad = yield* request("GET", usagePath(id, query), { key: caller.key })
        assert.strictEqual(bad.status, 422, query)
        assert.strictEqual(issues(bad)[0].loc[0], "query", query)
      }
      assert.strictEqual((yield* request("GET", usagePath(id, ""), { key: other.key })).status, 404)
      assert.strictEqual((yield* request("GET", `/v4/models/${id}/usage-statistics`, { key: other.key })).status, 404)
    }))
})
