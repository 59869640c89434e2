/**
 * The real programs as child processes, for the reliability tests: the server (`src/bin.ts`,
 * bundled into `dist/server/server.mjs` as `npm start` runs it, by the suites' global setup
 * `processes/buildServer.ts`) on a file database, and the admin CLI
 * (`platform-kit`, through the bin link that `npm ci` makes in node_modules/.bin).
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { send } from "../../src/testing/rawHttp.js"

export const repoRoot = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../../..")
/** The standalone server as `npm start` runs it (built by `processes/buildServer.ts`). */
export const serverBundle = Path.join(repoRoot, "dist/server/server.mjs")
export const cliBin = Path.join(repoRoot, "node_modules/.bin/platform-kit")

/** Starting a program on a busy 2-core machine can take a while (the admin CLI runs through tsx). */
const startTimeoutMs = 90_000

/** A fresh directory for one test's database; removed by `cleanup`. */
export const tempDir = (label: string) => Fs.mkdtempSync(Path.join(Os.tmpdir(), `platform-kit-${label}-`))

export const cleanup = (dir: string) => Fs.rmSync(dir, { recursive: true, force: true })

/** A port nothing listens on right now. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = Net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as Net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

/**
 * The environment of a child: this one's, less what the test runner sets for its own database.
 * A variable given as `undefined` in `env` is left unset.
 */
export const childEnv = (env: Record<string, string | undefined>) => {
  const base: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith("PLATFORM_") && name !== "DATABASE_URL" && name !== "PORT") {
      base[name] = value
    }
  }
  return { ...base, ...env }
}

export interface Exited {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export interface ServerProcess {
  readonly port: number
  readonly child: ChildProcess
  /** Everything the server printed so far (stdout and stderr). */
  readonly output: () => string
  readonly exited: Promise<Exited>
  /** Sends `signal` and waits for the process to end. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<Exited>
}

/** The key and account every test server makes sure of on start (`PLATFORM_API_KEY`). */
export const serverKey = "pk_reliability_test_key"
export const serverAccount = "acct-reliability"

/**
 * Starts the server on `databaseUrl` and a free port, and resolves once it listens. The key
 * `serverKey` of account `serverAccount` is registered on start. `command` (with `cwd`) runs
 * another build of the server program, such as an installed package's bin.
 */
export const startServer = async (options: {
  readonly databaseUrl: string
  readonly env?: Record<string, string | undefined>
  readonly command?: ReadonlyArray<string>
  readonly cwd?: string
}): Promise<ServerProcess> => {
  const port = await freePort()
  const [file, ...args] = options.command ?? [process.execPath, serverBundle]
  const child = spawn(file!, args, {
    cwd: options.cwd ?? repoRoot,
    env: childEnv({
      DATABASE_URL: options.databaseUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      PLATFORM_API_KEY: serverKey,
      PLATFORM_ACCOUNT_ID: serverAccount,
      ...options.env
    }),
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  const onOutput = (chunk: Buffer) => {
    output += chunk.toString("utf8")
  }
  child.stdout!.on("data", onOutput)
  child.stderr!.on("data", onOutput)
  const exited = new Promise<Exited>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })))
  const stop = (signal: NodeJS.Signals = "SIGTERM") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    return exited
  }
  const listening = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${output}`)), startTimeoutMs)
    const check = () => {
      if (output.includes(`Listening on http://127.0.0.1:${port}`)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on("data", check)
    child.stderr!.on("data", check)
    void exited.then((how) => {
      clearTimeout(timer)
      reject(new Error(`server exited (${how.code ?? how.signal}) before listening:\n${output}`))
    })
  })
  try {
    await listening
  } catch (error) {
    await stop("SIGKILL")
    throw error
  }
  return { port, child, output: () => output, exited, stop }
}

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `platform-kit args…` on `databaseUrl` and collects what it printed. */
export const runCli = (
  args: ReadonlyArray<string>,
  options: { readonly databaseUrl: string; readonly command?: ReadonlyArray<string>; readonly cwd?: string }
): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    const [file, ...prefix] = options.command ?? [cliBin]
    const child = spawn(file!, [...prefix, ...args], {
      cwd: options.cwd ?? repoRoot,
      env: childEnv({ DATABASE_URL: options.databaseUrl }),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    const timer = setTimeout(() => child.kill("SIGKILL"), startTimeoutMs)
    child.once("error", reject)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

/** A JSON call to the server on `port` with the tests' key: the answer's body; any status but 200 fails the test. */
export const callServer = (port: number, method: "GET" | "POST", path: string, body?: unknown) =>
  Effect.promise(() => send({ port, method, path, headers: { "x-api-key": serverKey }, ...(body === undefined ? {} : { body }) })).pipe(
    Effect.tap((response) => assert.strictEqual(response.status, 200, response.text)),
    Effect.map((response): any => response.json)
  )

/**
 * A model of `model_type` of the tests' account and a deployment of it on the OpenAI-compatible
 * server at `base_url` (`parameters` added to its creation parameters), once READY: the deployment.
 */
export const upstreamDeployment = (port: number, options: {
  readonly name: string
  readonly model_type: "CHAT_COMPLETION" | "EMBEDDING"
  readonly base_url: string
  readonly model: string
  readonly parameters?: Record<string, unknown>
}) =>
  Effect.gen(function*() {
    const model = yield* callServer(port, "POST", "/v4/models", { name: options.name, model_type: options.model_type, account_id: serverAccount })
    const deployment = yield* callServer(port, "POST", `/v4/models/${model.id}/deployments`, {
      name: "upstream",
      model_creation_parameters: { provider: "openai_compatible", base_url: options.base_url, model: options.model, ...options.parameters }
    })
    for (let read = deployment; read.status !== "READY"; read = yield* callServer(port, "GET", `/v4/model-deployments/${deployment.id}`)) {
      yield* Effect.sleep("20 millis")
    }
    return deployment
  })
