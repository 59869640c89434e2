/**
 * The OpenAI-style front door (docs/inference-v5.md): the official `openai` npm client pointed at
 * the kit's `/v5` (chat completions, completions, responses, streams, errors) on the built-in model
 * and through a deployment on an OpenAI-compatible upstream of the test's own on 127.0.0.1; the
 * kit's typed client and its streams on the same endpoints and on v4's beta ones; the wire of a
 * stream as the platform's SDKs decode it (data-only frames, no `[DONE]`).
 */
import { assert, layer } from "@effect/vitest"
import { makeStreams } from "@platform-kit/client"
import { Chunk, Effect, Stream } from "effect"
import OpenAI from "openai"
import { issues, provision, request, serverPort, TestServerLive } from "../src/testing.js"
import { type Caller, readyDeployment, readyDeploymentOf, registerModel } from "./support/models.js"
import { chatAnswer, upstream } from "./support/upstream.js"

/** The `openai` client on the kit's `/v5`, with `caller`'s key as its API key (sent as `Authorization: Bearer`). */
const openAiFor = (caller: Caller) =>
  Effect.map(serverPort, (port) => new OpenAI({ baseURL: `http://127.0.0.1:${port}/v5`, apiKey: caller.key, maxRetries: 0 }))

/** What a promise ends with: its value, or its error (for the assertions on the client's errors). */
const settled = <A>(promise: () => Promise<A>) => Effect.promise(() => promise().then((value) => ({ value }), (error: any) => ({ error })))

/** Every element of an async iterable (a stream of the `openai` client). */
const drained = <A>(iterable: () => Promise<AsyncIterable<A>>) =>
  Effect.promise(async () => {
    const all: Array<A> = []
    for await (const item of await iterable()) all.push(item)
    return all
  })

const post = (caller: Caller, path: string, body: unknown) => request("POST", path, { key: caller.key, body })

/** An OpenAI chat chunk as an upstream streams it. */
const upstreamChunk = (content: string | undefined, finish_reason: string | null = null) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model: "upstream-model",
  choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason }]
})

