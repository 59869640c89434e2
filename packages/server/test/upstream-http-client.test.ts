/**
 * The client of the upstream calls (models/inference/upstreamHttpClient.ts) against a real HTTP
 * server of the test's own on 127.0.0.1: when a request is aborted (the upstream sees its
 * connection closed before its answer's end) and when it is not.
 */
import { HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { assert, it } from "@effect/vitest"
import { Chunk, Effect, Exit, Fiber, Option, Stream, TestServices } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as UpstreamHttpClient from "../src/models/inference/upstreamHttpClient.js"
import { chatAnswer, closedEarly, upstream } from "./support/upstream.js"

const live = (millis: number) => TestServices.provideLive(Effect.sleep(`${millis} millis`))

/** An upstream that answers 200 and then sends a frame a second, never ending. */
const endless = upstream(() => ({ status: 200, events: [{ n: 1 }, { n: 2 }, { n: 3 }], intervalMs: 1_000, endsWith: "silence" }))

const clientOf = Effect.map(NodeHttpClient.makeDispatcher, UpstreamHttpClient.make)

/**
 * An upstream whose every request `handle` answers (the request's body read first), counting the
 * connections made to it. It sends no `Keep-Alive` header: a client cannot know when it closes an
 * idle connection.
 */
const raw = (handle: (req: Http.IncomingMessage, res: Http.ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly connections: () => number; readonly server: Http.Server }>((resume) => {
      let connections = 0
      const server = Http.createServer((req, res) => {
        req.resume()
        req.on("end", () => handle(req, res))
      })
      server.keepAliveTimeout = 0
      server.on("connection", () => connections++)
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, connections: () => connections, server })))
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

/** An upstream answering `{}`; with `closeAfterMs`, closing each connection that long after an answer. */
const counting = (closeAfterMs?: number) =>
  raw((req, res) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end("{}")
    if (closeAfterMs !== undefined) setTimeout(() => req.socket.destroy(), closeAfterMs)
  })

const chat = (url: string) => HttpClientRequest.post(`${url}/chat/completions`).pipe(HttpClientRequest.bodyUnsafeJson({ model: "m" }))

it.scoped("a body read whole: the answer, and nothing aborted when its scope closes", () =>
  Effect.gen(function*() {
    const server = yield* upstream(() => ({ status: 200, body: chatAnswer("hello") }))
    const client = yield* clientOf
    const text = yield* Effect.scoped(Effect.flatMap(client.execute(chat(server.url)), (response) => response.text))
    assert.include(text, "hello")
    assert.isFalse(yield* closedEarly(server.received, 300))
  }))

it.scoped("an interruption while the body is read aborts the request", () =>
  Effect.gen(function*() {
    const server = yield* endless
    const client = yield* clientOf
    const read = yield* Effect.fork(Effect.flatMap(client.execute(chat(server.url)), (response) => response.text))
    yield* live(200)
    yield* Fiber.interrupt(read)
    assert.isTrue(yield* closedEarly(server.received))
  }))

it.scoped("outside tiedToScope the body is read whole with the answer: one that never ends keeps the call waiting, until interrupted", () =>
  Effect.gen(function*() {
    const server = yield* endless
    const client = yield* clientOf
    const call = yield* Effect.fork(client.execute(chat(server.url)))
    yield* live(300)
    assert.isTrue(Option.isNone(yield* Fiber.poll(call)), "no answer before the body's end")
    assert.notStrictEqual(server.received[0]?.closedEarly, true)
    yield* Fiber.interrupt(call)
    assert.isTrue(yield* closedEarly(server.received))
  }))

it.scoped("a body read whole with the answer reads as text, JSON, bytes or a stream, more than once", () =>
  Effect.gen(function*() {
    const server = yield* upstream(() => ({ status: 200, body: chatAnswer("hello") }))
    const client = yield* clientOf
    const response = yield* client.execute(chat(server.url))
    const text = yield* response.text
    assert.include(text, "hello")
    assert.strictEqual(yield* response.text, text)
    assert.deepStrictEqual(yield* response.json, JSON.parse(text))
    assert.strictEqual(new TextDecoder().decode(yield* response.arrayBuffer), text)
    const chunks = yield* Stream.runCollect(response.stream)
    assert.strictEqual(Chunk.toReadonlyArray(chunks).map((chunk) => new TextDecoder().decode(chunk)).join(""), text)
  }))

