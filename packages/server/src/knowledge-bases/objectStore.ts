/**
 * The local object store an `OBJECT_STORE` data source reads (docs/knowledge-bases.md "The object
 * store"): a root folder; a bucket is a folder directly under it, an object a file under the
 * bucket, named by its path from the bucket ('/'-separated); a prefix selects the objects whose
 * names start with it. Nothing outside the bucket is read: a bucket or prefix with `..`, `.`, a
 * backslash or NUL is refused before any file is touched, and every file is read through its real
 * path, which must lie inside the bucket's (a link that leads out is refused, and listed as such).
 */
import { FileSystem, Path } from "@effect/platform"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { Data, Effect, Layer } from "effect"
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

const failWith = (reason: string) => Effect.fail(new ObjectStoreError({ reason }))

/** The real path of bucket `bucket` under `root`; fails when the bucket is not a folder there. */
const bucketPath = (root: string, bucket: string) =>
  Effect.gen(function*() {
    const problem = bucketProblem(bucket)
    if (problem !== undefined) return yield* failWith(problem)
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const real = yield* fs.realPath(path.join(root, bucket)).pipe(
      Effect.catchAll(() => failWith(`Bucket ${bucket} is not a folder of the object store`))
    )
    const realRoot = yield* fs.realPath(root).pipe(Effect.catchAll(() => failWith("The object store's root folder is not there")))
    const info = yield* fs.stat(real).pipe(Effect.catchAll(() => failWith(`Bucket ${bucket} cannot be read`)))
    if (info.type !== "Directory" || !inside(path, realRoot, real)) return yield* failWith(`Bucket ${bucket} is not a folder of the object store`)
    return real
  })

const inside = (path: Path.Path, folder: string, file: string) => {
  const relative = path.relative(folder, file)
  return relative !== "" && relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative)
}

/** Why `name` is not an object's name (segments neither empty, `.` nor `..`, no backslash or NUL), if it is not. */
const nameProblem = (name: string): string | undefined =>
  name.split("/").some((segment) => segment === "" || unsafe(segment)) ? `Not an object name: ${JSON.stringify(name)}` : undefined

/** The file of object `name` of the bucket at `real`, once its real path is known to lie inside. */
const objectPath = (real: string, name: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const problem = nameProblem(name)
    if (problem !== undefined) return yield* failWith(problem)
    const file = yield* fs.realPath(path.join(real, ...name.split("/"))).pipe(Effect.catchAll(() => failWith(`Object ${name} is not there`)))
    if (!inside(path, real, file)) return yield* failWith(`Object ${name} leads outside its bucket`)
    const info = yield* fs.stat(file).pipe(Effect.catchAll(() => failWith(`Object ${name} cannot be read`)))
    if (info.type !== "File") return yield* failWith(`Object ${name} is not a file`)
    return { file, size: Number(info.size), modified_ms: info.mtime._tag === "Some" ? info.mtime.value.getTime() : 0 }
  })

/**
 * The objects of `bucket` whose names start with `prefix`, by name, and the files there that are
 * not read (a link leading out of the bucket, anything not a file). Fails when the bucket is not
 * a folder of the store, or the bucket or prefix is unsafe.
 */