layer(TestServerLive, { timeout: 60_000 })("the v5 inference front door", (it) => {
  it.effect("the openai client on the built-in model: chat completions, completions, responses, each streamed too", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const openai = yield* openAiFor(caller)

      const chat = yield* Effect.promise(() =>
        openai.chat.completions.create({
          model: "builtin",
          messages: [{ role: "system", content: "be brief" }, { role: "user", content: "Hello there, friend" }]
        })
      )
      assert.strictEqual(chat.object, "chat.completion")
      assert.strictEqual(chat.model, "builtin")
      assert.strictEqual(chat.choices.length, 1)
      assert.deepInclude(chat.choices[0]!.message, { role: "assistant", content: "Hello there, friend", refusal: null })
      assert.strictEqual(chat.choices[0]!.finish_reason, "stop")
      // "be brief" 2 + "Hello , there , friend"... as the built-in model counts: words and punctuation
      assert.deepInclude(chat.usage!, { prompt_tokens: 6, completion_tokens: 4, total_tokens: 10 })

      // streamed: the role first, the pieces, then the finish with the usage
      const chunks = yield* drained(() =>
        openai.chat.completions.create({ model: "builtin", messages: [{ role: "user", content: "one two three" }], stream: true })
      )
      assert.strictEqual(chunks[0]!.choices[0]!.delta.role, "assistant")
      assert.strictEqual(chunks.map((chunk) => chunk.choices[0]!.delta.content ?? "").join(""), "one two three")
      assert.isTrue(chunks.every((chunk) => chunk.object === "chat.completion.chunk" && chunk.id === chunks[0]!.id))
      const last = chunks.at(-1)!
      assert.strictEqual(last.choices[0]!.finish_reason, "stop")
      assert.deepInclude(last.usage!, { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 })
      assert.isTrue(chunks.slice(0, -1).every((chunk) => chunk.usage === null && chunk.choices[0]!.finish_reason === null))

      // completions: the limit, `length`; one choice per prompt; echo
      const limited = yield* Effect.promise(() => openai.completions.create({ model: "builtin", prompt: "one two three four", max_tokens: 2 }))
      assert.deepInclude(limited.choices[0]!, { index: 0, text: "one two", finish_reason: "length" })
      assert.strictEqual(limited.object, "text_completion")
      const two = yield* Effect.promise(() => openai.completions.create({ model: "builtin", prompt: ["a b", "c"], echo: true }))
      assert.deepStrictEqual(two.choices.map((choice) => [choice.index, choice.text]), [[0, "a ba b"], [1, "cc"]])
      assert.deepInclude(two.usage!, { prompt_tokens: 3, completion_tokens: 3 })
      const frames = yield* drained(() => openai.completions.create({ model: "builtin", prompt: "x y", stream: true }))
      assert.strictEqual(frames.map((frame) => frame.choices[0]!.text).join(""), "x y")
      assert.strictEqual(frames.at(-1)!.choices[0]!.finish_reason, "stop")
      assert.deepInclude(frames.at(-1)!.usage!, { prompt_tokens: 2, completion_tokens: 2 })

      // responses: instructions and input; `output_text`; max_output_tokens cut: incomplete
      const answered = yield* Effect.promise(() =>
        openai.responses.create({ model: "builtin", instructions: "brief", input: [{ role: "user", content: "Say hi now" }] })
      )
      assert.strictEqual(answered.object, "response")
      assert.strictEqual(answered.status, "completed")
      assert.strictEqual(answered.output_text, "Say hi now")
      assert.deepInclude(answered.usage!, { input_tokens: 4, output_tokens: 3, total_tokens: 7 })
      assert.strictEqual(answered.instructions, "brief")
      const cut = yield* Effect.promise(() => openai.responses.create({ model: "builtin", input: "a b c", max_output_tokens: 1 }))
      assert.deepStrictEqual([cut.status, cut.output_text, cut.incomplete_details], ["incomplete", "a", { reason: "max_output_tokens" }])
      const events = yield* drained(() => openai.responses.create({ model: "builtin", input: "x y", stream: true }))
      assert.deepStrictEqual(events.map((event) => event.type), [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed"
      ])
      assert.deepStrictEqual(events.map((event) => event.sequence_number), events.map((_, i) => i))
      const completed = events.at(-1)! as OpenAI.Responses.ResponseCompletedEvent
      assert.strictEqual(completed.response.output_text, "x y")
    }))

  it.effect("a stream's wire: data-only frames, no [DONE]; the body's end ends it", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      for (const path of ["/v5/chat/completions", "/v4/beta/chat/completions"]) {
        const raw = yield* post(caller, path, { model: "builtin", messages: [{ role: "user", content: "a b" }], stream: true })
        assert.strictEqual(raw.status, 200)
        assert.match(raw.headers["content-type"] ?? "", /^text\/event-stream/)
        const text = raw.body as string
        assert.notInclude(text, "[DONE]")
        assert.notInclude(text, "event:")
        const frames = text.split("\n\n").filter((frame) => frame !== "")
        // role, "a", " b", finish
        assert.strictEqual(frames.length, 4)
        for (const frame of frames) {
          assert.isTrue(frame.startsWith("data: "), frame)
          assert.strictEqual(JSON.parse(frame.slice(6)).object, "chat.completion.chunk")
        }
      }
    }))

  it.effect("the kit's typed client: v5 and v4 beta answers decoded by the kit's Schemas; its streams; the catalogue", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const chat = yield* caller.client.openAiInference.chatCompletions({
        payload: { model: "builtin/echo", messages: [{ role: "user", content: "hi there" }], temperature: 0.5, n: 1 }
      })
      assert.deepStrictEqual([chat.choices[0]!.message.content, chat.usage?.total_tokens], ["hi there", 4])
      const beta = yield* caller.client.betaInference.completions({ payload: { model: "builtin", prompt: "a b c", max_tokens: 2 } })
      assert.deepStrictEqual([beta.choices[0]!.text, beta.choices[0]!.finish_reason], ["a b", "length"])
      const betaChat = yield* caller.client.betaInference.chatCompletions({ payload: { model: "builtin", messages: [{ role: "user", content: "q" }] } })
      assert.strictEqual(betaChat.choices[0]!.message.content, "q")
      const response = yield* caller.client.openAiInference.responses({ payload: { model: "builtin", input: "r s" } })
      assert.deepStrictEqual([response.output_text, response.output[0]!.content[0]!.text], ["r s", "r s"])

      // generic inference: `args` is the model's own request, its answer in `response`
      const generic = yield* caller.client.openAiInference.inference({
        payload: { model: "builtin", args: { messages: [{ role: "user", content: "g h" }] } }
      })
      assert.strictEqual(generic.object, "generic_inference")
      assert.strictEqual((generic.response as any).choices[0].message.content, "g h")
      const completed = yield* caller.client.openAiInference.inference({ payload: { model: "builtin", args: { prompt: "p" } } })
      assert.strictEqual((completed.response as any).choices[0].text, "p")
      const genericStream = yield* post(caller, "/v5/inference", { model: "builtin", args: { prompt: "u v", stream: true } })
      const genericFrames = (genericStream.body as string).split("\n\n").filter((f) => f !== "").map((f) => JSON.parse(f.slice(6)))
      assert.isTrue(genericFrames.every((frame) => frame.object === "generic_inference.chunk"))
      assert.strictEqual(genericFrames.map((frame) => frame.response.choices[0].text).join(""), "u v")
      const noArgs = yield* post(caller, "/v5/inference", { model: "builtin", args: { input: "x" } })
      assert.deepStrictEqual([noArgs.status, issues(noArgs)], [422, [{ loc: ["body", "args"], type: "value_error" }]])
      const badArgs = yield* post(caller, "/v5/inference", { model: "builtin", args: { prompt: 3 } })
      assert.deepStrictEqual([badArgs.status, issues(badArgs)[0].loc], [422, ["body", "args", "prompt"]])

      // the kit's streams: OpenAI's chunks, decoded
      const streams = yield* makeStreams({ apiKey: caller.key })
      const pieces = Chunk.toReadonlyArray(yield* Stream.runCollect(streams.openAiChatCompletions({ model: "builtin", messages: [{ role: "user", content: "k l" }] })))
      assert.strictEqual(pieces.map((piece) => piece.choices[0]!.delta.content ?? "").join(""), "k l")
      assert.strictEqual(pieces.at(-1)!.usage?.completion_tokens, 2)
      const betaPieces = Chunk.toReadonlyArray(yield* Stream.runCollect(streams.betaCompletions({ model: "builtin", prompt: "m" })))
      assert.strictEqual(betaPieces.map((piece) => piece.choices[0]!.text).join(""), "m")

      // the catalogue: builtin, and a registered model once it has a READY deployment
      const before = yield* caller.client.openAiInference.models({ urlParams: {} })
      assert.deepStrictEqual(before.items.map((item) => item.model_name), ["builtin"])
      const model = yield* registerModel(caller, "my-chat")
      yield* readyDeploymentOf(caller, model)
      const after = yield* caller.client.openAiInference.models({ urlParams: {} })
      assert.deepStrictEqual(after.items.map((item) => ({ ...item })), [
        { model_name: "builtin", model_type: "chat_completion", model_vendor: "launch", model_availability: "available" },
        { model_name: "my-chat", model_type: "chat_completion", model_vendor: "launch", model_availability: "available" }
      ])
      const desc = yield* caller.client.openAiInference.models({ urlParams: { sort_order: "desc", limit: 1 } })
      assert.deepStrictEqual(desc.items.map((item) => item.model_name), ["my-chat"])
      const page = yield* caller.client.openAiInference.models({ urlParams: { starting_after: "builtin" } })
      assert.deepStrictEqual(page.items.map((item) => item.model_name), ["my-chat"])
      const lost = yield* request("GET", "/v5/chat/completions/models?starting_after=nothing-by-this-name", { key: caller.key })
      assert.deepStrictEqual([lost.status, lost.body.detail[0].loc], [422, ["query", "starting_after"]])
      const openai = yield* openAiFor(caller)
      const byName = yield* Effect.promise(() => openai.chat.completions.create({ model: "launch/my-chat", messages: [{ role: "user", content: "z" }] }))
      assert.strictEqual(byName.choices[0]!.message.content, "z")
      const listed = yield* Effect.promise(() => openai.get("/chat/completions/models")) as Effect.Effect<any>
      assert.strictEqual(listed.items.length, 2)
      // the key in `x-api-key` instead of `Authorization: Bearer`
      const port = yield* serverPort
      const byHeader = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v5`, apiKey: "unused", defaultHeaders: { "x-api-key": caller.key }, maxRetries: 0 })
      const headed = yield* Effect.promise(() => byHeader.completions.create({ model: "my-chat", prompt: "w" }))
      assert.strictEqual(headed.choices[0]!.text, "w")
      // another account sees only builtin
      const other = yield* provision()
      const theirs = yield* other.client.openAiInference.models({ urlParams: {} })
      assert.deepStrictEqual(theirs.items.map((item) => item.model_name), ["builtin"])
    }))

  it.effect("a deployment on an OpenAI-compatible upstream: the openai client through the kit, streamed; each call recorded as usage", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const server = yield* upstream((received) =>
        received.body.stream === true
          ? { status: 200, events: [upstreamChunk("Bon"), upstreamChunk("jour"), upstreamChunk(undefined, "stop"), { choices: [], usage: { prompt_tokens: 5, completion_tokens: 2 } }] }
          : received.path === "/v1/completions"
          ? { status: 200, body: { choices: [{ text: " upon a time", finish_reason: "length" }], usage: { prompt_tokens: 2, completion_tokens: 4 } } }
          : { status: 200, body: chatAnswer("Bonjour") })
      const model = yield* registerModel(caller, "translator")
      const id = yield* readyDeploymentOf(caller, model, { provider: "openai_compatible", base_url: server.url, model: "upstream-model" })
      const openai = yield* openAiFor(caller)

      const chat = yield* Effect.promise(() =>
        openai.chat.completions.create({ model: id, messages: [{ role: "developer", content: "translate" }, { role: "user", content: "Hello" }], max_completion_tokens: 9, temperature: 0.2 })
      )
      assert.strictEqual(chat.choices[0]!.message.content, "Bonjour")
      assert.deepInclude(chat.usage!, { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 })
      assert.deepStrictEqual(server.received[0]!.body, {
        model: "upstream-model",
        messages: [{ role: "system", content: "translate" }, { role: "user", content: "Hello" }],
        max_tokens: 9,
        temperature: 0.2
      })
      const chunks = yield* drained(() => openai.chat.completions.create({ model: "openai/translator", messages: [{ role: "user", content: "Hello" }], stream: true }))
      assert.strictEqual(chunks.map((chunk) => chunk.choices[0]!.delta.content ?? "").join(""), "Bonjour")
      assert.deepInclude(chunks.at(-1)!.usage!, { prompt_tokens: 5, completion_tokens: 2 })
      const completion = yield* Effect.promise(() => openai.completions.create({ model: "translator", prompt: "once" }))
      assert.deepInclude(completion.choices[0]!, { text: " upon a time", finish_reason: "length" })
      const answered = yield* Effect.promise(() => openai.responses.create({ model: id, input: "Hello" }))
      assert.strictEqual(answered.output_text, "Bonjour")

      // the catalogue names it as the upstream's vendor
      const listed = yield* caller.client.openAiInference.models({ urlParams: { model_vendor: "openai" } })
      assert.deepStrictEqual(listed.items.map((item) => item.model_name), ["translator"])

      // four executions of the deployment, recorded
      const usage = yield* request("GET", `/v4/model-deployments/${id}/usage-statistics?start_date=1970-01-01&end_date=2200-01-01`, { key: caller.key })
      assert.strictEqual(usage.status, 200, JSON.stringify(usage.body))
      assert.deepInclude(usage.body.data[0], { request_count: 4, error_count: 0, prompt_tokens: 11 + 5 + 2 + 11, response_tokens: 3 + 2 + 4 + 3 })
    }).pipe(Effect.scoped))

  it.effect("errors: an unknown model 404, a bad body 422, another account's deployment 404; the upstream's refusal, failure and broken stream", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const other = yield* provision()
      const openai = yield* openAiFor(caller)

      // every error body has OpenAI's `error` object beside the kit's `detail`: the openai client shows its message, type and code
      const unknown = (yield* settled(() => openai.chat.completions.create({ model: "openai/gpt-nothing", messages: [{ role: "user", content: "x" }] }))) as any
      assert.instanceOf(unknown.error, OpenAI.NotFoundError)
      assert.deepStrictEqual([unknown.error.status, unknown.error.type, unknown.error.code, unknown.error.param], [404, "invalid_request_error", "model_not_found", null])
      assert.match(unknown.error.message, /^404 Model openai\/gpt-nothing not found: name a model server alias/)
      // the kit's clients read `detail`; its typed client decodes the front door's own error
      const raw = yield* post(caller, "/v5/completions", { model: "nope", prompt: "x" })
      assert.strictEqual(raw.status, 404)
      assert.deepStrictEqual(Object.keys(raw.body), ["detail", "error"])
      assert.match(raw.body.detail, /^Model nope not found/)
      assert.deepStrictEqual(raw.body.error, { message: raw.body.detail, type: "invalid_request_error", param: null, code: "model_not_found" })
      const typed = yield* caller.client.openAiInference.completions({ payload: { model: "nope", prompt: "x" } }).pipe(Effect.flip)
      assert.deepInclude(typed, { _tag: "OpenAiNotFound", detail: raw.body.detail })

      // a bad body: every issue in `detail`; OpenAI's `error` names them, `param` the first one's field, `code` its type
      const bad = yield* post(caller, "/v5/chat/completions", { model: "builtin", messages: [], temperature: 3, n: 2 })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad).map((issue: any) => issue.loc), [["body", "messages"], ["body", "temperature"], ["body", "n"]])
      assert.deepInclude(bad.body.error, { type: "invalid_request_error", param: "messages", code: bad.body.detail[0].type })
      assert.strictEqual(bad.body.error.message, bad.body.detail.map((issue: any) => `${issue.loc.join(".")}: ${issue.msg}`).join("; "))
      const viaClient = (yield* settled(() => openai.completions.create({ model: "builtin", prompt: "x", logprobs: 9 }))) as any
      assert.instanceOf(viaClient.error, OpenAI.UnprocessableEntityError)
      assert.deepStrictEqual([viaClient.error.status, viaClient.error.param, viaClient.error.type], [422, "logprobs", "invalid_request_error"])
      assert.match(viaClient.error.message, /^422 body\.logprobs: /)
      const missing = yield* post(caller, "/v5/responses", { input: "x" })
      assert.deepStrictEqual(issues(missing), [{ loc: ["body", "model"], type: "missing" }])
      assert.deepInclude(missing.body.error, { param: "model", code: "missing" })
      // a body that is not JSON, on v4's beta door: the same shape
      const notJson = yield* request("POST", "/v4/beta/completions", { key: caller.key, body: "{" })
      assert.strictEqual(notJson.status, 422)
      assert.deepInclude(notJson.body.error, { type: "invalid_request_error", param: null, code: "json_invalid" })

      // a body over the size limit: the request middleware's 413, in the same shape
      const huge = yield* post(caller, "/v5/chat/completions", { model: "builtin", messages: [{ role: "user", content: "x".repeat(1_100_000) }] })
      assert.strictEqual(huge.status, 413)
      assert.deepStrictEqual(huge.body.error, { message: huge.body.detail, type: "invalid_request_error", param: null, code: "request_too_large" })

      // a wrong key: 401, OpenAI's `invalid_api_key`; the catalogue too
      const wrongKey = new OpenAI({ baseURL: openai.baseURL, apiKey: "pk_wrong", maxRetries: 0 })
      const unauthorized = (yield* settled(() => wrongKey.chat.completions.create({ model: "builtin", messages: [{ role: "user", content: "x" }] }))) as any
      assert.instanceOf(unauthorized.error, OpenAI.AuthenticationError)
      assert.deepStrictEqual(
        [unauthorized.error.status, unauthorized.error.message, unauthorized.error.type, unauthorized.error.code],
        [401, "401 Invalid API key", "invalid_request_error", "invalid_api_key"]
      )
      const catalogue = yield* request("GET", "/v5/chat/completions/models", { key: "pk_wrong" })
      assert.deepStrictEqual([catalogue.status, catalogue.body], [401, {
        detail: "Invalid API key",
        error: { message: "Invalid API key", type: "invalid_request_error", param: null, code: "invalid_api_key" }
      }])
      // the rest of the API answers its own bodies, without `error`
      assert.deepStrictEqual((yield* request("GET", "/v5/spans/nope", { key: "pk_wrong" })).body, { detail: "Invalid API key" })

      // another account's deployment: 404, as if it did not exist, on every door
      const theirs = yield* readyDeployment(other)
      for (const path of ["/v5/chat/completions", "/v4/beta/chat/completions"]) {
        const refused = yield* post(caller, path, { model: theirs, messages: [{ role: "user", content: "x" }], stream: true })
        assert.strictEqual(refused.status, 404, path)
      }
      assert.strictEqual((yield* post(caller, "/v5/inference", { model: theirs, args: { prompt: "x" } })).status, 404)
      assert.strictEqual((yield* post(other, "/v5/completions", { model: theirs, prompt: "x" })).status, 200)

      // the upstream refuses (400 with its reason), is down (502), breaks its stream off (an error frame the client raises)
      const refusing = yield* upstream(() => ({ status: 400, body: { error: { message: "context too long" } } }))
      const refusingId = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: refusing.url, model: "m" })
      const refused = yield* settled(() => openai.chat.completions.create({ model: refusingId, messages: [{ role: "user", content: "x" }] }))
      assert.instanceOf((refused as any).error, OpenAI.BadRequestError)
      assert.strictEqual((refused as any).error.message, "400 The model's upstream refused the request (400): context too long")
      const refusedRaw = yield* post(caller, "/v5/chat/completions", { model: refusingId, messages: [{ role: "user", content: "x" }] })
      const reason = "The model's upstream refused the request (400): context too long"
      assert.deepStrictEqual([refusedRaw.status, refusedRaw.body], [400, {
        detail: reason,
        error: { message: reason, type: "invalid_request_error", param: null, code: null }
      }])
      const downId = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: "http://127.0.0.1:9/v1", model: "m", max_retries: 0 })
      const down = yield* settled(() => openai.completions.create({ model: downId, prompt: "x" }))
      assert.instanceOf((down as any).error, OpenAI.InternalServerError)
      assert.deepStrictEqual([(down as any).error.status, (down as any).error.type, (down as any).error.code], [502, "server_error", "upstream_error"])
      const cutting = yield* upstream(() => ({ status: 200, events: [upstreamChunk("par")], endsWith: "cut" }))
      const cuttingId = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: cutting.url, model: "m" })
      const seen: Array<string> = []
      const broken = yield* settled(async () => {
        for await (const chunk of await openai.chat.completions.create({ model: cuttingId, messages: [{ role: "user", content: "x" }], stream: true })) {
          seen.push(chunk.choices[0]?.delta.content ?? "")
        }
      })
      assert.instanceOf((broken as any).error, OpenAI.APIError)
      assert.match((broken as any).error.message, /broke off its stream/)
      assert.deepStrictEqual(seen, ["", "par"])
      // the kit's stream fails with StreamBrokeOff
      const streams = yield* makeStreams({ apiKey: caller.key })
      const kitBroken = yield* Stream.runCollect(streams.openAiChatCompletions({ model: cuttingId, messages: [{ role: "user", content: "x" }] })).pipe(Effect.flip)
      assert.deepInclude(kitBroken, { _tag: "StreamBrokeOff", status_code: 502 })
      // generic inference bounded by its own timeout: a 504
      const slow = yield* upstream(() => ({ status: 200, body: chatAnswer("late"), delayMs: 3_000 }))
      const slowId = yield* readyDeployment(caller, { provider: "openai_compatible", base_url: slow.url, model: "m" })
      const timedOut = yield* post(caller, "/v5/inference", {
        model: slowId,
        args: { messages: [{ role: "user", content: "x" }] },
        inference_configuration: { timeout_seconds: 1, num_retries: 0 }
      })
      const late = "The model did not answer within 1 s (inference_configuration.timeout_seconds)"
      assert.deepStrictEqual([timedOut.status, timedOut.body], [504, { detail: late, error: { message: late, type: "server_error", param: null, code: "timeout" } }])
      // the failures are recorded as executions with their status
      const usage = yield* request("GET", `/v4/model-deployments/${refusingId}/usage-statistics?start_date=1970-01-01&end_date=2200-01-01`, { key: caller.key })
      assert.deepInclude(usage.body.data[0], { request_count: 2, error_count: 2 })
    }).pipe(Effect.scoped))
})
