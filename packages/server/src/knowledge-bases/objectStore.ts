/**
 * The local object store an `OBJECT_STORE` data source reads (docs/knowledge-bases.md "The object
 * store"): a root folder; a bucket is a folder directly under it, an object a file under the
 * bucket, named by its path from the bucket ('/'-separated); a prefix selects the objects whose
 * names start with it. Nothing outside the bucket is read: a bucket or prefix with `..`, `.`, a
 * backslash or NUL is refused before any file is touched, and every file is read through its real
 * path, which must lie inside the bucket's (a link that leads out is refused, and listed as such).
 *
 * Each walk and each read is one promise of `node:fs/promises` (one step of the fiber that runs
 * it): in the workflow engine's scheduler, a step per file-system call cost a listing a
 * millisecond a file.
 */
import { Data, Effect } from "effect"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { ObjectMaxBytes, ObjectStoreRoot } from "../config.js"

/** An object of a bucket: its name, size and last change. */
export interface StoredObject {
  readonly name: string
  readonly size: number
  readonly modified_ms: number
}

/** A file of a bucket that is not read, and why. */
export interface RefusedObject {
  readonly name: string
  readonly reason: string
}

/** Why a bucket or an object could not be read. */
export class ObjectStoreError extends Data.TaggedError("ObjectStoreError")<{ readonly reason: string }> {}

const unsafe = (segment: string) => segment === ".." || segment === "." || segment.includes("\\") || segment.includes("\0")

/** Why `bucket` is not a bucket's name (one folder name), if it is not. */
export const bucketProblem = (bucket: string): string | undefined =>
  bucket === "" || bucket.includes("/") || unsafe(bucket) ? `Not a bucket name: ${JSON.stringify(bucket)} (one folder name, no "/", "." or "..")` : undefined

/** Why `prefix` is not an object-name prefix (relative, no `.` or `..` segment), if it is not. */
export const prefixProblem = (prefix: string): string | undefined =>
  prefix.startsWith("/") || prefix.split("/").some((segment, i, all) => unsafe(segment) || (segment === "" && i < all.length - 1 && i > 0))
    ? `Not an object prefix: ${JSON.stringify(prefix)} (a relative path without "." or ".." segments)`
    : undefined

/** Why an object store call failed: the reason a user reads. */
class Refused extends Error {}

const refuse = (reason: string): never => {
  throw new Refused(reason)
}

/** `run` as an effect: its refusals are `ObjectStoreError`s with their reason, any other error one with `otherwise`. */
const attempt = <A>(run: () => Promise<A>, otherwise: string) =>
  Effect.tryPromise({
    try: run,
    catch: (error) => new ObjectStoreError({ reason: error instanceof Refused ? error.message : otherwise })
  })

const inside = (folder: string, file: string) => {
  const relative = Path.relative(folder, file)
  return relative !== "" && relative !== ".." && !relative.startsWith(`..${Path.sep}`) && !Path.isAbsolute(relative)
}

/** The real path of bucket `bucket` under `root`; refused when the bucket is not a folder there. */
const bucketPath = async (root: string, bucket: string) => {
  const problem = bucketProblem(bucket)
  if (problem !== undefined) refuse(problem)
  const notOne = `Bucket ${bucket} is not a folder of the object store`
  const real = await Fs.realpath(Path.join(root, bucket)).catch(() => refuse(notOne))
  const realRoot = await Fs.realpath(root).catch(() => refuse("The object store's root folder is not there"))
  const info = await Fs.stat(real).catch(() => refuse(`Bucket ${bucket} cannot be read`))
  if (!info.isDirectory() || !inside(realRoot, real)) refuse(notOne)
  return real
}

/** The longest object name read (a name becomes an artifact's indexed URI). */
const maxNameLength = 512

/** Why `name` is not an object's name (segments neither empty, `.` nor `..`, no backslash or NUL; at most 512 characters), if it is not. */
const nameProblem = (name: string): string | undefined =>
  name.split("/").some((segment) => segment === "" || unsafe(segment))
    ? `Not an object name: ${JSON.stringify(name)}`
    : name.length > maxNameLength
    ? `An object name over ${maxNameLength} characters: ${JSON.stringify(name.slice(0, 64))}…`
    : undefined

/**
 * The objects of `bucket` whose names start with `prefix`, by name, and the files there that are
 * not read (a link leading out of the bucket, anything not a file). Fails when the bucket is not
 * a folder of the store, or the bucket or prefix is unsafe.
 */
