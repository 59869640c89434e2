/**
 * The object store (platform/ObjectStore.ts) through its service, on a real folder: objects written
 * from a stream and read as one, deleted, and every refusal a typed error with its fields. The
 * listing and whole reads the uploads use are in knowledge-bases-object-store.test.ts.
 */
import { Error as PlatformError, FileSystem } from "@effect/platform"
import { NodePath } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Chunk, ConfigProvider, Context, Data, Effect, Layer, Option, Stream } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { listObjects, ObjectStore, ObjectStoreFileSystem, readObject, streamObject } from "../src/platform/ObjectStore.js"

/** The store's folders: root/docs with files and links in and out, root/other, a file beside the buckets and one beside the root. */
class Folders extends Context.Tag("test/Folders")<Folders, { readonly top: string; readonly root: string }>() {}

const FoldersLive = Layer.scoped(
  Folders,
  Effect.acquireRelease(
    Effect.sync(() => {
      const top = Fs.mkdtempSync(Path.join(Os.tmpdir(), "object-store-"))
      const root = Path.join(top, "root")
      const docs = Path.join(root, "docs")
      Fs.mkdirSync(Path.join(docs, "sub"), { recursive: true })
      Fs.mkdirSync(Path.join(root, "other"))
      Fs.writeFileSync(Path.join(top, "secret.txt"), "outside the root")
      Fs.writeFileSync(Path.join(root, "loose.txt"), "not a bucket")
      Fs.writeFileSync(Path.join(docs, "a.txt"), "alpha")
      Fs.writeFileSync(Path.join(docs, "sub", "b.md"), "# beta")
      Fs.symlinkSync(Path.join(top, "secret.txt"), Path.join(docs, "out.txt"))
      Fs.symlinkSync(Path.join(root, "other"), Path.join(docs, "to-other"))
      Fs.symlinkSync(Path.join(docs, "a.txt"), Path.join(docs, "sub", "in.txt"))
      return { top, root }
    }),
    ({ top }) => Effect.sync(() => Fs.rmSync(top, { recursive: true, force: true }))
  )
)

/** `ObjectStore.Default` on the folders' root, whole reads up to 1,000 bytes. */
const StoreLive = Layer.unwrapEffect(Effect.map(Folders, ({ root }) =>
  ObjectStore.Default.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(
    new Map([["PLATFORM_OBJECT_STORE_ROOT", root], ["PLATFORM_OBJECT_MAX_BYTES", "1000"]])
  ))))))

const text = (value: string) => new TextEncoder().encode(value)
const joined = (chunks: Chunk.Chunk<Uint8Array>) => Buffer.concat(Chunk.toArray(chunks)).toString()

/** The files directly under the root: the buckets and the loose file, never a write's partial one. */
const rootEntries = Effect.map(Folders, ({ root }) => Fs.readdirSync(root).sort())

class Boom extends Data.TaggedError("Boom")<{ readonly after: number }> {}

/** The store's file system, but each opened file grows by a byte once it is measured. */
const GrowingFiles = Layer.effect(
  FileSystem.FileSystem,
  Effect.map(FileSystem.FileSystem, (fs): FileSystem.FileSystem => ({
    ...fs,
    open: (path, options) =>
      Effect.map(fs.open(path, options), (file) =>
        Object.defineProperty(Object.create(file), "stat", {
          get: () => Effect.tap(file.stat, () => Effect.sync(() => Fs.appendFileSync(path, "+")))
        }) as FileSystem.File)
  }))
).pipe(Layer.provide(ObjectStoreFileSystem), Layer.merge(NodePath.layer))

/** The store's file system, but no folder can be read. */
const UnreadableFolders = Layer.effect(
  FileSystem.FileSystem,
  Effect.map(FileSystem.FileSystem, (fs): FileSystem.FileSystem => ({
    ...fs,
    readDirectory: (path) =>
      Effect.fail(new PlatformError.SystemError({ reason: "PermissionDenied", module: "FileSystem", method: "readDirectory", pathOrDescriptor: path }))
  }))
).pipe(Layer.provide(ObjectStoreFileSystem), Layer.merge(NodePath.layer))

