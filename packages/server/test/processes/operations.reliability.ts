/**
 * What an operator sees of the standalone server (docs/operations.md): JSON log lines when the
 * output is not a terminal, the start line with the documentation's address, the stop line last,
 * the log level, and mistakes that stop a start answered with one line and an exit code.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as Path from "node:path"
import { childEnv, cleanup, freePort, repoRoot, serverAccount, serverBundle, serverKey, startServer, tempDir } from "../support/processes.js"
import { niceOf, threadIds } from "../support/threads.js"

/** Starts the server program with `env`: what it printed so far, and how it ended once it does. */
const spawnServer = (env: Record<string, string>) => {
  const child = spawn(process.execPath, [serverBundle], {
    cwd: repoRoot,
    env: childEnv({ HOST: "127.0.0.1", ...env }),
    stdio: ["ignore", "pipe", "pipe"]
  })
  const out = { stdout: "", stderr: "" }
  child.stdout.on("data", (chunk: Buffer) => (out.stdout += chunk.toString("utf8")))
  child.stderr.on("data", (chunk: Buffer) => (out.stderr += chunk.toString("utf8")))
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000)
  const ended = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.once("error", reject)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve({ code, ...out })
    })
  })
  return { child, out, ended }
}

/** Runs the server program until it ends by itself. */
const runToEnd = (env: Record<string, string>) => spawnServer(env).ended

/** The nice value of each thread of process `pid` (Linux's /proc), the main thread's first. */
const threadNices = (pid: number) => ({
  main: niceOf(String(pid), pid),
  helpers: threadIds(pid).filter((tid) => tid !== String(pid)).map((tid) => niceOf(tid, pid))
})

/** The log lines among what the server printed (the first start's key notice is not one). */
const jsonLines = (output: string) =>
  output.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, any>)

