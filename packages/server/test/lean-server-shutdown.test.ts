/**
 * The lean server during a shutdown: once the application's scope is closing, a request arriving on a
 * kept-alive connection is answered 503 with `connection: close` (a client retries elsewhere)
 * rather than left without a listener until the process exits.
 */
import { assert, describe, it } from "@effect/vitest"
import { HttpServer } from "@effect/platform"
import { Effect, Exit, Fiber, Layer, Redacted, Scope } from "effect"
import * as Net from "node:net"
import { Accounts } from "../src/auth/Accounts.js"
import { LeanHttpLive } from "../src/fast/server.js"
import { Ids } from "../src/platform/Ids.js"
import { DatabaseTest } from "../src/testDatabase.js"

/** A raw connection: what it wrote so far, and a wait for what it writes next. */
const connect = (port: number) =>
  new Promise<{ readonly socket: Net.Socket; readonly until: (test: (text: string) => boolean) => Promise<string>; readonly ended: Promise<void> }>(
    (resolve, reject) => {
      const socket = Net.connect(port, "127.0.0.1")
      let text = ""
      let waiting: (() => void) | undefined
      socket.on("data", (chunk: Buffer) => {
        text += chunk.toString("latin1")
        waiting?.()
      })
      const ended = new Promise<void>((done) => socket.once("close", () => done()))
      const until = (test: (text: string) => boolean) =>
        new Promise<string>((done, fail) => {
          const check = () => {
            if (test(text)) {
              waiting = undefined
              done(text)
            }
          }
          waiting = check
          socket.once("close", () => (test(text) ? done(text) : fail(new Error(`connection closed after: ${text}`))))
          check()
        })
      socket.once("connect", () => resolve({ socket, until, ended }))
      socket.once("error", reject)
    }
  )

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = Net.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", () => resolve(true))
  })

const responses = (text: string) => text.split(/(?=HTTP\/1\.1 )/).filter((part) => part.length > 0)

describe("the lean server at shutdown", () => {
  it.live("a request on a kept-alive connection while the server closes is answered 503 with connection: close", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        LeanHttpLive({ port: 0, host: "127.0.0.1" }).pipe(
          Layer.provideMerge(Accounts.Default),
          Layer.provideMerge(Ids.Live),
          Layer.provideMerge(DatabaseTest)
        ),
        scope
      )
      const { address } = yield* Effect.provide(HttpServer.HttpServer, context)
      const port = address._tag === "TcpAddress" ? address.port : 0
      const made = yield* Effect.provide(Effect.flatMap(Accounts, (accounts) => accounts.provisionUser()), context)
      const key = Redacted.value(made.key)

      // a POST in flight on a kept-alive connection: its headers are read and its handler waits
      // for the body when the shutdown begins (so the server waits for it before it closes)
      const connection = yield* Effect.promise(() => connect(port))
      const body = JSON.stringify({ name: "in flight", account_id: made.accountId })
      connection.socket.write(
        `POST /v4/model-groups HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\n` +
          `content-length: ${body.length}\r\nexpect: 100-continue\r\n\r\n`
      )
      yield* Effect.promise(() => connection.until((text) => text.includes("100 Continue")))

      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      // the application has stopped serving once the server no longer accepts connections
      yield* Effect.promise(async () => {
        while (!(await refused(port))) await new Promise((resolve) => setTimeout(resolve, 10))
      })

      // the request in flight is finished; the next one on the same connection is refused politely
      connection.socket.write(body)
      yield* Effect.promise(() => connection.until((text) => responses(text).length === 2 && text.endsWith("}")))
      connection.socket.write(`GET /health HTTP/1.1\r\nhost: x\r\nx-request-id: after-close\r\n\r\n`)
      const text = yield* Effect.promise(() => connection.until((text) => responses(text).length === 3 && text.endsWith("}")))
      const [, created, refusedPolitely] = responses(text)
      assert.match(created!, /^HTTP\/1\.1 200 /, created)
      assert.include(created!, "\"name\":\"in flight\"")
      assert.match(refusedPolitely!, /^HTTP\/1\.1 503 /)
      assert.match(refusedPolitely!, /\r\nconnection: close\r\n/i)
      assert.match(refusedPolitely!, /\r\nx-request-id: after-close\r\n/i)
      assert.include(refusedPolitely!, "\"detail\":\"Service Unavailable: the server is shutting down\"")

      // the server closes the connection, then finishes closing
      yield* Effect.promise(() => connection.ended)
      yield* Fiber.join(closing)
    }))
})
