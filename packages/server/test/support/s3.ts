/**
 * An S3-compatible server for the tests (`@20minutes/s3rver`, a maintained fork of `s3rver`) on a
 * random port of 127.0.0.1, over a temporary folder removed when its scope closes; it checks
 * every request's SigV4 signature against its fixed credentials (`S3RVER`/`S3RVER`).
 */
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"

interface S3rver {
  run(): Promise<{ readonly port: number }>
  close(): Promise<void>
}
const S3rver = createRequire(import.meta.url)("@20minutes/s3rver") as new(options: object) => S3rver

/** The server's credentials, as the store reads them (`AWS_*`). */
export const s3Credentials = { AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER" }

/** The server with `buckets` made, in the scope: its endpoint (`http://127.0.0.1:<port>`). */
export const s3Server = (buckets: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const directory = yield* Effect.acquireRelease(
      Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "s3rver-"))),
      (folder) => Effect.sync(() => Fs.rmSync(folder, { recursive: true, force: true }))
    )
    const server = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory,
      configureBuckets: buckets.map((name) => ({ name }))
    })
    const { port } = yield* Effect.acquireRelease(
      Effect.promise(() => server.run()),
      () => Effect.promise(() => server.close())
    )
    return `http://127.0.0.1:${port}`
  })

/** The settings of a store on that server: `bucket` (made there) and `prefix`, with its credentials. */
export const s3StoreEnv = (endpoint: string, bucket: string, prefix = "") => ({
  PLATFORM_OBJECT_STORE_URL: `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1`,
  ...s3Credentials
})

/**
 * The suites of the folder store on the S3 backend (`vitest run --mode s3`): each suite's
 * `PLATFORM_OBJECT_STORE_ROOT` is served by an S3 server whose objects are that folder's files,
 * laid out as the folder backend lays them out: bucket `platform-kit` (the store's) is the root
 * itself, so the store's own objects land at `<root>/.platform/…` as on the folder; any other
 * bucket is a folder under the root, so the fixtures a suite writes there are a user's bucket.
 * The S3 server's own records (metadata, checksums, multipart parts) go to a folder beside it.
 * The server under test then reads and writes every byte through S3 calls, and the suite's
 * assertions on the folder read what those calls left.
 */
export const testObjectStore = process.env.PLATFORM_TEST_OBJECT_STORE === "s3" ? "s3" : "folder"

/** The store's bucket in `--mode s3`: the root folder itself. */
export const bridgeBucket = "platform-kit"

/** The S3 server over `root` (in the scope); answers the settings of a store on it. */
export const s3Bridge = (root: string) =>
  Effect.gen(function*() {
    const shadow = yield* Effect.acquireRelease(
      Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "s3rver-shadow-"))),
      (folder) => Effect.sync(() => Fs.rmSync(folder, { recursive: true, force: true }))
    )
    const require = createRequire(import.meta.url)
    const Base = require("@20minutes/s3rver/lib/stores/filesystem.js") as new(directory: string) => object
    const S3Object = require("@20minutes/s3rver/lib/models/object.js") as new(bucket: string, key: string, content: null, metadata: object) => object
    const bucketPath = (bucket: string) => bucket === bridgeBucket ? root : Path.join(root, bucket)
    /** Every file under `folder` (links followed to files; a link to nothing or to a folder skipped), by its path from it. */
    const files = (folder: string, name = ""): Array<string> =>
      Fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1)).flatMap((entry) => {
        const full = Path.join(folder, entry.name)
        const key = name === "" ? entry.name : `${name}/${entry.name}`
        if (entry.isDirectory()) return files(full, key)
        const info = Fs.statSync(full, { throwIfNoEntry: false })
        return info?.isFile() ? [key] : []
      })
    class FolderLayout extends (Base as new(directory: string) => any) {
      getBucketPath(bucket: string) {
        return bucketPath(bucket)
      }
      getResourcePath(bucket: string, key = "", resource: string) {
        if (resource === "object") return Path.join(bucketPath(bucket), ...key.split("/"))
        return Path.join(shadow, bucket, ...`${key}._S3rver_${resource}`.split("/"))
      }
      async getMetadata(bucket: string, key: string) {
        const objectPath = this.getResourcePath(bucket, key, "object")
        const stat = await Fs.promises.stat(objectPath)
        if (!stat.isFile()) throw Object.assign(new Error("not a file"), { code: "ENOENT" })
        const stored = await Fs.promises.readFile(this.getResourcePath(bucket, key, "metadata.json"), "utf8").then(JSON.parse, () => ({}))
        const md5 = Crypto.createHash("md5").update(await Fs.promises.readFile(objectPath)).digest("hex")
        return { ...stored, etag: JSON.stringify(md5), "last-modified": stat.mtime.toUTCString(), "content-length": stat.size }
      }
      async putMetadata(bucket: string, key: string, metadata: Record<string, unknown>) {
        const path = this.getResourcePath(bucket, key, "metadata.json")
        await Fs.promises.mkdir(Path.dirname(path), { recursive: true })
        const kept = Object.fromEntries(Object.entries(metadata ?? {}).filter(([name]) => name === "content-type" || name.startsWith("x-amz-meta-")))
        await Fs.promises.writeFile(path, JSON.stringify(kept))
      }
      async listObjects(bucket: string, options: { prefix?: string; maxKeys?: number; startAfter?: string }) {
        const { maxKeys = Infinity, prefix = "", startAfter = "" } = options
        const folder = bucketPath(bucket)
        const keys = (Fs.existsSync(folder) ? files(folder) : [])
          .filter((key) => key.startsWith(prefix) && key > startAfter && !(bucket === bridgeBucket && key.startsWith(".partial-")))
        const page = keys.slice(0, maxKeys === Infinity ? undefined : maxKeys)
        const objects = await Promise.all(page.map(async (key) => new S3Object(bucket, key, null, await this.getMetadata(bucket, key))))
        return { objects, commonPrefixes: [], isTruncated: page.length < keys.length }
      }
      async copyObject(fromBucket: string, fromKey: string, toBucket: string, toKey: string, metadata?: Record<string, unknown>) {
        const target = this.getResourcePath(toBucket, toKey, "object")
        await Fs.promises.mkdir(Path.dirname(target), { recursive: true })
        await Fs.promises.copyFile(this.getResourcePath(fromBucket, fromKey, "object"), target)
        await this.putMetadata(toBucket, toKey, metadata ?? {})
        return this.getMetadata(toBucket, toKey)
      }
      async deleteObject(bucket: string, key: string) {
        await Fs.promises.unlink(this.getResourcePath(bucket, key, "object")).catch(() => undefined)
        await Fs.promises.unlink(this.getResourcePath(bucket, key, "metadata.json")).catch(() => undefined)
      }
    }
    const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: shadow }) as S3rver & { store: object; context: { store: object } }
    server.store = server.context.store = new FolderLayout(root)
    const { port } = yield* Effect.acquireRelease(Effect.promise(() => server.run()), () => Effect.promise(() => server.close()))
    return s3StoreEnv(`http://127.0.0.1:${port}`, bridgeBucket)
  })

/** Why the store reads nothing of `bucket`, a bucket it does not have, on this pass's backend. */
export const missingBucket = (bucket: string) =>
  testObjectStore === "s3"
    ? `Bucket ${bucket} is not a bucket of the object store's S3 service`
    : `Bucket ${bucket} is not a folder of the object store`
