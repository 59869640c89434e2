/**
 * The built-in embeddings of an ingestion on a thread of their own (knowledge-bases/embeddingThread.ts):
 * the thread answers the vectors `embedVector` gives, bit for bit, runs while the layer's scope is
 * open (on Linux its thread is counted, and gone when the scope closes), and where its program
 * fails the texts are embedded on the calling thread, with one warning in the log.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Logger, Scope } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { BuiltinEmbeddings } from "../src/knowledge-bases/embeddingThread.js"
import { embedVector } from "../src/models/inference/builtin.js"
import { temporaryDirectory } from "../src/testDatabase.js"

const texts = [
  "The quick brown fox jumps over the lazy dog",
  "",
  "   ",
  "Ünïcödé wörds, 数字 123 and emoji 🦊🦊",
  "a".repeat(5_000),
  ...Array.from({ length: 300 }, (_, i) => `paragraph ${i}: ${"lorem ipsum dolor sit amet ".repeat(i % 7)}`)
]

/** The process's threads (Linux), none elsewhere. */
const threads = () => (process.platform === "linux" ? Fs.readdirSync("/proc/self/task").length : 0)

/** Embeds `texts` through `layer` in a scope of its own; answers the vectors and the threads counted before, during and after. */
const embedThrough = (layer: Layer.Layer<BuiltinEmbeddings>) =>
  Effect.gen(function*() {
    // libuv's pool, made at its first use, is made before counting
    yield* Effect.promise(() => Fs.promises.stat(import.meta.dirname))
    const before = threads()
    const scope = yield* Scope.make()
    const embeddings = Context.get(yield* Layer.buildWithScope(layer, scope), BuiltinEmbeddings)
    const vectors = yield* embeddings.embed(texts)
    const again = yield* embeddings.embed(texts.slice(0, 3))
    const during = threads()
    yield* Scope.close(scope, Exit.void)
    return { vectors, again, before, during, after: threads() }
  })

const assertExact = (vectors: ReadonlyArray<Float32Array>, of: ReadonlyArray<string>) => {
  assert.strictEqual(vectors.length, of.length)
  of.forEach((text, i) => assert.deepStrictEqual(vectors[i], Float32Array.from(embedVector(text)), text.slice(0, 40)))
}

describe("the built-in embeddings' thread", () => {
  it.live("answers embedVector's vectors from a thread of its own, which ends with the scope", () =>
    Effect.gen(function*() {
      const { vectors, again, before, during, after } = yield* embedThrough(BuiltinEmbeddings.onThread)
      assertExact(vectors, texts)
      assertExact(again, texts.slice(0, 3))
      if (process.platform === "linux") {
        assert.isAbove(during, before, "a thread runs while the scope is open")
        assert.strictEqual(after, before, "the thread ended with the scope")
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