export const listObjects = (root: string, bucket: string, prefix = "") =>
  attempt(async () => {
    const problem = prefixProblem(prefix)
    if (problem !== undefined) refuse(problem)
    const real = await bucketPath(root, bucket)
    const objects: Array<StoredObject> = []
    const refused: Array<RefusedObject> = []
    // a walk of real folders only: a link to a folder is not followed (one leading out is refused;
    // one inside would list what the walk lists anyway, or loop)
    const walk = async (folder: string, name: string): Promise<void> => {
      const entries = await Fs.readdir(folder, { withFileTypes: true }).catch(() => refuse(`Folder ${name || bucket} cannot be read`))
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        const entryName = name === "" ? entry.name : `${name}/${entry.name}`
        if (nameProblem(entryName) !== undefined) {
          // listed under a name that fits (a refused name becomes an artifact's too)
          const shown = entryName.length > maxNameLength ? `${entryName.slice(0, maxNameLength - 1)}…` : entryName
          refused.push({ name: shown, reason: `A file name this store cannot address: ${JSON.stringify(shown)}` })
          continue
        }
        // a folder that cannot hold a name starting with the prefix is not walked
        if (!entryName.startsWith(prefix) && !prefix.startsWith(`${entryName}/`)) continue
        const full = Path.join(folder, entry.name)
        if (entry.isDirectory()) {
          await walk(full, entryName)
          continue
        }
        // a link: where it leads, which must be inside the bucket
        let target = full
        if (entry.isSymbolicLink()) {
          const resolved = await Fs.realpath(full).catch(() => undefined)
          if (resolved === undefined) {
            refused.push({ name: entryName, reason: `Object ${entryName} is a link to nothing` })
            continue
          }
          if (!inside(real, resolved)) {
            refused.push({ name: entryName, reason: `Object ${entryName} leads outside its bucket` })
            continue
          }
          target = resolved
        }
        const info = await Fs.stat(target).catch(() => undefined)
        if (info === undefined) refused.push({ name: entryName, reason: `Object ${entryName} cannot be read` })
        else if (info.isDirectory()) continue
        else if (!info.isFile()) refused.push({ name: entryName, reason: `Object ${entryName} is not a file` })
        else if (entryName.startsWith(prefix)) objects.push({ name: entryName, size: info.size, modified_ms: info.mtimeMs })
      }
    }
    await walk(real, "")
    return { objects, refused }
  }, `Bucket ${bucket} cannot be read`)

/**
 * Object `name` of the bucket whose real path is `real`, if it is at most `maxBytes` long: read
 * from the file opened at its real path (which must lie inside the bucket), never more than one
 * byte past the size it measured (a file that grew since, or a device, is refused).
 */
const readWithin = async (real: string, name: string, maxBytes: number) => {
  const problem = nameProblem(name)
  if (problem !== undefined) refuse(problem)
  const file = await Fs.realpath(Path.join(real, ...name.split("/"))).catch(() => refuse(`Object ${name} is not there`))
  if (!inside(real, file)) refuse(`Object ${name} leads outside its bucket`)
  const handle = await Fs.open(file, "r").catch(() => refuse(`Object ${name} cannot be read`))
  try {
    const info = await handle.stat()
    if (!info.isFile()) refuse(`Object ${name} is not a file`)
    if (info.size > maxBytes) refuse(`Object ${name} is ${info.size} bytes, over the limit of ${maxBytes}`)
    const bytes = new Uint8Array(info.size + 1)
    let read = 0
    for (;;) {
      const { bytesRead } = await handle.read(bytes, read, bytes.length - read, read)
      if (bytesRead === 0) break
      read += bytesRead
      if (read > info.size) refuse(`Object ${name} changed while it was read`)
    }
    return bytes.subarray(0, read)
  } finally {
    await handle.close()
  }
}

/** The bytes of object `name` of `bucket`, if it is at most `maxBytes` long (`readWithin`). */
export const readObject = (root: string, bucket: string, name: string, maxBytes: number) =>
  attempt(async () => readWithin(await bucketPath(root, bucket), name, maxBytes), `Object ${name} cannot be read`)

/**
 * The bytes of each object of `names` of `bucket` (`readObject`), or why it cannot be read; the
 * bucket resolved once. Fails when the bucket cannot be read at all. The files are read together
 * (each read is a few calls on libuv's threads, where one after the other left the event loop
 * idle about half a millisecond a file); the caller bounds how many (an ingestion batch: 16).
 */
export const readObjects = (root: string, bucket: string, names: ReadonlyArray<string>, maxBytes: number) =>
  Effect.flatMap(attempt(() => bucketPath(root, bucket), `Bucket ${bucket} cannot be read`), (real) =>
    Effect.forEach(names, (name) => Effect.either(attempt(() => readWithin(real, name, maxBytes), `Object ${name} cannot be read`)), {
      concurrency: "unbounded"
    }))

/**
 * The object store of the server (`PLATFORM_OBJECT_STORE_ROOT`, files up to
 * `PLATFORM_OBJECT_MAX_BYTES`) on the machine's file system: what uploads and a data source's
 * verify read.
 */
export class ObjectStore extends Effect.Service<ObjectStore>()("@platform-kit/server/ObjectStore", {
  effect: Effect.gen(function*() {
    const root = yield* ObjectStoreRoot
    const maxBytes = yield* ObjectMaxBytes
    return {
      root,
      maxBytes,
      list: (bucket: string, prefix: string) => listObjects(root, bucket, prefix),
      read: (bucket: string, name: string) => readObject(root, bucket, name, maxBytes),
      readAll: (bucket: string, names: ReadonlyArray<string>) => readObjects(root, bucket, names, maxBytes)
    } as const
  }).pipe(Effect.orDie)
}) {}
