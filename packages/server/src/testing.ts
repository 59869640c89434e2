/**
 * The test kit, `@platform-kit/server/testing` (not part of the main entry): the whole server on
 * a random local port over a fresh database (`TestServerLive`: SQLite of its own, or a schema of
 * its own on the PostgreSQL of DATABASE_URL under `npm run test:pg`: testDatabase.ts); callers with
 * the typed client (`provision`); `eventually` for background work; and raw HTTP
 * (testing/rawHttp.ts) for the tests that must see the wire.
 */
import { HttpServer } from "@effect/platform"
import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import { makeClient } from "@platform-kit/client"
import type { IdentityType } from "@platform-kit/schema"
import { Config, ConfigProvider, Effect, Fiber, FiberId, Layer, Option, Redacted, RuntimeFlags } from "effect"
import * as Fs from "node:fs"
import { createServer } from "node:http"
import * as Os from "node:os"
import * as Path from "node:path"
import { Accounts } from "./auth/Accounts.js"
import { HttpLive } from "./app.js"
import { LeanHttpLive } from "./fast/server.js"
import { Ids } from "./platform/Ids.js"
import { TraceRecordingLive } from "./spans/tracer.js"
import { DatabaseTest } from "./testDatabase.js"
import type { RawResponse } from "./testing/rawHttp.js"

export { DatabaseTest } from "./testDatabase.js"
export * from "./testing/eventually.js"
export * from "./testing/rawHttp.js"

/** The test client of an `HttpServer`: relative URLs go to it, no keep-alive between requests. */
const LoopbackClient = HttpServer.layerTestClient.pipe(
  Layer.provide(NodeHttpClient.layerWithoutAgent),
  Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: false }))
)

/**
 * `NodeHttpServer.layerTest`, but listening on 127.0.0.1 only (the platform's binds every
 * interface): a random local port and an `HttpClient` whose relative URLs go to it.
 */
export const LoopbackTestServer = LoopbackClient.pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)

/**
 * Which way tests serve the API: `lean` (the default), the lean server as the standalone server
 * runs it (fast/server.ts); `builder` (`npm run test:builder`), `HttpApiBuilder.serve` as an
 * application embedding `HttpLive` runs it.
 */
export const TestEngine = Config.literal("lean", "builder")("PLATFORM_TEST_ENGINE").pipe(Config.withDefault("lean" as const))

/** The API on a random local port of 127.0.0.1, served the `TestEngine` way, with its test client. */
export const TestHttpLive = Layer.unwrapEffect(Effect.map(TestEngine, (engine) =>
  engine === "builder"
    ? HttpLive.pipe(Layer.provideMerge(LoopbackTestServer))
    : LoopbackClient.pipe(Layer.provideMerge(LeanHttpLive({ port: 0, host: "127.0.0.1" })))))

/**
 * The whole server on a random local port of 127.0.0.1 over a fresh database (`DatabaseTest`),
 * served the `TestEngine` way, with an `HttpClient` whose relative URLs go to it.
 */
export const TestServerLive = Layer.unwrapScoped(Effect.gen(function*() {
  // what has closed so far, and a report if closing takes longer than vitest's hook timeout allows
  const closed: Array<string> = []
  const mark = (stage: string) => Layer.scopedDiscard(Effect.addFinalizer(() => Effect.sync(() => closed.push(stage))))
  let watch: ReturnType<typeof setTimeout> | undefined
  yield* Effect.addFinalizer(() => Effect.sync(() => clearTimeout(watch)))
  const startWatch = Layer.scopedDiscard(Effect.addFinalizer(() =>
    Effect.sync(() => {
      watch = setTimeout(() => reportSlowClose(closed), slowCloseMillis)
      watch.unref()
    })
  ))
  const server = startWatch.pipe(
    Layer.provideMerge(TestHttpLive),
    Layer.provideMerge(mark("the application (its HTTP server, engine and services)")),
    // the kit's own spans (spans/tracer.ts), written as the standalone server writes them
    Layer.provideMerge(TraceRecordingLive),
    Layer.provideMerge(mark("the kit's own spans")),
    Layer.provideMerge(Accounts.Default),
    Layer.provideMerge(Ids.Live),
    Layer.provideMerge(mark("accounts and ids")),
    Layer.provideMerge(DatabaseTest)
  )
  // an object store of its own (a temporary folder, removed at the end) unless one is configured:
  // what the server writes there (training datasets' files) never lands in the working folder
  if (Option.isSome(yield* Config.option(Config.string("PLATFORM_OBJECT_STORE_ROOT")))) return server
  const root = yield* Effect.acquireRelease(
    Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "platform-kit-store-"))),
    (folder) => Effect.sync(() => Fs.rmSync(folder, { recursive: true, force: true }))
  )
  const configured = yield* Effect.configProviderWith(Effect.succeed)
  return server.pipe(Layer.provide(Layer.setConfigProvider(
    ConfigProvider.fromMap(new Map([["PLATFORM_OBJECT_STORE_ROOT", root]])).pipe(ConfigProvider.orElse(() => configured))
  )))
}))

