/**
 * The object store (platform/ObjectStore.ts) and text extraction (knowledge-bases/uploads/extract.ts), on
 * a real folder: listing by bucket and prefix, path traversal and links out refused with nothing
 * read, the size limit, binary, empty and unsupported files.
 */
import { NodePath } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { extractText, htmlText } from "../src/knowledge-bases/uploads/extract.js"
import { listObjects, ObjectStoreFileSystem, readObject } from "../src/platform/ObjectStore.js"

/** A store: root/docs with files, a secret beside the root, links in and out. */
const store = Effect.acquireRelease(
  Effect.sync(() => {
    const top = Fs.mkdtempSync(Path.join(Os.tmpdir(), "object-store-"))
    const root = Path.join(top, "root")
    const docs = Path.join(root, "docs")
    Fs.mkdirSync(Path.join(docs, "sub"), { recursive: true })
    Fs.mkdirSync(Path.join(root, "other"))
    Fs.writeFileSync(Path.join(top, "secret.txt"), "outside the root")
    Fs.writeFileSync(Path.join(root, "other", "x.txt"), "another bucket")
    Fs.writeFileSync(Path.join(docs, "a.txt"), "alpha")
    Fs.writeFileSync(Path.join(docs, "..dots.txt"), "dots")
    Fs.writeFileSync(Path.join(docs, "sub", "b.md"), "# beta")
    Fs.writeFileSync(Path.join(docs, "big.txt"), "x".repeat(2000))
    Fs.symlinkSync(Path.join(top, "secret.txt"), Path.join(docs, "out.txt"))
    Fs.symlinkSync(Path.join(root, "other"), Path.join(docs, "to-other"))
    Fs.symlinkSync(Path.join(docs, "a.txt"), Path.join(docs, "sub", "in.txt"))
    return { top, root }
  }),
  ({ top }) => Effect.sync(() => Fs.rmSync(top, { recursive: true, force: true }))
)

/** The reason a user reads: the error's message. */
const reason = <A, R>(effect: Effect.Effect<A, Error, R>) => Effect.map(Effect.flip(effect), (error) => error.message)

layer(Layer.merge(ObjectStoreFileSystem, NodePath.layer))("the object store", (it) => {
  it.scoped("lists a bucket's files by name and prefix; links that lead out are refused, not read", () =>
    Effect.gen(function*() {
      const { root } = yield* store
      const all = yield* listObjects(root, "docs")
      assert.deepStrictEqual(all.objects.map((object) => [object.name, object.size]), [
        ["..dots.txt", 4],
        ["a.txt", 5],
        ["big.txt", 2000],
        ["sub/b.md", 6],
        ["sub/in.txt", 5]
      ])
      assert.deepStrictEqual(all.refused.map((object) => object.name).sort(), ["out.txt", "to-other"])
      assert.isTrue(all.refused.every((object) => object.reason.includes("outside its bucket")))
      const sub = yield* listObjects(root, "docs", "sub/")
      assert.deepStrictEqual(sub.objects.map((object) => object.name), ["sub/b.md", "sub/in.txt"])
      assert.strictEqual(new TextDecoder().decode(yield* readObject(root, "docs", "sub/b.md", 100)), "# beta")
    }))

  it.scoped("path traversal in a bucket, a prefix or a name is refused before anything is read", () =>
    Effect.gen(function*() {
      const { root } = yield* store
      assert.include(yield* reason(listObjects(root, "..")), "Not a bucket name")
      assert.include(yield* reason(listObjects(root, "docs/../other")), "Not a bucket name")
      assert.include(yield* reason(listObjects(root, "docs", "../")), "Not an object prefix")
      assert.include(yield* reason(listObjects(root, "docs", "sub/../../")), "Not an object prefix")
      assert.include(yield* reason(listObjects(root, "docs", "/etc")), "Not an object prefix")
      assert.include(yield* reason(readObject(root, "docs", "../secret.txt", 100)), "Not an object name")
      assert.include(yield* reason(readObject(root, "docs", "sub//b.md", 100)), "Not an object name")
      assert.include(yield* reason(readObject(root, "docs", "/a.txt", 100)), "Not an object name")
      assert.strictEqual(new TextDecoder().decode(yield* readObject(root, "docs", "..dots.txt", 100)), "dots")
      assert.include(yield* reason(readObject(root, "docs", "out.txt", 100)), "leads outside its bucket")
      assert.include(yield* reason(readObject(root, "docs", "to-other/x.txt", 100)), "leads outside its bucket")
      assert.include(yield* reason(listObjects(root, "missing")), "is not a folder of the object store")
    }))

  it.scoped("a file over the size limit is refused with its size", () =>
    Effect.gen(function*() {
      const { root } = yield* store
      assert.strictEqual(yield* reason(readObject(root, "docs", "big.txt", 1000)), "Object big.txt is 2000 bytes, over the limit of 1000")
      assert.strictEqual((yield* readObject(root, "docs", "big.txt", 2000)).length, 2000)
    }))
})

describe("text extraction", () => {
  const bytes = (text: string) => new TextEncoder().encode(text)

  it("reads text files as they are; JSON once it parses; HTML as its visible text", () => {
    assert.deepStrictEqual(extractText("a.txt", bytes("\uFEFFplain")), Either.right("plain"))
    assert.deepStrictEqual(extractText("dir/A.MD", bytes("# title")), Either.right("# title"))
    assert.deepStrictEqual(extractText("t.csv", bytes("a,b\n1,2")), Either.right("a,b\n1,2"))
    assert.deepStrictEqual(extractText("d.json", bytes("{\"k\": \"v\"}")), Either.right("{\"k\": \"v\"}"))
    assert.deepStrictEqual(extractText("d.json", bytes("{nope")), Either.left("Not valid JSON: d.json"))
    assert.deepStrictEqual(extractText("empty.txt", new Uint8Array()), Either.right(""))
    assert.strictEqual(
      htmlText("<html><head><style>p{}</style><script>x()</script></head><body><h1>Title</h1><p>One &amp; two&nbsp;&#x41;</p><!-- no --></body></html>"),
      "Title\n\nOne & two A"
    )
  })

  it("HTML: entities that name no character stay as written; unclosed openers end the text, in linear time", () => {
    assert.strictEqual(htmlText("a &#99999999; b &#x110000; c &#xD800; d &bogus;"), "a &#99999999; b &#x110000; c &#xD800; d &bogus;")
    assert.strictEqual(htmlText("kept <!-- never closed <p>gone"), "kept")
    assert.strictEqual(htmlText("kept <script>x() <p>gone"), "kept")
    // pathological inputs a backtracking pattern would take quadratic time on
    assert.strictEqual(htmlText("<".repeat(200_000)), "<".repeat(200_000))
    assert.strictEqual(htmlText(`a${"<!--".repeat(50_000)}`), "a")
    assert.strictEqual(htmlText(`a${"<script ".repeat(50_000)}`), "a")
  })

  it("refuses binary, non-UTF-8 and other file types with a reason", () => {
    assert.deepStrictEqual(extractText("b.txt", new Uint8Array([104, 0, 105])), Either.left("A binary file, not text: b.txt"))
    assert.deepStrictEqual(extractText("l.txt", new Uint8Array([0xff, 0xfe, 0x41])), Either.left("Not UTF-8 text: l.txt"))
    assert.isTrue(Either.isLeft(extractText("image.png", bytes("x"))))
    assert.isTrue(Either.isLeft(extractText("README", bytes("x"))))
  })
})
