/**
 * A shutdown with task streams open (docs/agent-tasks.md "Streams"): the server's close ends each
 * subscriber's response cleanly (the chunked encoding's last chunk: an SSE client reconnects with
 * `Last-Event-ID` wherever the API is served next) and completes, instead of waiting on streams
 * that end only with their tasks. On the lean server (`npm test`) and on the builder's path
 * (`npm run test:builder`).
 */
import { assert, describe, it } from "@effect/vitest"
import type { Task } from "@platform-kit/schema"
import { Effect, Exit, Layer, Scope } from "effect"
import { openStream, provision, serverPort, TestServerLive } from "../src/testing.js"

describe("task streams at a shutdown", () => {
  it.live("closing the server ends its open streams cleanly, and the close completes", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(TestServerLive, scope)
      const inServer = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.provide(effect, context) as Effect.Effect<A, E>
      const port = yield* inServer(serverPort)
      const { client, key } = yield* inServer(provision())
      const agent = yield* inServer(client.agents.register({
        payload: { name: "streamer", description: "d", acp_url: "http://127.0.0.1:9", acp_type: "sync" }
      }))
      const created = yield* inServer(client.agents.rpc({
        path: { agent_id: agent.id },
        payload: { jsonrpc: "2.0", id: 1, method: "task/create", params: { name: "long" } }
      }))
      const task = created.result as Task
      const streams = yield* Effect.promise(() =>
        Promise.all([openStream(port, `/tasks/${task.id}/stream`, key), openStream(port, "/tasks/name/long/stream", key)])
      )

      const closing = yield* Effect.exit(Effect.timeout(Scope.close(scope, Exit.void), "10 seconds"))
      assert.isTrue(Exit.isSuccess(closing), "the server closed")
      for (const stream of streams) {
        yield* Effect.promise(() => stream.closed)
        assert.match(stream.text(), /^HTTP\/1\.1 200 /)
        assert.match(stream.text(), /transfer-encoding: chunked/i)
        // the last chunk: the response ended, not cut off
        assert.isTrue(stream.text().endsWith("\r\n0\r\n\r\n"), JSON.stringify(stream.text().slice(-40)))
      }
    }), 30_000)
})
