/**
 * A variant report's job survives kill -9 (docs/applications.md "Reports"): the server is killed
 * with SIGKILL while the report's job runs a variant whose completion node calls an upstream of
 * the test's own on 127.0.0.1, at the moment the upstream has received a test case's call and not
 * yet answered it; restarted on the same SQLite file, the job completes: one output per test case,
 * each the upstream's answer, the report scored. The job's steps are one per test case, run one
 * after another, and a step stores its output once: only the test case in flight at the kill may
 * be sent again, so every test case reaches the upstream once, that one at most twice. Most of the
 * test's time is the restarted engine waiting for the killed one's shard locks to expire (15 s,
 * docs/engine.md "kill -9"): a few test cases are enough.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { completionApp } from "../support/applications.js"
import { callServer, cleanup, serverAccount, startServer, tempDir, upstreamDeployment } from "../support/processes.js"
import { assertSentAtMostTwice, chatAnswer, type Received, upstream } from "../support/upstream.js"

const cases = 24
/** The upstream's call (counted from 1) during which the first server is killed. */
const killAt = 8

describe("kill -9 while a variant report's job runs", () => {
  it.scopedLive("after a restart the job completes: one output per test case, each sent at most twice, one at most repeated", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("reports")), (dir) => Effect.sync(() => cleanup(dir)))
      const databaseUrl = `sqlite:${dir}/platform.db`
      const env = { PLATFORM_PROGRESSION: "immediate" }
      // set before the report is created: kills the first server as the upstream receives call `killAt`
      let onCall: ((received: Received, count: number) => void) | undefined
      // each answer after 20 ms: the kill lands while the kit waits for it
      const server = yield* upstream((received, count) => {
        onCall?.(received, count)
        return { status: 200, body: chatAnswer(`echo ${received.body.messages.at(-1).content}`), delayMs: 20 }
      })

      // stopped at the end if the test failed before killing it
      const first = yield* Effect.acquireRelease(
        Effect.promise(() => startServer({ databaseUrl, env })),
        (server) => Effect.promise(() => server.stop("SIGKILL"))
      )
      const deployment = yield* upstreamDeployment(first.port, { name: "m", model_type: "CHAT_COMPLETION", base_url: server.url, model: "upstream-model" })
      // the SDK's completion app on that deployment: the test case's input is the prompt
      const spec = yield* callServer(first.port, "POST", "/v4/application-specs", { name: "app", description: "an app", account_id: serverAccount })
      const variant = yield* callServer(first.port, "POST", "/v4/application-variants", {
        name: "v0",
        version: "V0",
        application_spec_id: spec.id,
        account_id: serverAccount,
        configuration: completionApp(deployment.id)
      })
      const dataset = yield* callServer(first.port, "POST", "/v4/evaluation-datasets", { name: "cases" })
      const testCases: Array<{ id: string; input: string }> = []
      for (let i = 0; i < cases; i++) {
        const input = `case-${i}`
        const created = yield* callServer(first.port, "POST", `/v4/evaluation-datasets/${dataset.id}/test-cases`, {
          test_case_data: { input, expected_output: `echo ${input}` }
        })
        testCases.push({ id: created.id, input })
      }

      let killed!: (inFlight: string) => void
      const killedNow = new Promise<string>((resolve) => (killed = resolve))
      onCall = (received, count) => {
        if (count !== killAt) return
        first.child.kill("SIGKILL")
        killed(received.body.messages.at(-1).content)
      }
      const report = yield* callServer(first.port, "POST", "/v4/application-variant-reports", {
        application_variant_id: variant.id,
        evaluation_dataset_ids: [dataset.id]
      })
      const jobOf = (port: number) =>
        Effect.map(callServer(port, "GET", `/v4/application-variant-reports/${report.id}?view=AsyncJobs`), (read) => read.async_jobs[0])
      // the job is seen Running before the kill (the kill waits for the upstream's `killAt`-th call)
      let seenRunning = false
      while (!seenRunning && server.received.length < killAt) {
        seenRunning = (yield* jobOf(first.port)).status === "Running"
        if (!seenRunning) yield* Effect.sleep("5 millis")
      }
      assert.isTrue(seenRunning, "the job was not seen Running before the kill")
      const inFlight = yield* Effect.promise(() => killedNow)
      assert.strictEqual((yield* Effect.promise(() => first.exited)).signal, "SIGKILL")
      onCall = undefined
      // test cases before the one in flight were answered; the one in flight was not
      assert.strictEqual(server.received.length, killAt)

      const second = yield* Effect.acquireRelease(
        Effect.promise(() => startServer({ databaseUrl, env })),
        (server) => Effect.promise(() => server.stop("SIGTERM"))
      )
      let job = yield* jobOf(second.port)
      for (const deadline = Date.now() + 60_000; job.status !== "Completed" && job.status !== "Failed" && Date.now() < deadline;) {
        // not too often: the engine's steps run in the time requests leave (docs/engine.md)
        yield* Effect.sleep("200 millis")
        job = yield* jobOf(second.port)
      }
      assert.strictEqual(job.status, "Completed", JSON.stringify(job))
      assert.deepStrictEqual(job.progress, { completed: cases, failed: 0, pending: 0 })
      assert.deepStrictEqual(job.job_metadata, { test_case_count: cases, failed_test_case_ids: [] })

      // exactly one output per test case, each the upstream's answer to its input
      const outputs = yield* callServer(second.port, "GET", `/v4/application-test-case-outputs?application_variant_report_id=${report.id}&limit=100`)
      assert.strictEqual(outputs.total_item_count, cases)
      const outputOf = new Map<string, string>(outputs.items.map((output: any) => [output.test_case_id, output.output.generation_output]))
      assert.strictEqual(outputOf.size, cases)
      for (const testCase of testCases) assert.strictEqual(outputOf.get(testCase.id), `echo ${testCase.input}`)

      // every test case sent, none more than twice, and only the one in flight at the kill again
      const repeated = assertSentAtMostTwice(server.received, cases, 1)
      assert.strictEqual(repeated, 1, "the call in flight at the kill was not made again")
      assert.strictEqual(server.received.filter((got) => got.body.messages.at(-1).content === inFlight).length, 2)

      // scored: every output is its expected output word for word
      const scored = yield* callServer(second.port, "GET", `/v4/application-variant-reports/${report.id}`)
      assert.strictEqual(scored.score, 1)
      assert.strictEqual(scored.evaluation_datasets[0].generation_status, "Completed")
    }), { timeout: 120_000 })
})