/** How long a test server may take to close before what it waits on is reported (vitest gives up at 30 s). */
const slowCloseMillis = 15_000

/**
 * A test server still closing after `slowCloseMillis`: which of its stages closed, and what the
 * process still has open (sockets with their ports, servers, timers), on stderr. A close once hung
 * on CI (an afterAll hook timed out after every test had passed) and was not reproduced here;
 * this tells where the next one waits.
 */
const reportSlowClose = (closed: ReadonlyArray<string>) => {
  const handles = ((process as any)._getActiveHandles?.() ?? []) as Array<any>
  const described = handles.map((handle) => {
    const name = handle?.constructor?.name ?? typeof handle
    if (name === "Socket") return `Socket ${handle.localAddress}:${handle.localPort} -> ${handle.remoteAddress}:${handle.remotePort}${handle.destroyed ? " (destroyed)" : ""}`
    if (name === "Server") return `Server ${JSON.stringify(handle.address?.())} connections=${handle._connections}`
    return name
  })
  process.stderr.write(
    `[test server] still closing after ${slowCloseMillis} ms; closed so far: ${closed.length === 0 ? "nothing" : closed.join(", ")}\n` +
      `[test server] active resources: ${process.getActiveResourcesInfo().join(", ")}\n` +
      `[test server] handles: ${described.join("; ")}\n` +
      `[test server] fibers still running:\n${describeFibers().join("\n")}\n`
  )
}

/**
 * Every fiber still running, children under parents: whether it can be interrupted, the fiber it
 * waits on, its span and the innermost frames of its stack (the code each frame goes on with).
 * Reads the runtime's private fields: a diagnosis of a hung close, nothing relies on it.
 */
/**
 * With `PLATFORM_TEST_ASYNC_SITES=1` (the kit's own suites: vitest.config.ts), each fiber keeps
 * the registration of the asynchronous operation it is suspended in (the fiber runtime's `Async`
 * instruction, wrapped), so that a slow close's report says what each waiting fiber waits for.
 * Off by default: it patches the runtime's prototype, a diagnosis only.
 */
if (process.env.PLATFORM_TEST_ASYNC_SITES === "1") {
  const fiber = Effect.runFork(Effect.never) as any
  const proto = Object.getPrototypeOf(fiber)
  const original = proto["Async"]
  if (typeof original === "function" && original.__sites !== true) {
    proto["Async"] = Object.assign(function(this: any, op: any) {
      this.__asyncRegister = op.effect_instruction_i0
      return original.call(this, op)
    }, { __sites: true })
  }
  fiber.unsafeInterruptAsFork(fiber.id())
}

const describeFibers = (): Array<string> => {
  const lines: Array<string> = []
  const seen = new Set<unknown>()
  const frame = (continuation: any) => {
    const code = continuation?.effect_instruction_i1 ?? continuation?.effect_instruction_i2 ?? continuation?.effect_instruction_i0
    const text = typeof code === "function" ? code.toString() : String(continuation?._op)
    return text.replace(/\s+/g, " ").slice(0, 120)
  }
  const visit = (fiber: any, depth: number) => {
    if (seen.has(fiber) || lines.length > 400) return
    seen.add(fiber)
    const flags = fiber.currentRuntimeFlags
    const waits = fiber._asyncBlockingOn ? FiberId.threadName(fiber._asyncBlockingOn) : "nothing"
    const stack = ((fiber._stack ?? []) as Array<any>).filter((frame) => frame?._op !== "RevertFlags").slice(-40).reverse().map(frame)
    lines.push(
      `${"  ".repeat(depth)}${FiberId.threadName(fiber.id())}${RuntimeFlags.interruptible(flags) ? "" : " UNINTERRUPTIBLE"}` +
        ` waits on ${waits}; span ${fiber.currentSpan?.name ?? "none"}; async ${String(fiber.__asyncRegister ?? "unknown").replace(/\s+/g, " ").slice(0, 300)}\n${stack.map((line) => `${"  ".repeat(depth)}    at ${line}`).join("\n")}`
    )
    for (const child of fiber._children ?? []) visit(child, depth + 1)
  }
  for (const root of Fiber.unsafeRoots()) visit(root, 0)
  return lines
}

/**
 * A caller with its own account and key, and a typed client that sends the key: a test's default
 * caller (raw `request` only where the wire is the point).
 */
export const provision = (options: { readonly type?: IdentityType; readonly accountId?: string } = {}) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const made = yield* accounts.provisionUser(options)
    const key = Redacted.value(made.key)
    // one attempt per call: a test sees each answer (and a retry would sleep on the TestClock)
    const client = yield* makeClient({ apiKey: key, retry: false })
    return { ...made, key, client }
  })

/** The `loc`s and `type`s of a 422 body, for exact assertions. */
export const issues = (response: RawResponse) =>
  (response.body?.detail ?? []).map((issue: any) => ({ loc: issue.loc, type: issue.type }))

/** A UUID v4, as every id the server mints. */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** An ISO 8601 UTC timestamp with milliseconds and `Z`, as every timestamp the server answers. */
export const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