export const listObjects = (root: string, bucket: string, prefix = "") =>
  Effect.gen(function*() {
    const problem = prefixProblem(prefix)
    if (problem !== undefined) return yield* failWith(problem)
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const real = yield* bucketPath(root, bucket)
    const objects: Array<StoredObject> = []
    const refused: Array<RefusedObject> = []
    // a walk of real folders only: a link to a folder is not followed (one leading out is refused;
    // one inside would list what the walk lists anyway, or loop)
    const walk = (folder: string, name: string): Effect.Effect<void, ObjectStoreError> =>
      Effect.gen(function*() {
        const entries = yield* fs.readDirectory(folder).pipe(Effect.catchAll(() => failWith(`Folder ${name || bucket} cannot be read`)))
        for (const entry of entries.sort()) {
          const entryName = name === "" ? entry : `${name}/${entry}`
          if (nameProblem(entryName) !== undefined) {
            refused.push({ name: entryName, reason: `A file name this store cannot address: ${JSON.stringify(entryName)}` })
            continue
          }
          // a folder that cannot hold a name starting with the prefix is not walked
          if (!entryName.startsWith(prefix) && !prefix.startsWith(`${entryName}/`)) continue
          const full = path.join(folder, entry)
          const target = yield* Effect.option(fs.realPath(full))
          if (target._tag === "None") {
            refused.push({ name: entryName, reason: `Object ${entryName} is a link to nothing` })
            continue
          }
          if (!inside(path, real, target.value)) {
            refused.push({ name: entryName, reason: `Object ${entryName} leads outside its bucket` })
            continue
          }
          const info = yield* Effect.option(fs.stat(target.value))
          if (info._tag === "None") refused.push({ name: entryName, reason: `Object ${entryName} cannot be read` })
          else if (info.value.type === "Directory") {
            if (target.value === full) yield* walk(full, entryName)
          } else if (info.value.type !== "File") refused.push({ name: entryName, reason: `Object ${entryName} is not a file` })
          else if (entryName.startsWith(prefix)) {
            objects.push({
              name: entryName,
              size: Number(info.value.size),
              modified_ms: info.value.mtime._tag === "Some" ? info.value.mtime.value.getTime() : 0
            })
          }
        }
      })
    yield* walk(real, "")
    return { objects, refused }
  })

/**
 * The bytes of object `name` of `bucket`, if it is at most `maxBytes` long: read from the file
 * opened at its real path, never more than one byte past the size it measured (a file that grew
 * since, or a device, is refused).
 */
export const readObject = (root: string, bucket: string, name: string, maxBytes: number) =>
  Effect.flatMap(bucketPath(root, bucket), (real) => readObjectOf(real, name, maxBytes))

/** Object `name` of the bucket whose real path is `real` (`readObject`, the bucket resolved once). */
const readObjectOf = (real: string, name: string, maxBytes: number) =>
  Effect.gen(function*() {
    const problem = nameProblem(name)
    if (problem !== undefined) return yield* failWith(problem)
    const fs = yield* FileSystem.FileSystem
    const found = yield* objectPath(real, name)
    if (found.size > maxBytes) return yield* failWith(`Object ${name} is ${found.size} bytes, over the limit of ${maxBytes}`)
    // a byte more than it measured: a file that grew since is told, not read in part
    const read = yield* Effect.scoped(
      Effect.flatMap(fs.open(found.file, { flag: "r" }), (file) => file.readAlloc(found.size + 1))
    ).pipe(Effect.catchAll(() => failWith(`Object ${name} cannot be read`)))
    const bytes = read._tag === "Some" ? read.value : new Uint8Array()
    if (bytes.length > found.size) return yield* failWith(`Object ${name} changed while it was read`)
    return bytes
  })

/**
 * The bytes of each object of `names` of `bucket` (`readObject`), or why it cannot be read; the
 * bucket resolved once. Fails when the bucket cannot be read at all.
 */
export const readObjects = (root: string, bucket: string, names: ReadonlyArray<string>, maxBytes: number) =>
  Effect.flatMap(bucketPath(root, bucket), (real) => Effect.forEach(names, (name) => Effect.either(readObjectOf(real, name, maxBytes))))

/**
 * The object store of the server (`PLATFORM_OBJECT_STORE_ROOT`, files up to
 * `PLATFORM_OBJECT_MAX_BYTES`) on the machine's file system: what uploads and a data source's
 * verify read.
 */
export class ObjectStore extends Effect.Service<ObjectStore>()("@platform-kit/server/ObjectStore", {
  scoped: Effect.gen(function*() {
    const root = yield* ObjectStoreRoot
    const maxBytes = yield* ObjectMaxBytes
    const files = yield* Layer.build(Layer.merge(NodeFileSystem.layer, NodePath.layer))
    return {
      root,
      maxBytes,
      list: (bucket: string, prefix: string) => Effect.provide(listObjects(root, bucket, prefix), files),
      read: (bucket: string, name: string) => Effect.provide(readObject(root, bucket, name, maxBytes), files),
      readAll: (bucket: string, names: ReadonlyArray<string>) => Effect.provide(readObjects(root, bucket, names, maxBytes), files)
    } as const
  }).pipe(Effect.orDie)
}) {}
