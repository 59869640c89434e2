/**
 * Running a deployment's model (docs/models.md "Execution"): the built-in model end to end, and an
 * OpenAI-compatible upstream that is a real HTTP server of the test's own on 127.0.0.1 (what it
 * receives, what the kit answers: retries, timeouts, refusals).
 */
import { assert, layer } from "@effect/vitest"
import { ModelDeployment } from "@platform-kit/schema"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, Fiber, Stream, TestServices } from "effect"
import * as Net from "node:net"
import { Accounts } from "../src/auth/Accounts.js"
import { ModelDeploymentsRepo } from "../src/models/deployments/ModelDeploymentsRepo.js"
import { issues, provision, request, TestServerLive } from "../src/testing.js"
import { makeStreams } from "@platform-kit/client"
import { type Caller, readyDeployment, readyDeploymentOf, registerModel } from "./support/models.js"
import { chatAnswer, closedEarly, upstream } from "./support/upstream.js"

const live = (millis: number) => TestServices.provideLive(Effect.sleep(`${millis} millis`))

const post = (caller: Caller, path: string, body: unknown) => request("POST", path, { key: caller.key, body })

/** A chunk of a streamed chat completion as OpenAI sends it: a piece of the reply, or the finish, or the usage. */
const chatChunk = (delta: { content?: string }, finish_reason: string | null = null, usage: unknown = undefined) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model: "upstream-model",
  choices: usage === undefined ? [{ index: 0, delta, finish_reason }] : [],
  ...(usage === undefined ? {} : { usage })
})

/** A streamed answer of the kit: its `data:` frames, each parsed as JSON except `[DONE]`. */
const framesOf = (response: { readonly headers: Record<string, string>; readonly body: unknown }) => {
  assert.match(response.headers["content-type"] ?? "", /^text\/event-stream/)
  assert.isString(response.body)
  const text = response.body as string
  assert.isTrue(text.endsWith("\n\n"), "each frame ends with a blank line")
  return text.split("\n\n").filter((frame) => frame !== "").map((frame) => {
    assert.isTrue(frame.startsWith("data: "), frame)
    const data = frame.slice("data: ".length)
    return data === "[DONE]" ? data : JSON.parse(data)
  })
}

