/**
 * The object store's S3 backend (platform/S3ObjectStore.ts) through the same service as the folder
 * (platform-object-store.test.ts), against an S3-compatible server on 127.0.0.1 (support/s3.ts)
 * that checks every signature: streamed writes (one PUT, or a multipart upload past a part),
 * reads, listings, moves and deletes, a failed write that leaves nothing, and the same typed
 * refusals. The server's families on this backend: object-store-s3-server.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { Chunk, ConfigProvider, Context, Data, Effect, Layer, Stream } from "effect"
import * as Crypto from "node:crypto"
import { ObjectStore } from "../src/platform/ObjectStore.js"
import { S3Location } from "../src/platform/S3ObjectStore.js"
import { call, listAll } from "../src/platform/S3Client.js"
import { s3Server, s3StoreEnv } from "./support/s3.js"

/** The S3 server's endpoint, with buckets `kit` (the store's) and `docs` (a user's). */
class Endpoint extends Context.Tag("test/Endpoint")<Endpoint, string>() {}
const EndpointLive = Layer.scoped(Endpoint, s3Server(["kit", "docs"]))

/** The settings of the store: bucket `kit`, prefix `store` (and more, if given). */
const settings = (endpoint: string, more: Record<string, string> = {}) =>
  ConfigProvider.fromMap(new Map(Object.entries({ ...s3StoreEnv(endpoint, "kit", "store"), PLATFORM_OBJECT_MAX_BYTES: "1000", ...more })))

const StoreLive = Layer.unwrapEffect(Effect.map(Endpoint, (endpoint) =>
  ObjectStore.Default.pipe(Layer.provide(Layer.setConfigProvider(settings(endpoint))))))

/** Every key of `bucket` on the S3 server, as the service lists them (nothing hidden). */
const keys = (bucket: string) =>
  Effect.flatMap(Endpoint, (endpoint) =>
    Effect.flatMap(Effect.withConfigProvider(S3Location(s3StoreEnv(endpoint, "kit").PLATFORM_OBJECT_STORE_URL), settings(endpoint)), ({ target }) =>
      Effect.promise(() => listAll(target, bucket, "")).pipe(Effect.map((listed) => listed.map((one) => one.key)))))

const text = (value: string) => new TextEncoder().encode(value)
const joined = (chunks: Chunk.Chunk<Uint8Array>) => Buffer.concat(Chunk.toArray(chunks)).toString()

class Boom extends Data.TaggedError("Boom")<{ readonly after: number }> {}

