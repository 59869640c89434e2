/**
 * A builder v4 evaluation survives kill -9 (docs/evaluations.md "Builder evaluations and the
 * judge"): the server is killed with SIGKILL while the build processes a variant (input → a
 * completion through an upstream of the test's own on 127.0.0.1 → output) over a published
 * dataset of 100 test cases, restarted on the same SQLite file, and the build completes: one
 * result per test case, every test case sent to the upstream, at most those of the step in flight
 * (up to 64) twice.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { completionApp } from "../support/applications.js"
import { callServer, cleanup, serverAccount, startServer, tempDir, upstreamDeployment } from "../support/processes.js"
import { assertSentAtMostTwice, chatAnswer, upstream } from "../support/upstream.js"

const cases = 100

describe("kill -9 while a builder evaluation builds", () => {
  it.scopedLive("after a restart the build completes: one result per test case, each sent once but those of the step in flight", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.sync(() => tempDir("evaluations-v4")), (dir) => Effect.sync(() => cleanup(dir)))
      const databaseUrl = `sqlite:${dir}/platform.db`
      const env = { PLATFORM_PROGRESSION: "immediate" }
      const server = yield* upstream((received) => ({ status: 200, body: chatAnswer(`echo ${received.body.messages.at(-1).content}`), delayMs: 10 }))

      const first = yield* Effect.promise(() => startServer({ databaseUrl, env }))
      const deployment = yield* upstreamDeployment(first.port, { name: "m", model_type: "CHAT_COMPLETION", base_url: server.url, model: "upstream-model" })
      const spec = yield* callServer(first.port, "POST", "/v4/application-specs", { account_id: serverAccount, name: "app", description: "an app" })
      const variant = yield* callServer(first.port, "POST", "/v4/application-variants", {
        account_id: serverAccount,
        application_spec_id: spec.id,
        name: "v",
        version: "V0",
        configuration: completionApp(deployment.id)
      })
      const dataset = yield* callServer(first.port, "POST", "/v4/evaluation-datasets", { account_id: serverAccount, name: "many", schema_type: "GENERATION" })
      yield* callServer(first.port, "POST", `/v4/evaluation-datasets/${dataset.id}/test-cases/batch`, Array.from({ length: cases }, (_, i) => ({ test_case_data: { input: `case-${i}` } })))
      yield* callServer(first.port, "POST", `/v4/evaluation-datasets/${dataset.id}/publish`)
      const created = yield* callServer(first.port, "POST", "/v4/evaluations", {
        account_id: serverAccount,
        type: "builder",
        name: "built",
        description: "killed mid-build",
        application_spec_id: spec.id,
        application_variant_id: variant.id,
        evaluation_dataset_id: dataset.id
      })
      // killed part-way: some results stored, some not
      for (;;) {
        const read = yield* callServer(first.port, "GET", `/v4/evaluations/${created.id}`)
        if (read.total_test_case_result_count >= 20) break
        yield* Effect.sleep("5 millis")
      }
      first.child.kill("SIGKILL")
      assert.strictEqual((yield* Effect.promise(() => first.exited)).signal, "SIGKILL")
      assert.isBelow(server.received.length, cases)

      const second = yield* Effect.acquireRelease(Effect.promise(() => startServer({ databaseUrl, env })), (server) => Effect.promise(() => server.stop("SIGTERM")))
      let evaluation = yield* callServer(second.port, "GET", `/v4/evaluations/${created.id}?view=AsyncJobs`)
      const built = (read: any) => read.async_jobs.some((job: any) => job.job_type === "evaluation-build" && (job.status === "Completed" || job.status === "Failed"))
      for (const deadline = Date.now() + 90_000; !built(evaluation) && Date.now() < deadline;) {
        yield* Effect.sleep("100 millis")
        evaluation = yield* callServer(second.port, "GET", `/v4/evaluations/${created.id}?view=AsyncJobs`)
      }
      const job = evaluation.async_jobs.find((job: any) => job.job_type === "evaluation-build")
      assert.strictEqual(job?.status, "Completed", JSON.stringify(evaluation.async_jobs))
      assert.strictEqual(evaluation.total_test_case_result_count, cases)

      // one result per test case, its output the upstream's answer
      const results = yield* callServer(second.port, "GET", `/v4/evaluations/${created.id}/test-case-results?limit=1000`)
      assert.strictEqual(results.items.length, cases)
      const outputs = results.items.map((result: any) => result.test_case_evaluation_data.generation_output).sort()
      assert.strictEqual(new Set(results.items.map((result: any) => result.test_case_id)).size, cases)
      assert.strictEqual(new Set(outputs).size, cases)
      for (const output of outputs) assert.match(output, /^echo .*case-\d+/)
      // the upstream's count: every test case sent, those of the step in flight at the kill at most
      // twice (a step of 64 stores its results together, at its end: run again, it processes
      // again the ones it had processed, and stores each once)
      assertSentAtMostTwice(server.received, cases, 64)
    }), { timeout: 180_000 })
})