layer(Layer.provideMerge(StoreLive, FoldersLive))("the object store: streams, deletes and typed errors", (it) => {
  it.effect("writes an object from a stream and reads it back as one; a write replaces the object whole", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const written = yield* store.write("docs", "new/deep/c.txt", Stream.make(text("hello "), text("world")))
      assert.strictEqual(written.name, "new/deep/c.txt")
      assert.strictEqual(written.size, 11)
      assert.deepStrictEqual(yield* store.head("docs", "new/deep/c.txt"), written)
      assert.strictEqual(joined(yield* Stream.runCollect(store.stream("docs", "new/deep/c.txt"))), "hello world")
      assert.deepStrictEqual((yield* store.list("docs", "new/")).objects.map((object) => [object.name, object.size]), [["new/deep/c.txt", 11]])
      // the folders on the way were made; a write again replaces the bytes
      assert.strictEqual((yield* store.write("docs", "new/deep/c.txt", Stream.make(text("short")))).size, 5)
      assert.strictEqual(new TextDecoder().decode(yield* store.read("docs", "new/deep/c.txt")), "short")
      assert.deepStrictEqual(yield* rootEntries, ["docs", "loose.txt", "other"])
    }))

  it.effect("a large object streams in chunks of at most 64 KiB, past the limit of a whole read", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const bytes = Uint8Array.from({ length: 200_000 }, (_, i) => i % 251)
      yield* store.write("docs", "large.bin", Stream.fromIterable(Array.from({ length: 10 }, (_, i) => bytes.subarray(i * 20_000, (i + 1) * 20_000))))
      const chunks = yield* Stream.runCollect(store.stream("docs", "large.bin"))
      assert.deepStrictEqual(Chunk.toArray(chunks).map((chunk) => chunk.length), [65_536, 65_536, 65_536, 3_392])
      assert.isTrue(Buffer.concat(Chunk.toArray(chunks)).equals(bytes))
      const tooLarge = yield* Effect.flip(store.read("docs", "large.bin"))
      assert.strictEqual(tooLarge._tag, "ObjectTooLarge")
      assert.deepInclude(tooLarge, { bucket: "docs", key: "large.bin", size: 200_000, maxBytes: 1000 })
      assert.strictEqual(tooLarge.message, "Object large.bin is 200000 bytes, over the limit of 1000")
    }))

  it.effect("a stream that fails fails the write with its own error and leaves nothing", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const failing = Stream.concat(Stream.make(text("partial")), Stream.fail(new Boom({ after: 7 })))
      const error = yield* Effect.flip(store.write("docs", "failed.txt", failing))
      assert.strictEqual(error._tag, "Boom")
      assert.deepInclude(yield* Effect.flip(store.head("docs", "failed.txt")), { _tag: "ObjectNotFound", bucket: "docs", key: "failed.txt" })
      assert.deepStrictEqual(yield* rootEntries, ["docs", "loose.txt", "other"])
    }))

  it.effect("deletes an object; a link is deleted, not what it leads to; a folder or a link out is refused", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const { top } = yield* Folders
      yield* store.write("docs", "gone.txt", Stream.make(text("x")))
      yield* store.remove("docs", "gone.txt")
      assert.deepInclude(yield* Effect.flip(store.head("docs", "gone.txt")), { _tag: "ObjectNotFound", bucket: "docs", key: "gone.txt" })
      assert.deepInclude(yield* Effect.flip(store.remove("docs", "gone.txt")), { _tag: "ObjectNotFound", bucket: "docs", key: "gone.txt" })
      yield* store.write("docs", "linked/target.txt", Stream.make(text("kept")))
      const { root } = yield* Folders
      Fs.symlinkSync(Path.join(root, "docs", "linked", "target.txt"), Path.join(root, "docs", "linked", "link.txt"))
      yield* store.remove("docs", "linked/link.txt")
      assert.strictEqual(new TextDecoder().decode(yield* store.read("docs", "linked/target.txt")), "kept")
      assert.deepInclude(yield* Effect.flip(store.remove("docs", "sub")), { _tag: "NotAFile", bucket: "docs", key: "sub" })
      assert.deepInclude(yield* Effect.flip(store.remove("docs", "out.txt")), { _tag: "OutsideBucket", bucket: "docs", key: "out.txt" })
      assert.isTrue(Fs.existsSync(Path.join(top, "secret.txt")))
    }))

  it.effect("each refusal is a typed error with its fields, its message the reason a user reads", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const { root } = yield* Folders
      const nothing = Stream.make(text("x"))
      assert.deepInclude(yield* Effect.flip(store.list("..")), { _tag: "InvalidKey", kind: "bucket", key: ".." })
      assert.deepInclude(yield* Effect.flip(store.list("docs", "sub/../../")), { _tag: "InvalidKey", kind: "prefix", key: "sub/../../" })
      const name = yield* Effect.flip(store.read("docs", "sub//b.md"))
      assert.deepInclude(name, { _tag: "InvalidKey", kind: "object", key: "sub//b.md" })
      assert.strictEqual(name.message, "Not an object name: \"sub//b.md\"")
      assert.deepInclude(yield* Effect.flip(store.write("docs", "../escape.txt", nothing)), { _tag: "InvalidKey", kind: "object", key: "../escape.txt" })
      const long = "x".repeat(513)
      assert.deepInclude(yield* Effect.flip(store.write("docs", long, nothing)), { _tag: "ObjectNameTooLong", key: long, maxLength: 512 })
      const missing = yield* Effect.flip(store.list("missing"))
      assert.deepInclude(missing, { _tag: "BucketNotFound", bucket: "missing" })
      assert.strictEqual(missing.message, "Bucket missing is not a folder of the object store")
      assert.deepInclude(yield* Effect.flip(store.write("loose.txt", "a.txt", nothing)), { _tag: "BucketNotFound", bucket: "loose.txt" })
      assert.deepInclude(yield* Effect.flip(store.read("docs", "nope.txt")), { _tag: "ObjectNotFound", bucket: "docs", key: "nope.txt" })
      assert.deepInclude(yield* Effect.flip(Stream.runDrain(store.stream("docs", "nope.txt"))), { _tag: "ObjectNotFound", bucket: "docs", key: "nope.txt" })
      assert.deepInclude(yield* Effect.flip(store.read("docs", "out.txt")), { _tag: "OutsideBucket", bucket: "docs", key: "out.txt" })
      assert.deepInclude(yield* Effect.flip(Stream.runDrain(store.stream("docs", "out.txt"))), { _tag: "OutsideBucket", bucket: "docs", key: "out.txt" })
      // a folder on the way that is a link out: nothing made there
      assert.deepInclude(yield* Effect.flip(store.write("docs", "to-other/new.txt", nothing)), { _tag: "OutsideBucket", bucket: "docs", key: "to-other/new.txt" })
      assert.deepStrictEqual(Fs.readdirSync(Path.join(root, "other")), [])
      assert.deepInclude(yield* Effect.flip(store.read("docs", "sub")), { _tag: "NotAFile", bucket: "docs", key: "sub" })
      assert.deepInclude(yield* Effect.flip(store.write("docs", "sub", nothing)), { _tag: "NotAFile", bucket: "docs", key: "sub" })
      // a file where a folder must be: the write fails where the file system does, and leaves nothing
      const io = yield* Effect.flip(store.write("docs", "a.txt/x", nothing))
      assert.deepInclude(io, { _tag: "ObjectStoreIoError", operation: "write", subject: "object", target: "a.txt/x" })
      assert.strictEqual(io._tag === "ObjectStoreIoError" && PlatformError.isPlatformError(io.cause) ? io.cause._tag : undefined, "SystemError")
      assert.strictEqual(io.message, "Object a.txt/x cannot be written")
      assert.deepStrictEqual(yield* rootEntries, ["docs", "loose.txt", "other"])
    }))

  it.effect("an object that grows while it is streamed fails the stream", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const { root } = yield* Folders
      yield* store.write("docs", "growing.bin", Stream.make(new Uint8Array(100_000)))
      const error = yield* Effect.scoped(Effect.gen(function*() {
        const pull = yield* Stream.toPull(store.stream("docs", "growing.bin"))
        assert.strictEqual(Chunk.reduce(yield* pull, 0, (n, chunk) => n + chunk.length), 65_536)
        Fs.appendFileSync(Path.join(root, "docs", "growing.bin"), "more")
        for (;;) yield* pull
      })).pipe(Effect.flip)
      assert.isTrue(Option.isSome(error))
      assert.deepInclude(Option.getOrThrow(error), { _tag: "ObjectChanged", bucket: "docs", key: "growing.bin" })
    }))

  it.effect("a file that grows while it is read whole is refused; a folder that cannot be read fails the listing", () =>
    Effect.gen(function*() {
      const { root } = yield* Folders
      const changed = yield* Effect.flip(Effect.provide(readObject(root, "docs", "a.txt", 1000), GrowingFiles))
      assert.deepInclude(changed, { _tag: "ObjectChanged", bucket: "docs", key: "a.txt" })
      assert.strictEqual(changed.message, "Object a.txt changed while it was read")
      const streamed = yield* Effect.flip(Effect.provide(Stream.runDrain(streamObject(root, "docs", "sub/b.md")), GrowingFiles))
      assert.deepInclude(streamed, { _tag: "ObjectChanged", bucket: "docs", key: "sub/b.md" })
      const unreadable = yield* Effect.flip(Effect.provide(listObjects(root, "docs"), UnreadableFolders))
      assert.deepInclude(unreadable, { _tag: "ObjectStoreIoError", operation: "read", subject: "folder", target: "docs" })
      assert.strictEqual(unreadable.message, "Folder docs cannot be read")
    }))

  it.effect("the store's own buckets: made at their first write under .platform, which no bucket name a user gives reaches", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const { root } = yield* Folders
      const own = store.own("datasets")
      const written = yield* own.write("d1", Stream.make(text("rows")))
      assert.deepStrictEqual([written.name, written.size], ["d1", 4])
      assert.strictEqual(Fs.readFileSync(Path.join(root, ".platform", "datasets", "d1"), "utf8"), "rows")
      assert.strictEqual(joined(yield* Stream.runCollect(own.stream("d1"))), "rows")
      assert.strictEqual((yield* own.head("d1")).size, 4)
      // a bucket name starting with "." is the store's own: refused wherever a user names one
      for (const bucket of [".platform", ".hidden"]) {
        const refused = yield* Effect.flip(store.list(bucket))
        assert.deepInclude(refused, { _tag: "InvalidKey", kind: "bucket", key: bucket })
        assert.strictEqual(refused.message, `Not a bucket name: "${bucket}" (names starting with "." are the store's own)`)
      }
      yield* own.remove("d1")
      assert.deepInclude(yield* Effect.flip(own.head("d1")), { _tag: "ObjectNotFound", key: "d1" })
      Fs.rmSync(Path.join(root, ".platform"), { recursive: true })
    }))
})
