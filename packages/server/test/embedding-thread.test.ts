/**
 * The built-in embeddings of an ingestion on a thread of their own (knowledge-bases/retrieval/embeddingThread.ts):
 * the thread answers the vectors `embedVector` gives, bit for bit, runs while the layer's scope is
 * open at `PLATFORM_HELPER_THREADS_NICE` (on Linux its thread is found, with its nice value, and
 * is gone when the scope closes), and where its program
 * fails the texts are embedded on the calling thread, with one warning in the log.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Exit, Layer, Logger, Scope } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { BuiltinEmbeddings } from "../src/knowledge-bases/retrieval/embeddingThread.js"
import { embedVector } from "../src/models/inference/builtin.js"
import { temporaryDirectory } from "../src/testDatabase.js"
import { niceOf, threadIds } from "./support/threads.js"

const texts = [
  "The quick brown fox jumps over the lazy dog",
  "",
  "   ",
  "Ünïcödé wörds, 数字 123 and emoji 🦊🦊",
  "a".repeat(5_000),
  ...Array.from({ length: 300 }, (_, i) => `paragraph ${i}: ${"lorem ipsum dolor sit amet ".repeat(i % 7)}`)
]

/**
 * Embeds `texts` through `layer` in a scope of its own; answers the vectors, the threads started
 * meanwhile with their nice values, and those of them that ended with the scope.
 */
const embedThrough = (layer: Layer.Layer<BuiltinEmbeddings>) =>
  Effect.gen(function*() {
    // libuv's pool, made at its first use, is made before counting
    yield* Effect.promise(() => Fs.promises.stat(import.meta.dirname))
    const before = threadIds()
    const scope = yield* Scope.make()
    const embeddings = Context.get(yield* Layer.buildWithScope(layer, scope), BuiltinEmbeddings)
    const vectors = yield* embeddings.embed(texts)
    const again = yield* embeddings.embed(texts.slice(0, 3))
    const started = threadIds().filter((id) => !before.includes(id))
    // a thread may end between the listing and the read (a failing program's does)
    const nices = started.flatMap((tid) => {
      try {
        return [niceOf(tid)]
      } catch {
        return []
      }
    })
    yield* Scope.close(scope, Exit.void)
    const after = threadIds()
    return { vectors, again, nices, started, ended: started.filter((id) => !after.includes(id)) }
  })

const assertExact = (vectors: ReadonlyArray<Float32Array>, of: ReadonlyArray<string>) => {
  assert.strictEqual(vectors.length, of.length)
  of.forEach((text, i) => assert.deepStrictEqual(vectors[i], Float32Array.from(embedVector(text)), text.slice(0, 40)))
}

describe("the built-in embeddings' thread", () => {
  it.live("answers embedVector's vectors from a thread of its own at the helper threads' nice value, which ends with the scope", () =>
    Effect.gen(function*() {
      const niced = ConfigProvider.fromMap(new Map([["PLATFORM_HELPER_THREADS_NICE", "7"]]))
      const { vectors, again, nices, started, ended } = yield* embedThrough(BuiltinEmbeddings.onThread).pipe(Effect.withConfigProvider(niced))
      assertExact(vectors, texts)
      assertExact(again, texts.slice(0, 3))
      if (process.platform === "linux") {
        // the embeddings' thread (and, from the sources, the thread of tsx's module hooks, made before it lowers its priority)
        assert.include(nices, 7, "a thread at nice 7 runs while the scope is open")
        assert.sameMembers([...ended], [...started], "the threads it started ended with the scope")
      }
    }), 60_000)

  it.scopedLive("embeds on the calling thread, with one warning, where the thread's program fails", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory("embedding-thread")
      const program = Path.join(dir, "failing.mjs")
      Fs.writeFileSync(program, "throw new Error('this program cannot run')\n")
      const warnings: Array<string> = []
      const logger = Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ logLevel, message }) => {
          if (logLevel._tag === "Warning") warnings.push(String(message))
        })
      )
      const { vectors, again } = yield* embedThrough(BuiltinEmbeddings.onThreadOf(pathToFileURL(program))).pipe(Effect.provide(logger))
      assertExact(vectors, texts)
      assertExact(again, texts.slice(0, 3))
      assert.strictEqual(warnings.length, 1, warnings.join("\n"))
      assert.include(warnings[0], "the embedding thread failed")
    }), 60_000)
})
