/**
 * Runs the three examples: the embedded program in-process, the standalone server as a child
 * process on a free port and a fresh SQLite file, and the client service against that server.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { EmbeddedLive, program as embedded } from "../embedded.js"

const root = Path.resolve(import.meta.dirname, "..", "..")
const tsx = Path.join(root, "node_modules", ".bin", "tsx")

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = Net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as Net.AddressInfo
      server.close(() => resolve(address.port))
    })
    server.on("error", reject)
  })

/** Starts examples/server.ts; resolves when it listens, with the key and account printed on first start. */
const startServer = async (env: Record<string, string>) => {
  const child = spawn(tsx, [Path.join(root, "examples", "server.ts")], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  const ready = await new Promise<{ key: string | undefined; account: string | undefined }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const key = /api key: (\S+)/.exec(output)
      const account = /account: (\S+)/.exec(output)
      if (/Listening on/.test(output)) {
        clearTimeout(timer)
        resolve({ key: key?.[1], account: account?.[1] })
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.on("exit", (code) => reject(new Error(`server exited with ${code}:\n${output}`)))
  })
  return { child, ...ready, output: () => output }
}

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.on("exit", (code) => resolve(code))
    child.kill("SIGTERM")
  })

describe("examples", () => {
  it.effect("embedded: the whole API in-process through the derived client", () =>
    Effect.gen(function*() {
      const result = yield* embedded
      assert.strictEqual(result.group.name, "llama family")
      assert.strictEqual(result.group.account_id, result.accountId)
      assert.deepStrictEqual(result.again, result.group)
      assert.strictEqual(result.page.total_item_count, 1)
      assert.strictEqual(result.missing._tag, "NotFound")
    }).pipe(Effect.provide(EmbeddedLive)))

  it("server and service: a standalone server on SQLite, called by another service with the client", async () => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "platform-kit-example-"))
    const port = await freePort()
    const env = { PORT: String(port), HOST: "127.0.0.1", DATABASE_URL: `sqlite:${dir}/db/platform.db` }
    const server = await startServer(env)
    assert.isString(server.key)
    assert.isString(server.account)
    // its output is not a terminal: JSON lines, as `npm start` writes them (docs/operations.md)
    const listening = server.output().split("\n").find((line) => line.includes("Listening on"))!
    assert.match(JSON.parse(listening).message, /^Listening on http:\/\/127\.0\.0\.1:\d+/)
    try {
      assert.isTrue(Fs.existsSync(Path.join(dir, "db", "platform.db")))
      const health = await fetch(`http://127.0.0.1:${port}/health`)
      assert.strictEqual(health.status, 200)
      const unauthorized = await fetch(`http://127.0.0.1:${port}/v4/model-groups`)
      assert.strictEqual(unauthorized.status, 401)

      const run = () =>
        new Promise<string>((resolve, reject) =>
          execFile(tsx, [Path.join(root, "examples", "service.ts")], {
            cwd: root,
            env: { ...process.env, PLATFORM_BASE_URL: `http://127.0.0.1:${port}`, PLATFORM_API_KEY: server.key!, PLATFORM_ACCOUNT_ID: server.account! }
          }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)))
        )
      const first = JSON.parse((await run()).trim().split("\n").pop()!)
      const second = JSON.parse((await run()).trim().split("\n").pop()!)
      assert.strictEqual(first.names.length, 1)
      // the second run pages through both groups (limit 2 per page) and sees its own first
      assert.strictEqual(second.names.length, 2)
      assert.isTrue(second.names.every((name: string) => name.startsWith("from-service-")))

      // the Promise facade, configured by the same environment
      const promised = await new Promise<string>((resolve, reject) =>
        execFile(tsx, [Path.join(root, "examples", "promise.ts")], {
          cwd: root,
          env: { ...process.env, PLATFORM_BASE_URL: `http://127.0.0.1:${port}`, PLATFORM_API_KEY: server.key!, PLATFORM_ACCOUNT_ID: server.account! }
        }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)))
      )
      const result = JSON.parse(promised.trim().split("\n").pop()!)
      assert.isString(result.created)
      assert.deepStrictEqual(result.missing.status, 404)
      assert.deepStrictEqual(result.missing.tag, "NotFound")

      // the RAG application: a knowledge base, a variant, a question answered with its chunks
      const rag = await new Promise<string>((resolve, reject) =>
        execFile(tsx, [Path.join(root, "examples", "rag-app.ts")], {
          cwd: root,
          env: { ...process.env, PLATFORM_BASE_URL: `http://127.0.0.1:${port}`, PLATFORM_API_KEY: server.key!, PLATFORM_ACCOUNT_ID: server.account! }
        }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)))
      )
      const answered = JSON.parse(rag.trim().split("\n").pop()!)
      // the ferry passage retrieved first; the built-in model echoes the prompt it was given
      assert.strictEqual(answered.chunks.length, 2)
      assert.strictEqual(answered.chunks[0], "Ferries to the islands leave every hour from pier two.")
      assert.strictEqual(
        answered.answer,
        `Answer the question "When do the ferries leave?" using only these passages:${answered.chunks.map((text: string) => `\n- ${text}`).join("")}`
      )
      assert.include(rag, `Chunks:\n- ${answered.chunks[0]}`)
      // the process was recorded as an interaction of the spec
      const recorded = await fetch(`http://127.0.0.1:${port}/v4/applications/${answered.spec}/interactions/${answered.interaction}`, {
        headers: { "x-api-key": server.key! }
      })
      assert.strictEqual(recorded.status, 200)
      assert.strictEqual(((await recorded.json()) as { output: Record<string, unknown> }).output["output-text"], answered.answer)
    } finally {
      const code = await stop(server.child)
      assert.strictEqual(code, 0, server.output())
    }
    // a restart on the same file keeps the data and prints no new key
    const again = await startServer(env)
    const list = await fetch(`http://127.0.0.1:${port}/v4/model-groups`, { headers: { "x-api-key": server.key! } })
    const body = await list.json() as { total_item_count: number }
    await stop(again.child)
    assert.strictEqual(body.total_item_count, 3)
    assert.isUndefined(again.key)
  }, 180_000)
})