describe("operating the standalone server", () => {
  it("logs JSON lines off a terminal: the start line names the docs, a line per request (PLATFORM_ACCESS_LOG=on), the stop line last; SIGTERM exits 0; helper threads at nice 19", async () => {
    const dir = tempDir("operations")
    try {
      const server = await startServer({ databaseUrl: `sqlite:${Path.join(dir, "platform.db")}`, env: { PLATFORM_ACCESS_LOG: "on" } })
      const base = `http://127.0.0.1:${server.port}`
      assert.strictEqual((await fetch(`${base}/health`)).status, 200)
      // the helper threads it had at start run at nice 19 (docs/operations.md "Helper threads"), the request thread at 0
      if (process.platform === "linux") {
        const nices = threadNices(server.child.pid!)
        assert.strictEqual(nices.main, 0)
        assert.isAtLeast(nices.helpers.filter((nice) => nice === 19).length, 4, JSON.stringify(nices))
      }
      const keyed = { "x-api-key": serverKey }
      const missing = await fetch(`${base}/v4/model-groups/missing?limit=1`, { headers: { ...keyed, "x-request-id": "req-404" } })
      assert.strictEqual(missing.status, 404)
      const created = await fetch(`${base}/v4/model-groups`, {
        method: "POST",
        headers: { ...keyed, "content-type": "application/json", "idempotency-key": "k-1", "x-request-id": "req-post" },
        body: JSON.stringify({ name: "secret-name-in-body", account_id: serverAccount })
      })
      assert.strictEqual(created.status, 200)
      assert.strictEqual((await fetch(`${base}/v4/model-groups`, { headers: { "x-api-key": "pk_wrong_key" } })).status, 401)
      const exited = await server.stop("SIGTERM")
      assert.strictEqual(exited.code, 0, server.output())
      const lines = jsonLines(server.output())
      for (const line of lines) {
        assert.includeMembers(Object.keys(line), ["message", "logLevel", "timestamp"])
      }
      const messages = lines.map((line) => String(line.message))
      assert.include(messages, `Listening on ${base}; API documentation at ${base}/docs (OpenAPI: ${base}/openapi.json)`)
      assert.match(messages.at(-1)!, /^Stopped/)
      // the access log: a line per request, with the route, status, request id and caller
      const requests = lines.filter((line) => line.message === "request").map((line) => line.annotations)
      for (const request of requests) {
        assert.deepStrictEqual(Object.keys(request).sort(), ["account", "duration_ms", "identity", "method", "request_id", "route", "status"])
        assert.isAtLeast(request.duration_ms, 0)
      }
      const byRequest = (id: string) => requests.find((request) => request.request_id === id)
      assert.deepInclude(byRequest("req-404"), { method: "GET", route: "/v4/model-groups/:model_group_id", status: 404, account: serverAccount })
      assert.isString(byRequest("req-404").identity)
      // a keyed POST goes through the builder's path: its route is the path it was sent to
      assert.deepInclude(byRequest("req-post"), { method: "POST", route: "/v4/model-groups", status: 200, account: serverAccount })
      assert.deepInclude(requests.find((request) => request.status === 401), { route: "/v4/model-groups", identity: null, account: null })
      assert.deepInclude(requests.find((request) => request.route === "/health"), { status: 200, identity: null })
      // never a key, a body or a query string
      assert.notInclude(server.output(), "pk_wrong_key")
      assert.notInclude(server.output(), "secret-name-in-body")
      assert.notInclude(server.output(), "limit=1")
      // the configured key is named by its account, never shown
      assert.notInclude(server.output(), "pk_reliability_test_key")
    } finally {
      cleanup(dir)
    }
  }, 180_000)

  it("PLATFORM_LOG_LEVEL=warning leaves the info lines out; PLATFORM_LOG_FORMAT=logfmt writes logfmt; PLATFORM_HELPER_THREADS_NICE=0 leaves the threads be", async () => {
    const dir = tempDir("operations")
    try {
      // nothing at info, not even the start line: the server is up when /health answers
      const port = await freePort()
      const quiet = spawnServer({ PORT: String(port), DATABASE_URL: `sqlite:${Path.join(dir, "quiet.db")}`, PLATFORM_LOG_LEVEL: "warning" })
      let up = false
      for (let i = 0; i < 600 && !up; i++) {
        up = await fetch(`http://127.0.0.1:${port}/health`).then((response) => response.ok, () => false)
        if (!up) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      assert.isTrue(up, quiet.out.stdout + quiet.out.stderr)
      quiet.child.kill("SIGTERM")
      const ended = await quiet.ended
      assert.strictEqual(ended.code, 0, ended.stderr)
      assert.deepStrictEqual(jsonLines(ended.stdout + ended.stderr), [])

      const logfmt = await startServer({
        databaseUrl: `sqlite:${Path.join(dir, "logfmt.db")}`,
        env: { PLATFORM_LOG_FORMAT: "logfmt", PLATFORM_HELPER_THREADS_NICE: "0" }
      })
      // PLATFORM_HELPER_THREADS_NICE=0: every thread left at the nice it started with
      if (process.platform === "linux") assert.deepStrictEqual(new Set(threadNices(logfmt.child.pid!).helpers), new Set([0]))
      await logfmt.stop("SIGTERM")
      assert.match(logfmt.output(), /level=INFO fiber=#\d+ message="Listening on http:\/\/127\.0\.0\.1:\d+; API documentation/)
    } finally {
      cleanup(dir)
    }
  }, 300_000)

  it("a start that cannot go on ends with one line and its exit code: address 3, database 4, configuration 2", async () => {
    const dir = tempDir("operations")
    try {
      const first = await startServer({ databaseUrl: `sqlite:${Path.join(dir, "platform.db")}` })
      try {
        const taken = await runToEnd({ PORT: String(first.port), DATABASE_URL: `sqlite:${Path.join(dir, "other.db")}` })
        assert.strictEqual(taken.code, 3, taken.stderr)
        assert.strictEqual(taken.stderr, `platform-kit: cannot listen on 127.0.0.1:${first.port}: the address is in use (set PORT or HOST)\n`)
        // a start that failed did not stop a server: no stop line
        assert.notInclude(taken.stdout, "Stopped")
      } finally {
        await first.stop("SIGTERM")
      }

      // the starts below are independent: run at once (each on a free port of its own), they
      // take the time of one start rather than of five
      const port = async () => String(await freePort())
      const [unreachable, unopenable, unsupported, badPort, badLevel, badPublicUrl, badCors] = await Promise.all([
        runToEnd({ PORT: await port(), DATABASE_URL: "postgres://kit:hunter2@127.0.0.1:1/platform" }),
        runToEnd({ PORT: await port(), DATABASE_URL: `sqlite:${Path.join(dir, "platform.db", "inside-a-file.db")}` }),
        runToEnd({ PORT: await port(), DATABASE_URL: "mysql://kit@127.0.0.1/platform" }),
        runToEnd({ PORT: "99999", DATABASE_URL: "sqlite::memory:" }),
        runToEnd({ PORT: await port(), DATABASE_URL: "sqlite::memory:", PLATFORM_LOG_LEVEL: "loud" }),
        runToEnd({ PORT: await port(), DATABASE_URL: "sqlite::memory:", PLATFORM_PUBLIC_URL: "ftp://example.org" }),
        runToEnd({ PORT: await port(), DATABASE_URL: "sqlite::memory:", PLATFORM_CORS_ORIGINS: "localhost:3000" })
      ])
      assert.strictEqual(unreachable.code, 4, unreachable.stderr)
      assert.match(unreachable.stderr, /^platform-kit: cannot open the database of DATABASE_URL: .*ECONNREFUSED.*\n$/)
      assert.notInclude(unreachable.stderr, "hunter2")

      assert.strictEqual(unopenable.code, 4, unopenable.stderr)
      assert.match(unopenable.stderr, /^platform-kit: cannot open the database of DATABASE_URL: .*\n$/)

      assert.strictEqual(unsupported.code, 2, unsupported.stderr)
      assert.match(unsupported.stderr, /^platform-kit: configuration: DATABASE_URL "mysql:…" is not supported; .*\n$/)

      assert.strictEqual(badPort.code, 2, badPort.stderr)
      assert.match(badPort.stderr, /^platform-kit: configuration: .*PORT.*99999.*\n$/)

      assert.strictEqual(badLevel.code, 2, badLevel.stderr)
      assert.match(badLevel.stderr, /^platform-kit: configuration: .*PLATFORM_LOG_LEVEL.*loud.*\n$/)

      assert.strictEqual(badPublicUrl.code, 2, badPublicUrl.stderr)
      assert.match(badPublicUrl.stderr, /^platform-kit: configuration: .*PLATFORM_PUBLIC_URL must be an http:\/\/ or https:\/\/ URL.*\n$/)
      assert.strictEqual(badCors.code, 2, badCors.stderr)
      assert.match(badCors.stderr, /^platform-kit: configuration: .*PLATFORM_CORS_ORIGINS must be \* or a comma-separated list of origins.*\n$/)
      // one line each, no stack trace
      for (const run of [unreachable, unopenable, unsupported, badPort, badLevel, badPublicUrl, badCors]) {
        assert.strictEqual(run.stderr.split("\n").length, 2, run.stderr)
        assert.notInclude(run.stderr, "    at ")
      }
    } finally {
      cleanup(dir)
    }
  }, 300_000)
})
