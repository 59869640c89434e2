/**
 * The built-in embeddings of an ingestion on a thread of their own (docs/knowledge-bases.md
 * "Costs"). Embedding a batch's chunks is a few hundred milliseconds of CPU a megabyte, with its
 * garbage; on the thread that serves requests it delays them, and it keeps the batch from writing.
 * `BuiltinEmbeddings.onThread` runs it on one worker thread (`embeddingWorker.ts`), started by the
 * first batch and ended after `idleMs` without one, at the helper threads' nice value
 * (`PLATFORM_HELPER_THREADS_NICE`): on a machine with a core to spare it embeds beside the writes
 * of the batch before it, on a busy core in the time the requests leave. The vectors are the
 * function's own, bit for bit (`embedVector`). The thread keeps the process alive only while it
 * has texts to answer.
 *
 * The thread's program is found beside this module: `embeddingWorker.js` (the compiled package),
 * `embeddingWorker.ts` (the sources, loaded through tsx's hooks: the tests), or the bundle's
 * `embeddingWorker.mjs` entry (scripts/build.mjs: this code sits in the entry or in one of its
 * `chunks/`). A program bundled otherwise has none and embeds on its own thread, as it does from
 * the moment the thread fails (a warning in the log, once; no new thread is tried). A query's one
 * text never goes to the thread (`BuiltinEmbeddings.inThread`): the round trip would cost more
 * than the embedding.
 *
 * Not `@effect/platform`'s worker pool: it starts a worker when the pool is made (at the server's
 * start, where this one costs nothing until an ingestion), and a program that fails to start is
 * retried every second while the calls waiting on it wait on.
 */
import { Context, Effect, Layer, Runtime } from "effect"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as WorkerThreads from "node:worker_threads"
import { HelperThreadsNice } from "../../config.js"
import { embeddingDimensions, embedVector } from "../../models/inference/builtin.js"

/** The built-in embeddings of `texts`, in order. */
const embedHere = (texts: ReadonlyArray<string>) => texts.map((text) => Float32Array.from(embedVector(text)))

/** How long the thread stays without texts before it ends. */
const idleMs = 5_000

/** Where the thread's program is (see the module comment), if anywhere. */
const programUrl = (): URL | undefined =>
  ["./embeddingWorker.js", "./embeddingWorker.ts", "../embeddingWorker.mjs", "./embeddingWorker.mjs"]
    .map((candidate) => new URL(candidate, import.meta.url))
    .find((url) => url.protocol === "file:" && Fs.existsSync(fileURLToPath(url)))

/**
 * The thread of `program`, at `nice`. A TypeScript program runs after tsx's hooks are registered
 * in the thread (its ES module API, `tsx/esm/api`: the package's `require` entry resolved, the
 * `import` one beside it).
 */
const spawn = (program: URL, nice: number): WorkerThreads.Worker => {
  const options = { workerData: { nice }, name: "platform-kit embeddings" }
  if (!program.pathname.endsWith(".ts")) return new WorkerThreads.Worker(program, options)
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href
  return new WorkerThreads.Worker(
    `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(program.href)}) })`,
    { ...options, eval: true }
  )
}

export class BuiltinEmbeddings extends Context.Tag("@platform-kit/server/BuiltinEmbeddings")<BuiltinEmbeddings, {
  /** The built-in embeddings of `texts`, in order. */
  readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Float32Array>>
}>() {
  /** On the calling thread. */
  static readonly inThread = Layer.succeed(BuiltinEmbeddings, { embed: (texts) => Effect.sync(() => embedHere(texts)) })

  /** On a thread of their own (see the module comment); on the calling thread where it cannot run. */
  static readonly onThread = Layer.suspend(() => BuiltinEmbeddings.onThreadOf(programUrl()))

  /** On a thread that runs `program` (a test gives one that fails); on the calling thread without one. */
  static readonly onThreadOf = (program: URL | undefined) =>
    program === undefined ? BuiltinEmbeddings.inThread : Layer.scoped(
      BuiltinEmbeddings,
      Effect.gen(function*() {
        const nice = yield* Effect.orElseSucceed(HelperThreadsNice, () => 19)
        // the thread's failure is logged where it happens, with the layer's logger
        const runFork = Runtime.runFork(yield* Effect.runtime<never>())
        /** The calls waiting on the thread, by id: each answered with its vectors, or with nothing when the thread failed. */
        const waiting = new Map<number, (vectors: Float32Array | undefined) => void>()
        let worker: WorkerThreads.Worker | undefined
        let failed = false
        let nextId = 0
        let idle: ReturnType<typeof setTimeout> | undefined

        const stop = (ending: WorkerThreads.Worker) => {
          if (worker === ending) worker = undefined
          return ending.terminate()
        }
        const fail = (ending: WorkerThreads.Worker, error: unknown) => {
          if (worker !== ending) return
          worker = undefined
          if (!failed) {
            failed = true
            runFork(Effect.logWarning("Built-in embeddings: the embedding thread failed; ingestion embeds on the request thread", error))
          }
          for (const answer of waiting.values()) answer(undefined)
          waiting.clear()
        }
        const start = () => {
          const started = spawn(program, nice)
          started.on("message", ([id, vectors]: readonly [number, Float32Array]) => {
            const answer = waiting.get(id)
            waiting.delete(id)
            answer?.(vectors)
            if (waiting.size === 0) {
              // idle: it no longer keeps the process alive, and ends unless texts come soon
              started.unref()
              idle = setTimeout(() => void stop(started), idleMs).unref()
            }
          })
          started.on("error", (error) => fail(started, error))
          started.on("exit", (code) => fail(started, new Error(`the embedding thread exited (code ${code})`)))
          return started
        }

        yield* Effect.addFinalizer(() => Effect.promise(() => (worker === undefined ? Promise.resolve(0) : stop(worker))))

        const embed = (texts: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Float32Array>> =>
          Effect.async<Float32Array | undefined>((resume) => {
            if (failed || texts.length === 0) return resume(Effect.succeed(undefined))
            clearTimeout(idle)
            worker ??= start()
            worker.ref()
            const id = nextId++
            waiting.set(id, (vectors) => resume(Effect.succeed(vectors)))
            worker.postMessage([id, texts])
            // interrupted: its answer, when it comes, is dropped
            return Effect.sync(() => waiting.delete(id))
          }).pipe(
            // no answer (no texts, or the thread failed): embedded here
            Effect.map((vectors) =>
              vectors === undefined
                ? embedHere(texts)
                : texts.map((_, i) => vectors.subarray(i * embeddingDimensions, (i + 1) * embeddingDimensions))
            )
          )
        return { embed }
      })
    )
}