it.scoped("tiedToScope: the response outlives the fiber that asked, and is aborted when the scope closes", () =>
  Effect.gen(function*() {
    const server = yield* endless
    const client = yield* clientOf
    yield* Effect.scoped(Effect.gen(function*() {
      const response = yield* Fiber.join(yield* Effect.fork(UpstreamHttpClient.tiedToScope(client.execute(chat(server.url)))))
      assert.strictEqual(response.status, 200)
      yield* live(300)
      assert.notStrictEqual(server.received[0]?.closedEarly, true, "open while its scope is")
    }))
    assert.isTrue(yield* closedEarly(server.received))
  }))

it.scoped("connections are kept alive: calls one after another, each body read whole, open one or two", () =>
  Effect.gen(function*() {
    const server = yield* counting()
    const client = yield* clientOf
    for (let i = 0; i < 6; i++) {
      assert.strictEqual(yield* Effect.scoped(Effect.flatMap(client.execute(chat(server.url)), (response) => response.text)), "{}")
    }
    // undici may open a second connection while the first finishes its answer, not one a call
    assert.isAtMost(server.connections(), 2)
  }))

it.scoped("a kept-alive connection the upstream closed while idle is not used: the next call opens another", () =>
  Effect.gen(function*() {
    const server = yield* counting(50)
    const client = yield* clientOf
    assert.strictEqual(yield* Effect.scoped(Effect.flatMap(client.execute(chat(server.url)), (response) => response.text)), "{}")
    yield* live(300)
    assert.strictEqual(yield* Effect.scoped(Effect.flatMap(client.execute(chat(server.url)), (response) => response.text)), "{}")
    assert.strictEqual(server.connections(), 2)
  }))

it.scoped("a deadline bounds its own call only: the next call of the same fiber, and the call of an outer deadline, run unbounded by it", () =>
  Effect.gen(function*() {
    const server = yield* upstream(() => ({ status: 200, body: chatAnswer("slow"), delayMs: 300 }))
    const client = yield* clientOf
    const call = Effect.scoped(Effect.flatMap(client.execute(chat(server.url)), (response) => response.text))

    const bounded = yield* Effect.exit(UpstreamHttpClient.withDeadline(100, () => call))
    assert.isTrue(Exit.isFailure(bounded), "aborted at its deadline")
    assert.isUndefined(yield* UpstreamHttpClient.currentDeadline)
    assert.include(yield* call, "slow")

    const outer = yield* UpstreamHttpClient.withDeadline(2_000, (deadline) =>
      Effect.gen(function*() {
        const inner = yield* Effect.exit(UpstreamHttpClient.withDeadline(100, () => call))
        assert.isTrue(Exit.isFailure(inner))
        assert.strictEqual(yield* UpstreamHttpClient.currentDeadline, deadline, "the outer deadline back")
        return yield* call
      }))
    assert.include(outer, "slow")
    assert.strictEqual(server.received.filter((received) => received.closedEarly === true).length, 2, "the two bounded calls aborted")
  }))

it.scoped("a body read whole: a byte order mark is dropped as undici's text() drops it; an error's body broken off answers its status, body empty", () =>
  Effect.gen(function*() {
    const client = yield* clientOf
    const marked = yield* raw((_, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end("\uFEFF{\"ok\":true}")
    })
    const response = yield* client.execute(chat(marked.url))
    assert.deepStrictEqual(yield* response.json, { ok: true })

    // a 503 whose body is cut off mid-way: the 503 (a retry's reason), not a failure to read it
    const cut = yield* raw((_, res) => {
      res.writeHead(503, { "content-type": "application/json", "content-length": "100" })
      res.write("{\"error\":")
      setTimeout(() => res.destroy(), 20)
    })
    const failed = yield* client.execute(chat(cut.url))
    assert.strictEqual(failed.status, 503)
    assert.strictEqual(yield* failed.text, "")

    // a 200 whose body is cut off: a failure to read it (Decode), as before
    const broken = yield* raw((_, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" })
      res.write("{\"choices\":")
      setTimeout(() => res.destroy(), 20)
    })
    const error = yield* Effect.flip(client.execute(chat(broken.url)))
    assert.strictEqual(error._tag, "ResponseError")
    assert.strictEqual((error as { readonly reason?: string }).reason, "Decode")
  }))
