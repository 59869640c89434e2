/**
 * An evaluation's run survives kill -9 (docs/evaluations.md "Running"): the server is killed with
 * SIGKILL while a 1,000-item evaluation runs against an upstream of the test's own on 127.0.0.1,
 * restarted on the same SQLite file, and the run completes: every item has its result, every item
 * was sent to the upstream, and none more than twice (the batch the kill interrupted is run again
 * over its items no batch wrote; what was in flight is asked again: at most one batch, 64 items).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { callServer, cleanup, serverAccount, startServer, tempDir, upstreamDeployment } from "../support/processes.js"
import { assertSentAtMostTwice, chatAnswer, upstream } from "../support/upstream.js"

const items = 1_000
const batchSize = 64

describe("kill -9 while an evaluation runs", () => {
  it.scopedLive("after a restart the run completes: every item's result, each item sent at most twice, all but one batch once", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("evaluations")), (dir) => Effect.sync(() => cleanup(dir)))
      const databaseUrl = `sqlite:${dir}/platform.db`
      const env = { PLATFORM_PROGRESSION: "immediate" }
      // each answer after 5 ms: 1,000 items at 16 at once take about a third of a second of upstream time
      const server = yield* upstream((received) => ({
        status: 200,
        body: chatAnswer(`echo ${received.body.messages.at(-1).content}`),
        delayMs: 5
      }))

      const first = yield* Effect.promise(() => startServer({ databaseUrl, env }))
      const deployment = yield* upstreamDeployment(first.port, { name: "m", model_type: "CHAT_COMPLETION", base_url: server.url, model: "upstream-model", parameters: { max_concurrency: 16 } })
      const created = yield* callServer(first.port, "POST", "/v5/evaluations", {
        name: "long run",
        account_id: serverAccount,
        data: Array.from({ length: items }, (_, i) => ({ n: `item-${i}` })),
        tasks: [{ task_type: "chat_completion", alias: "out", configuration: { model: deployment.id, messages: [{ role: "user", content: "{{item.n}}" }] } }]
      })
      // killed part-way: some items done, some not
      for (;;) {
        const progress = (yield* callServer(first.port, "GET", `/v5/evaluations/${created.id}`)).progress.items
        if (progress.successful >= 200) break
        yield* Effect.sleep("5 millis")
      }
      first.child.kill("SIGKILL")
      assert.strictEqual((yield* Effect.promise(() => first.exited)).signal, "SIGKILL")
      const sentBefore = server.received.length
      assert.isBelow(sentBefore, items)

      const second = yield* Effect.acquireRelease(
        Effect.promise(() => startServer({ databaseUrl, env })),
        (server) => Effect.promise(() => server.stop("SIGTERM"))
      )
      let evaluation = yield* callServer(second.port, "GET", `/v5/evaluations/${created.id}`)
      for (const deadline = Date.now() + 90_000; evaluation.status === "running" && Date.now() < deadline;) {
        yield* Effect.sleep("100 millis")
        evaluation = yield* callServer(second.port, "GET", `/v5/evaluations/${created.id}`)
      }
      assert.strictEqual(evaluation.status, "completed", JSON.stringify(evaluation.progress))
      assert.deepStrictEqual(evaluation.progress.items, { total: items, successful: items, failed: 0, pending: 0, failed_items: [] })

      // every item's result, read back through the list
      const results: Array<string> = []
      for (let after: string | undefined; ;) {
        const page = yield* callServer(
          second.port,
          "GET",
          `/v5/evaluation-items?evaluation_id=${created.id}&sort_order=asc&limit=500${after === undefined ? "" : `&starting_after=${after}`}`
        )
        results.push(...page.items.map((item: any) => `${item.data.n}=${item.data.out}`))
        if (!page.has_more) break
        after = page.items.at(-1).id
      }
      assert.deepStrictEqual(results, Array.from({ length: items }, (_, i) => `item-${i}=echo item-${i}`))

      // the upstream's count: every item sent, none more than twice, the repeats within one batch
      assertSentAtMostTwice(server.received, items, batchSize)
    }), { timeout: 180_000 })
})