layer(Layer.provideMerge(StoreLive, EndpointLive))("the object store on S3", (it) => {
  it.effect("writes an object from a stream and reads it back as one; a write replaces it whole; a user's bucket is a bucket of the service", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const written = yield* store.write("docs", "new/deep/c.txt", Stream.make(text("hello "), text("world")))
      assert.deepStrictEqual([written.name, written.size], ["new/deep/c.txt", 11])
      assert.deepStrictEqual(yield* store.head("docs", "new/deep/c.txt"), written)
      assert.strictEqual(joined(yield* Stream.runCollect(store.stream("docs", "new/deep/c.txt"))), "hello world")
      assert.deepStrictEqual((yield* store.list("docs", "new/")).objects.map((object) => [object.name, object.size]), [["new/deep/c.txt", 11]])
      assert.strictEqual((yield* store.write("docs", "new/deep/c.txt", Stream.make(text("short")))).size, 5)
      assert.strictEqual(new TextDecoder().decode(yield* store.read("docs", "new/deep/c.txt")), "short")
      assert.deepStrictEqual(yield* keys("docs"), ["new/deep/c.txt"])
      yield* store.remove("docs", "new/deep/c.txt")
    }))

  it.effect("an object past a part (8 MiB) goes up as a multipart upload and streams back exactly; a whole read past the limit is refused", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const bytes = Crypto.randomBytes(9 * 1024 * 1024 + 123)
      const pieces = Array.from({ length: 37 }, (_, i) => bytes.subarray(i * 256 * 1024, (i + 1) * 256 * 1024)).filter((piece) => piece.length > 0)
      const written = yield* store.write("docs", "large.bin", Stream.fromIterable(pieces))
      assert.strictEqual(written.size, bytes.length)
      const back = Buffer.concat(Chunk.toArray(yield* Stream.runCollect(store.stream("docs", "large.bin"))))
      assert.isTrue(back.equals(bytes))
      const tooLarge = yield* Effect.flip(store.read("docs", "large.bin"))
      assert.deepInclude(tooLarge, { _tag: "ObjectTooLarge", bucket: "docs", key: "large.bin", size: bytes.length, maxBytes: 1000 })
      yield* store.remove("docs", "large.bin")
    }))

  it.effect("a stream that fails fails the write with its own error and leaves nothing, before or after a part went up", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      for (const before of [7, 9 * 1024 * 1024]) {
        const failing = Stream.concat(Stream.make(new Uint8Array(before)), Stream.fail(new Boom({ after: before })))
        const error = yield* Effect.flip(store.write("docs", "failed.bin", failing))
        assert.deepInclude(error, { _tag: "Boom", after: before })
        assert.deepInclude(yield* Effect.flip(store.head("docs", "failed.bin")), { _tag: "ObjectNotFound", bucket: "docs", key: "failed.bin" })
      }
      assert.deepStrictEqual(yield* keys("docs"), [])
    }))

  it.effect("deletes an object; a missing one is ObjectNotFound; listing refuses keys this store cannot address", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      yield* store.write("docs", "gone.txt", Stream.make(text("x")))
      yield* store.remove("docs", "gone.txt")
      assert.deepInclude(yield* Effect.flip(store.head("docs", "gone.txt")), { _tag: "ObjectNotFound", bucket: "docs", key: "gone.txt" })
      assert.deepInclude(yield* Effect.flip(store.remove("docs", "gone.txt")), { _tag: "ObjectNotFound", bucket: "docs", key: "gone.txt" })
      // keys S3 allows and a folder store cannot hold: listed as refused, as the folder lists a file it cannot address
      const endpoint = yield* Endpoint
      const { target } = yield* Effect.withConfigProvider(S3Location(s3StoreEnv(endpoint, "kit").PLATFORM_OBJECT_STORE_URL), settings(endpoint))
      for (const key of ["back\\slash.txt", "ok.txt", "folder/"]) {
        yield* Effect.promise(() => call(target, { method: "PUT", bucket: "docs", key, body: key.endsWith("/") ? new Uint8Array() : text("x") }, "put"))
      }
      const listed = yield* store.list("docs")
      assert.deepStrictEqual(listed.objects.map((object) => object.name), ["ok.txt"])
      assert.deepStrictEqual(listed.refused.map((one) => one.name).sort(), ["back\\slash.txt"])
      for (const key of ["back\\slash.txt", "ok.txt", "folder/"]) {
        yield* Effect.promise(() => call(target, { method: "DELETE", bucket: "docs", key }, "delete"))
      }
    }))

  it.effect("each refusal is the folder's typed error; the store's own bucket and a missing one are BucketNotFound", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const nothing = Stream.make(text("x"))
      assert.deepInclude(yield* Effect.flip(store.list("..")), { _tag: "InvalidKey", kind: "bucket", key: ".." })
      assert.deepInclude(yield* Effect.flip(store.list(".platform")), { _tag: "InvalidKey", kind: "bucket", key: ".platform" })
      assert.deepInclude(yield* Effect.flip(store.list("docs", "sub/../../")), { _tag: "InvalidKey", kind: "prefix", key: "sub/../../" })
      assert.deepInclude(yield* Effect.flip(store.read("docs", "sub//b.md")), { _tag: "InvalidKey", kind: "object", key: "sub//b.md" })
      assert.deepInclude(yield* Effect.flip(store.write("docs", "../escape.txt", nothing)), { _tag: "InvalidKey", kind: "object", key: "../escape.txt" })
      const long = "x".repeat(513)
      assert.deepInclude(yield* Effect.flip(store.write("docs", long, nothing)), { _tag: "ObjectNameTooLong", key: long, maxLength: 512 })
      const missing = yield* Effect.flip(store.list("missing"))
      assert.deepInclude(missing, { _tag: "BucketNotFound", bucket: "missing" })
      assert.strictEqual(missing.message, "Bucket missing is not a bucket of the object store's S3 service")
      assert.deepInclude(yield* Effect.flip(store.write("missing", "a.txt", nothing)), { _tag: "BucketNotFound", bucket: "missing" })
      // the configured bucket holds every account's files: no user reads it
      const refusals = [
        Effect.flip(store.list("kit")),
        Effect.flip(store.read("kit", "store/.platform/files/x")),
        Effect.flip(store.write("kit", "x", nothing))
      ]
      for (const refused of refusals) assert.deepInclude(yield* refused, { _tag: "BucketNotFound", bucket: "kit" })
      assert.deepInclude(yield* Effect.flip(store.read("docs", "nope.txt")), { _tag: "ObjectNotFound", bucket: "docs", key: "nope.txt" })
      assert.deepInclude(yield* Effect.flip(Stream.runDrain(store.stream("docs", "nope.txt"))), { _tag: "ObjectNotFound", bucket: "docs", key: "nope.txt" })
      assert.deepStrictEqual(yield* keys("docs"), [])
    }))

  it.effect("the store's own buckets are prefixes of the configured bucket: write, stream, head, move, remove", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const own = store.own("datasets")
      const written = yield* own.write("incoming/d1", Stream.make(text("rows")))
      assert.deepStrictEqual([written.name, written.size], ["incoming/d1", 4])
      yield* own.move("incoming/d1", "d1")
      assert.deepStrictEqual(yield* keys("kit"), ["store/.platform/datasets/d1"])
      assert.strictEqual(joined(yield* Stream.runCollect(own.stream("d1"))), "rows")
      assert.strictEqual((yield* own.head("d1")).size, 4)
      assert.deepInclude(yield* Effect.flip(own.head("incoming/d1")), { _tag: "ObjectNotFound", key: "incoming/d1" })
      assert.deepInclude(yield* Effect.flip(own.move("incoming/d1", "d2")), { _tag: "ObjectNotFound", key: "incoming/d1" })
      yield* own.remove("d1")
      assert.deepStrictEqual(yield* keys("kit"), [])
    }))

  it.effect("a wrong secret is refused by the service: the write fails as an I/O error and nothing is stored", () =>
    Effect.gen(function*() {
      const endpoint = yield* Endpoint
      const wrong = yield* Effect.provide(ObjectStore, ObjectStore.Default.pipe(Layer.provide(Layer.setConfigProvider(settings(endpoint, { AWS_SECRET_ACCESS_KEY: "nope" })))))
      const error = yield* Effect.flip(wrong.write("docs", "x.txt", Stream.make(text("x"))))
      assert.deepInclude(error, { _tag: "ObjectStoreIoError", operation: "write", subject: "object", target: "x.txt" })
      assert.strictEqual(error.message, "Object x.txt cannot be written")
      // a refused HEAD (no body to read) and a refused GET fail as promptly
      assert.deepInclude(yield* Effect.flip(wrong.remove("docs", "x.txt")), { _tag: "ObjectStoreIoError", target: "x.txt" })
      assert.deepInclude(yield* Effect.flip(wrong.read("docs", "x.txt")), { _tag: "ObjectStoreIoError", operation: "read", target: "x.txt" })
      assert.deepStrictEqual(yield* keys("docs"), [])
    }))
})