layer(TestServerLive, { timeout: 60_000 })("model inference", (it) => {
  it.effect("the built-in model: chat echoes the user's prompt with token counts; limits, stop sequences and bindings apply", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* readyDeployment(caller)
      const chat = yield* post(caller, `/v4/models/${id}/chat-completions`, {
        chat_history: [{ role: "system", content: "be brief" }, { role: "user", content: "earlier" }, { role: "assistant", content: "ok" }],
        prompt: "Hello, {{name}}! How are you?",
        model_request_parameters: { bindings: { name: "Ada" } }
      })
      assert.strictEqual(chat.status, 200, JSON.stringify(chat.body))
      assert.deepStrictEqual(chat.body, {
        completions: [["Hello, {{name}}! How are you?", ["Hello, Ada! How are you?"]]],
        finish_reason: "stop",
        // "be brief" 2 + "earlier" 1 + "ok" 1 + "Hello , Ada ! How are you ?" 8
        prompt_tokens: 12,
        response_tokens: 8
      })
      const limited = yield* post(caller, `/v4/models/${id}/completions`, { prompt: "one two three four", max_tokens: 2 })
      assert.deepStrictEqual([limited.body.completions[0][1][0], limited.body.finish_reason], ["one two", "length"])
      const stopped = yield* post(caller, `/v4/models/${id}/completions`, { prompt: "alpha. beta", stop_sequences: ["."] })
      assert.deepStrictEqual([stopped.body.completions[0][1][0], stopped.body.finish_reason], ["alpha", "stop"])
      // the typed client decodes the answer
      const typed = yield* (yield* provision()).client.inference.completions({ path: { model_deployment_id: id }, payload: { prompt: "x" } }).pipe(
        Effect.flip
      )
      assert.strictEqual(typed._tag, "NotFound")
    }))

  it.effect("the built-in embeddings: unit vectors of 256, similar texts closer; rerankings score chunks by similarity", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* readyDeployment(caller, { provider: "builtin" })
      const texts = ["the cat sat on the mat", "a cat sat on a mat", "quarterly revenue grew"]
      const response = yield* post(caller, `/v4/models/${id}/embeddings`, { texts })
      assert.strictEqual(response.status, 200, JSON.stringify(response.body))
      const vectors = response.body.embeddings.map(([text, vector]: [string, Array<number>], i: number) => {
        assert.strictEqual(text, texts[i])
        return vector
      })
      for (const vector of vectors) {
        assert.strictEqual(vector.length, 256)
        assert.closeTo(Math.hypot(...vector), 1, 1e-9)
      }
      const dot = (a: Array<number>, b: Array<number>) => a.reduce((sum, x, i) => sum + x * b[i]!, 0)
      assert.isAbove(dot(vectors[0], vectors[1]), dot(vectors[0], vectors[2]) + 0.3)
      assert.strictEqual(response.body.tokens_used, 15)
      // the same text, the same vector
      const again = yield* post(caller, `/v4/models/${id}/embeddings`, { texts: [texts[0]] })
      assert.deepStrictEqual(again.body.embeddings[0][1], vectors[0])

      const ranked = yield* post(caller, `/v4/models/${id}/rerankings`, {
        query: "where did the cat sit",
        chunks: ["revenue tables", "the cat sat on the mat", "dogs bark"]
      })
      assert.strictEqual(ranked.status, 200)
      const scores: Array<number> = ranked.body.chunk_scores
      assert.strictEqual(scores.length, 3)
      assert.strictEqual(scores.indexOf(Math.max(...scores)), 1)
    }))

  it.effect("a deployment not READY is a 409, another account's a 404, a bad body a 422; unrunnable parameters a 409", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const id = yield* readyDeployment(caller)
      const path = `/v4/models/${id}/chat-completions`
      assert.strictEqual((yield* post(other, path, { chat_history: [], prompt: "x" })).status, 404)
      assert.strictEqual((yield* post(other, path, { chat_history: [], prompt: "x", stream: true })).status, 404)
      const bad = yield* post(caller, path, { prompt: 3, temperature: 5 })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad).map((issue: any) => issue.loc), [["body", "chat_history"], ["body", "prompt"], ["body", "temperature"]])

      const repo = yield* Effect.provide(ModelDeploymentsRepo, ModelDeploymentsRepo.Default)
      const deployment = yield* repo.get(id, [caller.accountId])
      yield* repo.update(new ModelDeployment({ ...deployment, status: "PENDING" }))
      const pending = yield* post(caller, path, { chat_history: [], prompt: "x" })
      assert.deepStrictEqual([pending.status, pending.body], [409, { detail: `Model deployment ${id} is PENDING, not READY` }])

      // parameters a provider cannot run are a 422 when written…
      const model = yield* registerModel(caller, "checked")
      const deploymentsPath = `/v4/models/${model}/deployments`
      const incomplete = yield* post(caller, deploymentsPath, { name: "d", model_creation_parameters: { provider: "openai_compatible", model: "m" } })
      assert.strictEqual(incomplete.status, 422)
      assert.deepStrictEqual(issues(incomplete), [{ loc: ["body", "model_creation_parameters", "base_url"], type: "missing" }])
      const unknown = yield* post(caller, deploymentsPath, { name: "d", model_creation_parameters: { provider: "magic" } })
      assert.deepStrictEqual(issues(unknown), [{ loc: ["body", "model_creation_parameters", "provider"], type: "literal_error" }])
      const noKey = yield* post(caller, deploymentsPath, {
        name: "d",
        model_creation_parameters: { provider: "openai_compatible", base_url: "http://127.0.0.1:1/v1", model: "m", api_key_credential_id: "missing" }
      })
      assert.deepStrictEqual(issues(noKey), [{ loc: ["body", "model_creation_parameters", "api_key_credential_id"], type: "value_error" }])
      const patched = yield* request("PATCH", `${deploymentsPath.replace(model, deployment.model_instance_id)}/${id}`, {
        key: caller.key,
        body: { model_creation_parameters: { provider: "openai_compatible", base_url: "ftp://x", model: "m", max_retries: 99 } }
      })
      assert.deepStrictEqual(issues(patched), [
        { loc: ["body", "model_creation_parameters", "base_url"], type: "value_error" },
        { loc: ["body", "model_creation_parameters", "max_retries"], type: "range_error" }
      ])
      // …and a row written otherwise (before the check, or straight to the table) is a 409 when run
      yield* repo.update(new ModelDeployment({ ...deployment, status: "READY", model_creation_parameters: { provider: "openai_compatible", model: "m" } }))
      const refused = yield* post(caller, `/v4/models/${id}/completions`, { prompt: "x" })
      assert.strictEqual(refused.status, 409)
      assert.match(refused.body.detail, /cannot run: its model_creation_parameters do not name a provider/)
    }))

  it.effect("a deployment changed or deleted between two calls: the next call runs what was committed last", () =>
    Effect.gen(function*() {
      // the execution path keeps a deployment as read until the next commit (ModelDeploymentsRepo.getCommitted)
      const caller = yield* provision()
      const first = yield* upstream(() => ({ status: 200, body: chatAnswer("from the first") }))
      const second = yield* upstream(() => ({ status: 200, body: chatAnswer("from the second") }))
      const model = yield* registerModel(caller)
      const id = yield* readyDeploymentOf(caller, model, { provider: "openai_compatible", base_url: first.url, model: "m" })
      const path = `/v4/models/${id}/chat-completions`
      const replyOf = (response: { readonly body: any }) => response.body.completions?.[0]?.[1]?.[0]
      for (let i = 0; i < 3; i++) assert.strictEqual(replyOf(yield* post(caller, path, { chat_history: [], prompt: "x" })), "from the first")

      const patched = yield* request("PATCH", `/v4/models/${model}/deployments/${id}`, {
        key: caller.key,
        body: { model_creation_parameters: { provider: "openai_compatible", base_url: second.url, model: "m" } }
      })
      assert.strictEqual(patched.status, 200, JSON.stringify(patched.body))
      assert.strictEqual(replyOf(yield* post(caller, path, { chat_history: [], prompt: "x" })), "from the second")
      assert.deepStrictEqual([first.received.length, second.received.length], [3, 1])

      const deleted = yield* request("DELETE", `/v4/models/${model}/deployments/${id}`, { key: caller.key })
      assert.strictEqual(deleted.status, 200, JSON.stringify(deleted.body))
      const gone = yield* post(caller, path, { chat_history: [], prompt: "x" })
      assert.deepStrictEqual([gone.status, gone.body], [404, { detail: `Model deployment ${id} not found` }])
      assert.strictEqual(second.received.length, 1)
    }).pipe(Effect.scoped))

  it.effect("a deployment kept for one caller is never another account's: an id spelling its key is a 404", () =>
    Effect.gen(function*() {
      // a member of accounts [A, B] runs A's deployment; a caller of B alone then asks for the id
      // `<deployment>\0<A>`, which a key joined with NULs would have confused with the first call's
      const member = yield* provision()
      const other = yield* provision()
      const id = yield* readyDeployment(member)
      const accounts = yield* Accounts
      yield* accounts.addMember(member.identityId, other.accountId)
      const path = `/v4/models/${id}/chat-completions`
      assert.strictEqual((yield* post(member, path, { chat_history: [], prompt: "mine" })).status, 200)
      const spelled = yield* post(other, `/v4/models/${encodeURIComponent(`${id}\u0000${member.accountId}`)}/chat-completions`, {
        chat_history: [],
        prompt: "theirs"
      })
      assert.strictEqual(spelled.status, 404, JSON.stringify(spelled.body))
      assert.strictEqual((yield* post(other, path, { chat_history: [], prompt: "theirs" })).status, 404)
      // the same two reads back to back, no commit between them to clear what the first kept
      const repo = yield* Effect.provide(ModelDeploymentsRepo, ModelDeploymentsRepo.Default)
      assert.strictEqual((yield* repo.getCommitted(id, [member.accountId, other.accountId])).id, id)
      const refused = yield* Effect.flip(repo.getCommitted(`${id}\u0000${member.accountId}`, [other.accountId]))
      assert.strictEqual(refused._tag, "NotFound")
    }))

  it.effect("an OpenAI-compatible upstream: the kit sends the model, messages and the credential's key; answers its reply", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const server = yield* upstream((received) =>
        received.path === "/v1/embeddings"
          ? {
            status: 200,
            body: {
              object: "list",
              model: "emb",
              data: received.body.input.map((_: string, index: number) => ({ object: "embedding", index, embedding: [index, 1, 0] })).reverse(),
              usage: { prompt_tokens: 7, total_tokens: 7 }
            }
          }
          : { status: 200, body: chatAnswer("Bonjour") })
      const secret = "sk-test-0123456789"
      const credential = yield* post(caller, "/v5/credentials", { name: "upstream key", type: "key", payload: secret })
      assert.strictEqual(credential.status, 200, JSON.stringify(credential.body))
      const id = yield* readyDeployment(caller, {
        provider: "openai_compatible",
        base_url: server.url,
        model: "upstream-model",
        api_key_credential_id: credential.body.id
      })
      const chat = yield* post(caller, `/v4/models/${id}/chat-completions`, {
        chat_history: [{ role: "system", content: "translate" }],
        prompt: "Hello",
        temperature: 0.1,
        max_tokens: 5
      })
      assert.strictEqual(chat.status, 200, JSON.stringify(chat.body))
      assert.deepStrictEqual(chat.body, { completions: [["Hello", ["Bonjour"]]], finish_reason: "stop", prompt_tokens: 11, response_tokens: 3 })
      const [sent] = server.received
      assert.strictEqual(sent!.path, "/v1/chat/completions")
      assert.strictEqual(sent!.authorization, `Bearer ${secret}`)
      assert.deepStrictEqual(sent!.body, {
        model: "upstream-model",
        messages: [{ role: "system", content: "translate" }, { role: "user", content: "Hello" }],
        max_tokens: 5,
        temperature: 0.1
      })
      // the key is not in any answer
      assert.notInclude(JSON.stringify(chat.body), secret)

      // a server that sends only what it must (no id, created, refusal, logprobs, usage: as some local servers do)
      const terse = yield* upstream(() => ({ status: 200, body: { choices: [{ message: { role: "assistant", content: "hi" } }] } }))
      const terseId = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: terse.url, model: "m" })
      const terseChat = yield* post(caller, `/v4/models/${terseId}/chat-completions`, { chat_history: [], prompt: "x" })
      assert.deepStrictEqual([terseChat.status, terseChat.body], [200, { completions: [["x", ["hi"]]], finish_reason: "stop", prompt_tokens: 0, response_tokens: 0 }])

      const embedded = yield* post(caller, `/v4/models/${id}/embeddings`, { texts: ["a", "b"] })
      assert.deepStrictEqual(embedded.body, { embeddings: [["a", [0, 1, 0]], ["b", [1, 1, 0]]], tokens_used: 7 })
      assert.deepStrictEqual(server.received[1]!.body, { model: "upstream-model", input: ["a", "b"], encoding_format: "float" })
    }).pipe(Effect.scoped))

  it.effect("logprobs, top_k and chat templates: passed to the upstream as it takes them; log probabilities answered in choices", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const server = yield* upstream((received) =>
        received.path === "/v1/completions"
          ? {
            status: 200,
            body: {
              id: "cmpl-1",
              object: "text_completion",
              created: 1_700_000_000,
              model: "m",
              choices: [{
                index: 0,
                text: "yes",
                finish_reason: "stop",
                logprobs: { tokens: ["yes"], token_logprobs: [-0.25], top_logprobs: [{ yes: -0.25, no: -1.5 }], text_offset: [0] }
              }],
              usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 }
            }
          }
          : {
            status: 200,
            body: {
              ...chatAnswer("ok"),
              choices: [{
                index: 0,
                message: { role: "assistant", content: "ok", refusal: null },
                finish_reason: "stop",
                logprobs: { content: [{ token: "ok", logprob: -0.5, bytes: [111, 107], top_logprobs: [{ token: "ok", logprob: -0.5, bytes: null }] }], refusal: null }
              }]
            }
          })
      const id = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: server.url, model: "m" })
      const chat = yield* post(caller, `/v4/models/${id}/chat-completions`, {
        chat_history: [],
        prompt: "ok?",
        logprobs: true,
        top_logprobs: 1,
        top_k: 5,
        chat_template: "{{ messages }}",
        chat_template_kwargs: { enable_thinking: false }
      })
      assert.strictEqual(chat.status, 200, JSON.stringify(chat.body))
      assert.deepStrictEqual(chat.body.choices, [{ index: 0, logprobs: { content: [{ token: "ok", logprob: -0.5, top_logprobs: [{ token: "ok", logprob: -0.5 }] }] } }])
      assert.deepInclude(server.received[0]!.body, {
        logprobs: true,
        top_logprobs: 1,
        top_k: 5,
        chat_template: "{{ messages }}",
        chat_template_kwargs: { enable_thinking: false }
      })
      const completion = yield* post(caller, `/v4/models/${id}/completions`, { prompt: "y/n", logprobs: true, top_logprobs: 2 })
      assert.deepStrictEqual(completion.body.choices, [{
        index: 0,
        logprobs: { content: [{ token: "yes", logprob: -0.25, top_logprobs: [{ token: "yes", logprob: -0.25 }, { token: "no", logprob: -1.5 }] }] }
      }])
      assert.strictEqual(server.received[1]!.body.logprobs, 2)
      // without logprobs asked for, no choices
      assert.notProperty((yield* post(caller, `/v4/models/${id}/chat-completions`, { chat_history: [], prompt: "x" })).body, "choices")

      // the built-in model is certain of each token it echoes
      const builtin = yield* readyDeployment(caller)
      const echoed = yield* post(caller, `/v4/models/${builtin}/completions`, { prompt: "a b", logprobs: true, top_logprobs: 1 })
      assert.deepStrictEqual(echoed.body.choices[0].logprobs.content, [
        { token: "a", logprob: 0, top_logprobs: [{ token: "a", logprob: 0 }] },
        { token: "b", logprob: 0, top_logprobs: [{ token: "b", logprob: 0 }] }
      ])
    }).pipe(Effect.scoped))

  it.effect("an upstream's 429 is retried; its 400 passed on with its reason; one too slow is a 504; one down a 502", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const flaky = yield* upstream((_, count) =>
        count <= 2 ? { status: 429, body: { error: { message: "slow down" } } } : { status: 200, body: chatAnswer("fine") })
      const retried = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: flaky.url, model: "m", max_retries: 3 })
      const ok = yield* post(caller, `/v4/models/${retried}/chat-completions`, { chat_history: [], prompt: "hi" })
      assert.deepStrictEqual([ok.status, ok.body.completions[0][1][0]], [200, "fine"])
      assert.strictEqual(flaky.received.length, 3)

      const limited = yield* upstream(() => ({ status: 429, body: { error: { message: "quota" } } }))
      const noRetry = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: limited.url, model: "m", max_retries: 1 })
      const tooMany = yield* post(caller, `/v4/models/${noRetry}/chat-completions`, { chat_history: [], prompt: "hi" })
      assert.deepStrictEqual([tooMany.status, tooMany.body], [429, { detail: "The model's upstream is rate limiting (429): quota" }])
      assert.strictEqual(limited.received.length, 2)

      const strict = yield* upstream(() => ({ status: 400, body: { error: { message: "max_tokens is too large" } } }))
      const refusing = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: strict.url, model: "m" })
      const refused = yield* post(caller, `/v4/models/${refusing}/completions`, { prompt: "hi", max_tokens: 99999 })
      assert.deepStrictEqual([refused.status, refused.body], [
        400,
        { detail: "The model's upstream refused the request (400): max_tokens is too large" }
      ])
      assert.strictEqual(strict.received.length, 1)
      assert.strictEqual(strict.received[0]!.path, "/v1/completions")

      const slow = yield* upstream(() => ({ status: 200, body: chatAnswer("late"), delayMs: 2_000 }))
      const timing = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: slow.url, model: "m", timeout_ms: 200 })
      const started = Date.now()
      const timedOut = yield* post(caller, `/v4/models/${timing}/chat-completions`, { chat_history: [], prompt: "hi" })
      assert.strictEqual(timedOut.status, 504, JSON.stringify(timedOut.body))
      assert.match(timedOut.body.detail, /did not answer within 200 ms/)
      assert.isBelow(Date.now() - started, 1_500)
      // the call that timed out is aborted: the upstream sees its connection closed before its answer
      yield* closedEarly(slow.received)
      assert.strictEqual(slow.received[0]?.closedEarly, true)

      // a body that stalls once answered 200: its reading is bounded too, and aborted
      const stuck = yield* upstream(() => ({ status: 200, events: [{ n: 1 }], intervalMs: 1_000, endsWith: "silence" }))
      const stuckId = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: stuck.url, model: "m", timeout_ms: 300 })
      const unfinished = yield* post(caller, `/v4/models/${stuckId}/chat-completions`, { chat_history: [], prompt: "hi" })
      assert.strictEqual(unfinished.status, 504, JSON.stringify(unfinished.body))
      assert.isTrue(yield* closedEarly(stuck.received))

      // a connection never made (a TLS handshake never answered): the call still ends at its time
      const silent = yield* Effect.acquireRelease(
        Effect.async<{ readonly port: number; readonly sockets: Array<Net.Socket>; readonly server: Net.Server }>((resume) => {
          const sockets: Array<Net.Socket> = []
          const server = Net.createServer((socket) => void sockets.push(socket))
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ port: (server.address() as Net.AddressInfo).port, sockets, server })))
        }),
        ({ server, sockets }) =>
          Effect.sync(() => {
            for (const socket of sockets) socket.destroy()
            server.close()
          })
      )
      const silentId = yield* readyDeployment(caller, {
        provider: "openai_compatible",
        base_url: `https://127.0.0.1:${silent.port}/v1`,
        model: "m",
        timeout_ms: 300,
        max_retries: 0
      })
      const handshakeFrom = Date.now()
      const unconnected = yield* post(caller, `/v4/models/${silentId}/chat-completions`, { chat_history: [], prompt: "hi" })
      assert.strictEqual(unconnected.status, 504, JSON.stringify(unconnected.body))
      assert.isBelow(Date.now() - handshakeFrom, 2_000)
      assert.strictEqual(silent.sockets.length, 1)

      // the retries' waits end with the call's time: attempts at 0, 100, 300 and 700 ms, then a wait of
      // 800 ms asked (to 1,500 ms) and 800 ms given in all
      const busy = yield* upstream(() => ({ status: 503, body: { error: { message: "busy" } } }))
      const busyId = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: busy.url, model: "m", timeout_ms: 800, max_retries: 4 })
      const retriedFrom = Date.now()
      const gaveUp = yield* post(caller, `/v4/models/${busyId}/chat-completions`, { chat_history: [], prompt: "hi" })
      assert.strictEqual(gaveUp.status, 504, JSON.stringify(gaveUp.body))
      assert.isBelow(Date.now() - retriedFrom, 1_300)
      assert.strictEqual(busy.received.length, 4)

      // a call that timed out gives its permit back (one call at a time); a 503 is retried as a 429 is
      const once = yield* upstream((_, count) =>
        count === 1
          ? { status: 200, body: chatAnswer("late"), delayMs: 2_000 }
          : count === 2
          ? { status: 503, body: { error: { message: "busy" } } }
          : { status: 200, body: chatAnswer("next") })
      const single = yield* readyDeployment(caller, {
        provider: "openai_compatible",
        base_url: once.url,
        model: "m",
        timeout_ms: 300,
        max_concurrency: 1,
        max_retries: 1
      })
      const late = yield* post(caller, `/v4/models/${single}/chat-completions`, { chat_history: [], prompt: "hi" })
      assert.strictEqual(late.status, 504, JSON.stringify(late.body))
      const next = yield* post(caller, `/v4/models/${single}/chat-completions`, { chat_history: [], prompt: "hi" })
      assert.deepStrictEqual([next.status, next.body.completions[0][1][0]], [200, "next"])
      assert.strictEqual(once.received.length, 3)

      // an upstream that is gone: its port closed
      const gone = yield* Effect.scoped(Effect.map(upstream(() => ({ status: 200, body: {} })), (server) => server.url))
      const down = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: gone, model: "m", max_retries: 0 })
      const failed = yield* post(caller, `/v4/models/${down}/chat-completions`, { chat_history: [], prompt: "hi" })
      assert.strictEqual(failed.status, 502, JSON.stringify(failed.body))
      assert.match(failed.body.detail, /could not be reached/)
    }).pipe(Effect.scoped))
  it.effect("max_concurrency: one call at a time from the first calls on; a call waiting for the permit is bounded by timeout_ms from its start, its wait included; one whose permit comes in time answers", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const chat = (id: string) => post(caller, `/v4/models/${id}/chat-completions`, { chat_history: [], prompt: "hi" })
      const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.map(Effect.all([Effect.sync(() => Date.now()), effect]), ([from, answer]) => ({ answer, ms: Date.now() - from }))
      const slow = yield* upstream(() => ({ status: 200, body: chatAnswer("late"), delayMs: 3_000 }))
      const single = { provider: "openai_compatible", base_url: slow.url, model: "m", timeout_ms: 1_000, max_concurrency: 1, max_retries: 0 }

      // the first calls to a deployment, at once: one permit for both (its client is made once)
      const fresh = yield* readyDeployment(caller, single)
      const both = yield* Effect.fork(Effect.all([chat(fresh), chat(fresh)], { concurrency: 2 }))
      for (let i = 0; i < 100 && slow.received.length === 0; i++) yield* live(20)
      yield* live(200)
      assert.strictEqual(slow.received.length, 1, "one request at a time")
      assert.deepStrictEqual((yield* Fiber.join(both)).map((answer) => answer.status), [504, 504])

      // an upstream that takes 3 s: the first call holds the permit until its 504 at 1 s; the
      // second, 300 ms later, waits for it, sends its request at ~1 s and ends at its own 1 s
      // (~1.3 s): both aborted at the upstream
      const warmed = yield* readyDeployment(caller, single)
      assert.strictEqual((yield* chat(warmed)).status, 504)
      const before = slow.received.length
      const first = yield* Effect.fork(timed(chat(warmed)))
      yield* live(300)
      const second = yield* timed(chat(warmed))
      const firstDone = yield* Fiber.join(first)
      assert.strictEqual(firstDone.answer.status, 504, JSON.stringify(firstDone.answer.body))
      assert.strictEqual(second.answer.status, 504, JSON.stringify(second.answer.body))
      assert.match(second.answer.body.detail, /did not answer within 1000 ms/)
      // ~1,000 ms; were its time counted from the permit, ~1,700
      assert.isBelow(second.ms, 1_350, "the wait for the permit counts in the call's time")
      yield* live(200)
      const sent = slow.received.slice(before)
      assert.strictEqual(sent.length, 2, "the second call was sent once the first gave its permit back")
      assert.isTrue(sent.every((received) => received.closedEarly === true), "both requests aborted")

      // a permit that comes in time: the waiting call answers after the first
      const quick = yield* upstream(() => ({ status: 200, body: chatAnswer("ok"), delayMs: 200 }))
      const one = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: quick.url, model: "m", timeout_ms: 2_000, max_concurrency: 1 })
      const answers = yield* Effect.all([timed(chat(one)), timed(chat(one))], { concurrency: 2 })
      assert.deepStrictEqual(answers.map(({ answer }) => [answer.status, answer.body.completions[0][1][0]]), [[200, "ok"], [200, "ok"]])
      assert.isAtLeast(Math.max(...answers.map(({ ms }) => ms)), 380, "one after the other, not at once")
      assert.strictEqual(quick.received.length, 2)
    }).pipe(Effect.scoped))
  it.effect("execute: a deployment, its model server and its alias run the model's request; the answer beside status and status_code", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const model = yield* registerModel(caller, "chatty", "CHAT_COMPLETION")
      const made = yield* post(caller, `/v4/models/${model}/deployments`, { name: "d" })
      let status = made.body.status
      for (let i = 0; i < 500 && status !== "READY"; i++) {
        yield* live(5)
        status = (yield* request("GET", `/v4/model-deployments/${made.body.id}`, { key: caller.key })).body.status
      }
      const alias = `chat-${caller.accountId.slice(0, 8)}`
      const server = yield* post(caller, "/v4/serving", { name: "s", model_deployment_id: made.body.id, alias })
      assert.strictEqual(server.status, 200, JSON.stringify(server.body))
      const expected = { status: "SUCCESS", status_code: 200, completions: [["hi", ["hi"]]], finish_reason: "stop", prompt_tokens: 1, response_tokens: 1 }
      for (const path of [
        `/v4/models/${model}/deployments/${made.body.id}/execute`,
        `/v4/serving/${server.body.model_server_id}/execute`,
        `/v4/serving/a/${alias}/execute`,
        `/models/server/alias/${alias}/execute`
      ]) {
        const response = yield* post(caller, path, { chat_history: [], prompt: "hi" })
        assert.deepStrictEqual([response.status, response.body], [200, expected], path)
        assert.strictEqual((yield* post(other, path, { chat_history: [], prompt: "hi" })).status, 404, path)
      }
      // the typed client decodes the generic answer with its extra fields
      const typed = yield* caller.client.inference.executeAlias({ path: { alias }, urlParams: {}, payload: { chat_history: [], prompt: "yo" } })
      assert.deepStrictEqual(typed.completions, [["yo", ["yo"]]])
      // a chat model takes a chat request: other fields are a 422 naming what is missing
      const wrong = yield* post(caller, `/v4/serving/a/${alias}/execute`, { texts: ["a"] })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong).map((issue: any) => issue.loc), [["body", "chat_history"], ["body", "prompt"]])
      // stream: each piece beside status and status_code, the finish last
      const streamed = framesOf(yield* post(caller, `/v4/serving/a/${alias}/execute`, { stream: true, prompt: "x y", chat_history: [] }))
      assert.deepStrictEqual(streamed, [
        { status: "SUCCESS", status_code: 200, completions: [["x y", ["x"]]] },
        { status: "SUCCESS", status_code: 200, completions: [["x y", [" y"]]] },
        { status: "SUCCESS", status_code: 200, completions: [["x y", [""]]], finish_reason: "stop", prompt_tokens: 2, response_tokens: 2 },
        "[DONE]"
      ])
      const otherModel = yield* registerModel(caller, "other")
      assert.strictEqual((yield* post(caller, `/v4/models/${otherModel}/deployments/${made.body.id}/execute`, { prompt: "x" })).status, 404)

      // a GENERIC model runs what the body's fields say
      const generic = yield* registerModel(caller, "anything", "GENERIC")
      const genericDeployment = yield* post(caller, `/v4/models/${generic}/deployments`, { name: "g" })
      for (let i = 0; i < 500; i++) {
        if ((yield* request("GET", `/v4/model-deployments/${genericDeployment.body.id}`, { key: caller.key })).body.status === "READY") break
        yield* live(5)
      }
      const execute = `/v4/models/${generic}/deployments/${genericDeployment.body.id}/execute`
      const ranked = yield* post(caller, execute, { query: "cat", chunks: ["dog", "cat"] })
      assert.strictEqual(ranked.status, 200, JSON.stringify(ranked.body))
      assert.isAbove(ranked.body.chunk_scores[1], ranked.body.chunk_scores[0])
      const embedded = yield* post(caller, execute, { texts: ["x"] })
      assert.strictEqual(embedded.body.embeddings[0][1].length, 256)
      const completed = yield* post(caller, execute, { prompt: "go" })
      assert.deepStrictEqual(completed.body.completions, [["go", ["go"]]])
      // only generations stream
      const streamedEmbeddings = yield* post(caller, execute, { texts: ["x"], stream: true })
      assert.strictEqual(streamedEmbeddings.status, 422)
      assert.deepStrictEqual(issues(streamedEmbeddings), [{ loc: ["body", "stream"], type: "value_error" }])
      const nothing = yield* post(caller, execute, { hello: 1 })
      assert.strictEqual(nothing.status, 422)
      assert.deepStrictEqual(issues(nothing), [{ loc: ["body"], type: "value_error" }])
    }))

  it.effect("/v4/chat-completions and /v4/completions: model names the built-in model, an alias, a deployment id or a model; else a 404", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const chat = (model: string, extra: Record<string, unknown> = {}) =>
        post(caller, "/v4/chat-completions", { model, messages: [{ role: "user", content: "first" }, { role: "user", content: "second" }], ...extra })
      const builtin = yield* chat("builtin", { instructions: "be brief", memory_strategy: { name: "last_k", params: { k: 1 } } })
      assert.deepStrictEqual([builtin.status, builtin.body], [200, {
        chat_completion: { message: { role: "assistant", content: "second" }, finish_reason: "stop" },
        // "be brief" 2 + "second" 1 (the last k = 1 message), then the reply's 1
        token_usage: { total: 4, completion: 1, prompt: 3 }
      }])
      const completion = yield* post(caller, "/v4/completions", { model: "builtin/echo", prompt: "one two three", model_parameters: { max_tokens: 2, topP: 0.5 } })
      assert.deepStrictEqual(completion.body, {
        completion: { text: "one two", finish_reason: "length" },
        token_usage: { total: 5, completion: 2, prompt: 3 }
      })

      const model = yield* registerModel(caller, `named-${caller.accountId.slice(0, 8)}`)
      const none = yield* chat(`named-${caller.accountId.slice(0, 8)}`)
      assert.deepStrictEqual([none.status, none.body.detail], [409, `Model named-${caller.accountId.slice(0, 8)} has no READY deployment`])
      const deployment = yield* readyDeploymentOf(caller, model)
      const alias = `alias-${caller.accountId.slice(0, 8)}`
      assert.strictEqual((yield* post(caller, "/v4/serving", { name: "s", model_deployment_id: deployment, alias })).status, 200)
      for (const name of [alias, deployment, model, `named-${caller.accountId.slice(0, 8)}`]) {
        const answered = yield* chat(name)
        assert.strictEqual(answered.status, 200, `${name}: ${JSON.stringify(answered.body)}`)
        assert.strictEqual(answered.body.chat_completion.message.content, "second")
      }
      const unknown = yield* chat("gpt-4o")
      assert.strictEqual(unknown.status, 404)
      assert.match(unknown.body.detail, /^Model gpt-4o not found/)
      // another account's alias is not found
      assert.strictEqual((yield* post(yield* provision(), "/v4/chat-completions", { model: alias, messages: [] })).status, 404)
      const typed = yield* caller.client.inference.completionsByModel({ payload: { model: "builtin", prompt: "typed" } })
      assert.strictEqual(typed.completion.text, "typed")
    }))

  it.effect("stream: the built-in model streams its reply token by token as server-sent events, then the finish and [DONE]", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* readyDeployment(caller)
      const chat = yield* post(caller, `/v4/models/${id}/chat-completions`, {
        chat_history: [],
        prompt: "Hello, streaming world",
        max_tokens: 3,
        stream: true
      })
      assert.strictEqual(chat.status, 200)
      assert.strictEqual(chat.headers["cache-control"], "no-cache")
      assert.deepStrictEqual(framesOf(chat), [
        { completions: [["Hello, streaming world", ["Hello"]]] },
        { completions: [["Hello, streaming world", [","]]] },
        { completions: [["Hello, streaming world", [" streaming"]]] },
        { completions: [["Hello, streaming world", [""]]], finish_reason: "length", prompt_tokens: 4, response_tokens: 3 },
        "[DONE]"
      ])
      const completion = framesOf(yield* post(caller, `/v4/models/${id}/completions`, { prompt: "a b", stream: true }))
      assert.deepStrictEqual(completion.slice(0, 2), [{ completions: [["a b", ["a"]]] }, { completions: [["a b", [" b"]]] }])

      // the top-level endpoints: token_usage null until the last frame
      const top = framesOf(yield* post(caller, "/v4/chat-completions", {
        model: "builtin/echo",
        messages: [{ role: "user", content: "one two" }],
        stream: true
      }))
      assert.deepStrictEqual(top, [
        { chat_completion: { message: { role: "assistant", content: "one" } }, token_usage: null },
        { chat_completion: { message: { role: "assistant", content: " two" } }, token_usage: null },
        { chat_completion: { message: { role: "assistant", content: "" }, finish_reason: "stop" }, token_usage: { total: 4, completion: 2, prompt: 2 } },
        "[DONE]"
      ])
      const completions = framesOf(yield* post(caller, "/v4/completions", { model: "builtin", prompt: "p", stream: true }))
      assert.deepStrictEqual(completions, [
        { completion: { text: "p" }, token_usage: null },
        { completion: { text: "", finish_reason: "stop" }, token_usage: { total: 2, completion: 1, prompt: 1 } },
        "[DONE]"
      ])
      // an error before the stream starts is the usual answer, not a stream
      const missing = yield* post(caller, "/v4/chat-completions", { model: "no-such-model", messages: [{ content: "x" }], stream: true })
      assert.strictEqual(missing.status, 404)
    }))

  it.effect("stream: an upstream's chunks are passed on as they come; its usage in the finish; refusals before the start a status, after it an error frame", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const usage = { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 }
      const chunks = [chatChunk({ content: "" }), chatChunk({ content: "Bon" }), chatChunk({ content: "jour" }), chatChunk({}, "stop"), chatChunk({}, null, usage)]
      const streaming = yield* upstream((received, count) =>
        count === 1
          ? { status: 429, body: { error: { message: "later" } } }
          : received.path === "/v1/completions"
          ? { status: 200, events: [{ choices: [{ index: 0, text: "lo", finish_reason: null }] }, { choices: [{ index: 0, text: "", finish_reason: "length" }] }] }
          : { status: 200, events: chunks })
      const secret = "sk-stream-0123456789"
      const credential = yield* post(caller, "/v5/credentials", { name: "stream key", type: "key", payload: secret })
      const id = yield* readyDeployment(caller, {
        provider: "openai_compatible",
        base_url: streaming.url,
        model: "upstream-model",
        api_key_credential_id: credential.body.id,
        max_retries: 2
      })
      const chat = yield* post(caller, `/v4/models/${id}/chat-completions`, { chat_history: [], prompt: "Hello", temperature: 0, stream: true })
      assert.strictEqual(chat.status, 200, JSON.stringify(chat.body))
      assert.deepStrictEqual(framesOf(chat), [
        { completions: [["Hello", ["Bon"]]] },
        { completions: [["Hello", ["jour"]]] },
        { completions: [["Hello", [""]]], finish_reason: "stop", prompt_tokens: 9, response_tokens: 2 },
        "[DONE]"
      ])
      // the first answer was a 429, retried
      assert.strictEqual(streaming.received.length, 2)
      const sent = streaming.received[1]!
      assert.strictEqual(sent.path, "/v1/chat/completions")
      assert.strictEqual(sent.authorization, `Bearer ${secret}`)
      assert.deepStrictEqual(sent.body, {
        model: "upstream-model",
        messages: [{ role: "user", content: "Hello" }],
        temperature: 0,
        stream: true,
        stream_options: { include_usage: true }
      })
      assert.notInclude(chat.body as string, secret)
      // without usage from the upstream, the pieces are counted
      const completion = framesOf(yield* post(caller, "/v4/completions", { model: id, prompt: "hel", stream: true }))
      assert.deepStrictEqual(completion, [
        { completion: { text: "lo" }, token_usage: null },
        { completion: { text: "", finish_reason: "length" }, token_usage: { total: 1, completion: 1, prompt: 0 } },
        "[DONE]"
      ])

      // a refusal before the stream starts: the status and the reason, as without stream
      const strict = yield* upstream(() => ({ status: 400, body: { error: { message: "bad temperature" } } }))
      const refusing = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: strict.url, model: "m" })
      const refused = yield* post(caller, `/v4/models/${refusing}/chat-completions`, { chat_history: [], prompt: "x", stream: true })
      assert.deepStrictEqual([refused.status, refused.body], [400, { detail: "The model's upstream refused the request (400): bad temperature" }])

      // a stream cut off after its start: an error frame, no [DONE]
      const cutting = yield* upstream(() => ({ status: 200, events: [chatChunk({ content: "par" })], endsWith: "cut" }))
      const cut = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: cutting.url, model: "m", max_retries: 0 })
      const broken = framesOf(yield* post(caller, `/v4/models/${cut}/chat-completions`, { chat_history: [], prompt: "x", stream: true }))
      assert.deepStrictEqual(broken, [
        { completions: [["x", ["par"]]] },
        { error: { status_code: 502, detail: `The model's upstream ${cutting.url} broke off its stream` } }
      ])

      // a stream that goes silent: an error frame once timeout_ms passes without a chunk
      const stalling = yield* upstream(() => ({ status: 200, events: [chatChunk({ content: "wait" })], endsWith: "silence" }))
      const stall = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: stalling.url, model: "m", timeout_ms: 300 })
      const started = Date.now()
      const stalled = framesOf(yield* post(caller, `/v4/models/${stall}/chat-completions`, { chat_history: [], prompt: "x", stream: true }))
      assert.deepStrictEqual(stalled, [
        { completions: [["x", ["wait"]]] },
        { error: { status_code: 504, detail: `The model's upstream ${stalling.url} did not answer within 300 ms` } }
      ])
      assert.isBelow(Date.now() - started, 5_000)
    }).pipe(Effect.scoped))

  it.effect("stream: each frame reaches the caller when the upstream sends it, not at the end", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const slow = yield* upstream(() => ({
        status: 200,
        events: [chatChunk({ content: "first" }), chatChunk({ content: "second" })],
        intervalMs: 1_000
      }))
      const id = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: slow.url, model: "m", timeout_ms: 5_000 })
      const client = yield* HttpClient.HttpClient
      const response = yield* client.execute(
        HttpClientRequest.post(`/v4/models/${id}/chat-completions`).pipe(
          HttpClientRequest.setHeader("x-api-key", caller.key),
          HttpClientRequest.bodyUnsafeJson({ chat_history: [], prompt: "x", stream: true })
        )
      )
      const arrivals: Array<{ readonly at: number; readonly text: string }> = []
      yield* response.stream.pipe(
        Stream.decodeText(),
        Stream.runForEach((text) => Effect.sync(() => arrivals.push({ at: Date.now(), text })))
      )
      const first = arrivals.find((arrival) => arrival.text.includes("first"))!
      const second = arrivals.find((arrival) => arrival.text.includes("second"))!
      assert.notStrictEqual(first, second)
      assert.isAbove(second.at - first.at, 500)
    }).pipe(Effect.scoped))

  it.effect("stream: a caller that goes away stops the stream, and the kit closes its upstream connection", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const endless = yield* upstream(() => ({
        status: 200,
        events: Array.from({ length: 50 }, (_, i) => chatChunk({ content: `piece ${i} ` })),
        intervalMs: 200
      }))
      const id = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: endless.url, model: "m" })
      const client = yield* HttpClient.HttpClient
      const firstFrames = yield* Effect.scoped(Effect.flatMap(
        client.execute(
          HttpClientRequest.post(`/v4/models/${id}/chat-completions`).pipe(
            HttpClientRequest.setHeader("x-api-key", caller.key),
            HttpClientRequest.bodyUnsafeJson({ chat_history: [], prompt: "x", stream: true })
          )
        ),
        (response) => response.stream.pipe(Stream.decodeText(), Stream.take(1), Stream.runCollect)
      ))
      assert.include([...firstFrames].join(""), "piece 0")
      yield* closedEarly(endless.received, 5_000)
      assert.strictEqual(endless.received[0]?.closedEarly, true)
    }).pipe(Effect.scoped))

  it.effect("stream: the typed client's streams decode each frame; a refusal before the start is its error class, a break StreamBrokeOff", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const streams = yield* makeStreams({ apiKey: caller.key })
      const frames = yield* Stream.runCollect(streams.chatCompletionsByModel({ model: "builtin/echo", messages: [{ role: "user", content: "one two" }] }))
      const all = [...frames]
      assert.strictEqual(all.map((frame) => frame.chat_completion.message.content).join(""), "one two")
      assert.deepStrictEqual(all.at(-1)?.token_usage, { total: 4, completion: 2, prompt: 2 })
      assert.isNull(all[0]!.token_usage)

      const missing = yield* Effect.flip(Stream.runCollect(streams.completionsByModel({ model: "no-such-model", prompt: "x" })))
      assert.strictEqual(missing._tag, "NotFound")

      const cutting = yield* upstream(() => ({ status: 200, events: [chatChunk({ content: "par" })], endsWith: "cut" }))
      const cut = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: cutting.url, model: "m", max_retries: 0 })
      const pieces: Array<unknown> = []
      const broke = yield* Effect.flip(Stream.runForEach(
        streams.chatCompletions(cut, { chat_history: [], prompt: "x" }),
        (frame) => Effect.sync(() => pieces.push(frame.completions[0]))
      ))
      assert.deepStrictEqual(pieces, [["x", ["par"]]])
      assert.strictEqual(broke._tag, "StreamBrokeOff")
      if (broke._tag === "StreamBrokeOff") assert.strictEqual(broke.status_code, 502)
    }).pipe(Effect.scoped))
})
