/**
 * The server's object store (docs/knowledge-bases.md "The object store"): the service
 * `ObjectStore` below, on this folder backend by default or on an S3-compatible service
 * (`PLATFORM_OBJECT_STORE_URL`: S3ObjectStore.ts, the same operations and errors). The folder: a root folder
 * (`PLATFORM_OBJECT_STORE_ROOT`); a bucket is a folder directly under it, an object a file under
 * the bucket, named by its path from the bucket ('/'-separated); a prefix selects the objects whose
 * names start with it. Nothing outside the bucket is touched: a bucket, prefix or name with `..`,
 * `.`, a backslash or NUL is refused before any file is, and every file is reached through its
 * real path, which must lie inside the bucket's (a link that leads out is refused, and listed as
 * such). Built on `@effect/platform`'s `FileSystem` and `Path`; every failure is one of the tagged
 * errors below, whose `message` is the reason a user reads.
 *
 * Every file-system call is a step of the fiber that makes it; in the workflow engine's scheduler
 * (engine/backgroundScheduler.ts) steps taken one after the other cost a listing about a
 * millisecond a file, so a listing looks at a folder's entries together and a batch's files are
 * read together.
 */
import { Error as PlatformError, FileSystem, Path } from "@effect/platform"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { type Either, Effect, Layer, Option, Schema, Stream } from "effect"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs/promises"
import { ObjectMaxBytes, ObjectStoreRoot, ObjectStoreUrl } from "../config.js"

/** An object of a bucket: its name, size and last change (whole milliseconds). */
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

/** The longest object name (a name becomes an artifact's indexed URI). */
export const maxNameLength = 512

/** A bucket, prefix or object name that could address something outside its bucket, or nothing. */
export class InvalidKey extends Schema.TaggedError<InvalidKey>()("InvalidKey", {
  kind: Schema.Literal("bucket", "prefix", "object"),
  key: Schema.String
}) {
  override get message() {
    const key = JSON.stringify(this.key)
    return this.kind === "bucket"
      ? `Not a bucket name: ${key} (${
        /^\.[^/]*$/.test(this.key) && !unsafe(this.key) ? "names starting with \".\" are the store's own" : "one folder name, no \"/\", \".\" or \"..\""
      })`
      : this.kind === "prefix"
      ? `Not an object prefix: ${key} (a relative path without "." or ".." segments)`
      : `Not an object name: ${key}`
  }
}

/** An object name over `maxLength` characters. */
export class ObjectNameTooLong extends Schema.TaggedError<ObjectNameTooLong>()("ObjectNameTooLong", {
  key: Schema.String,
  maxLength: Schema.Number
}) {
  override get message() {
    return `An object name over ${this.maxLength} characters: ${JSON.stringify(this.key.slice(0, 64))}…`
  }
}

/** A bucket that is not a folder directly under the root. */
export class BucketNotFound extends Schema.TaggedError<BucketNotFound>()("BucketNotFound", {
  bucket: Schema.String,
  /** On the S3 backend (S3ObjectStore.ts): a bucket the service does not have, or one not for users. */
  s3: Schema.optional(Schema.Boolean)
}) {
  override get message() {
    return this.s3 === true
      ? `Bucket ${this.bucket} is not a bucket of the object store's S3 service`
      : `Bucket ${this.bucket} is not a folder of the object store`
  }
}

/** An object (or a folder on its way) that is not there. */
export class ObjectNotFound extends Schema.TaggedError<ObjectNotFound>()("ObjectNotFound", {
  bucket: Schema.String,
  key: Schema.String
}) {
  override get message() {
    return `Object ${this.key} is not there`
  }
}

/** An object whose real path, through a link, lies outside its bucket. */
export class OutsideBucket extends Schema.TaggedError<OutsideBucket>()("OutsideBucket", {
  bucket: Schema.String,
  key: Schema.String
}) {
  override get message() {
    return `Object ${this.key} leads outside its bucket`
  }
}

/** An object name that names a folder, a device or anything else not a file. */
export class NotAFile extends Schema.TaggedError<NotAFile>()("NotAFile", { bucket: Schema.String, key: Schema.String }) {
  override get message() {
    return `Object ${this.key} is not a file`
  }
}

/** An object over the size a whole read takes. */
export class ObjectTooLarge extends Schema.TaggedError<ObjectTooLarge>()("ObjectTooLarge", {
  bucket: Schema.String,
  key: Schema.String,
  size: Schema.Number,
  maxBytes: Schema.Number
}) {
  override get message() {
    return `Object ${this.key} is ${this.size} bytes, over the limit of ${this.maxBytes}`
  }
}

/** An object whose size changed while it was read. */
export class ObjectChanged extends Schema.TaggedError<ObjectChanged>()("ObjectChanged", {
  bucket: Schema.String,
  key: Schema.String
}) {
  override get message() {
    return `Object ${this.key} changed while it was read`
  }
}

/**
 * A file-system call that failed: what it was doing, to what (`target`: the root's path, a
 * bucket's name, a folder's or an object's), and the `PlatformError` it failed with.
 */
export class ObjectStoreIoError extends Schema.TaggedError<ObjectStoreIoError>()("ObjectStoreIoError", {
  operation: Schema.Literal("read", "write", "delete"),
  subject: Schema.Literal("root", "bucket", "folder", "object"),
  target: Schema.String,
  cause: Schema.Defect
}) {
  override get message() {
    if (this.subject === "root") return "The object store's root folder is not there"
    const subject = this.subject === "bucket" ? "Bucket" : this.subject === "folder" ? "Folder" : "Object"
    const done = this.operation === "read" ? "read" : this.operation === "write" ? "written" : "deleted"
    return `${subject} ${this.target} cannot be ${done}`
  }
}

/** Every way an operation of the store fails; each one's `message` is the reason a user reads. */
export type ObjectStoreError =
  | InvalidKey
  | ObjectNameTooLong
  | BucketNotFound
  | ObjectNotFound
  | OutsideBucket
  | NotAFile
  | ObjectTooLarge
  | ObjectChanged
  | ObjectStoreIoError

/** What every operation uses. */
type Services = FileSystem.FileSystem | Path.Path

const ioError = (operation: ObjectStoreIoError["operation"], subject: ObjectStoreIoError["subject"], target: string) => (cause: unknown) =>
  new ObjectStoreIoError({ operation, subject, target, cause })

export const unsafe = (segment: string) => segment === ".." || segment === "." || segment.includes("\\") || segment.includes("\0")

/**
 * Why `bucket` is not a bucket's name (one folder name, not starting with `.`: those are the
 * store's own, its partial writes and `ownFolder`), if it is not.
 */
export const bucketProblem = (bucket: string) =>
  bucket === "" || bucket.includes("/") || bucket.startsWith(".") || unsafe(bucket)
    ? new InvalidKey({ kind: "bucket", key: bucket })
    : undefined

/**
 * The folder under the root that holds the server's own buckets (`ObjectStore.own`): what the
 * families write (training datasets' files). No bucket a user names reaches it (a bucket name
 * starting with `.` is refused), so a data source never reads an account's uploaded files.
 */
export const ownFolder = ".platform"

/** Why `prefix` is not an object-name prefix (relative, no `.` or `..` segment), if it is not. */
export const prefixProblem = (prefix: string) =>
  prefix.startsWith("/") || prefix.split("/").some((segment, i, all) => unsafe(segment) || (segment === "" && i < all.length - 1 && i > 0))
    ? new InvalidKey({ kind: "prefix", key: prefix })
    : undefined

/** Why `name` is not an object's name (segments neither empty, `.` nor `..`, no backslash or NUL; at most 512 characters), if it is not. */
export const nameProblem = (name: string) =>
  name.split("/").some((segment) => segment === "" || unsafe(segment))
    ? new InvalidKey({ kind: "object", key: name })
    : name.length > maxNameLength
    ? new ObjectNameTooLong({ key: name, maxLength: maxNameLength })
    : undefined

/** Whether `file` lies strictly inside `folder` (both real paths). */
const inside = (path: Path.Path, folder: string, file: string) => {
  const relative = path.relative(folder, file)
  return relative !== "" && relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative)
}

const storedObject = (name: string, info: FileSystem.File.Info): StoredObject => ({
  name,
  size: Number(info.size),
  modified_ms: Option.match(info.mtime, { onNone: () => 0, onSome: (date) => date.getTime() })
})

/** The real paths of the root and of bucket `bucket` under it; refused when the bucket is not a folder there. */
const bucketPath = (root: string, bucket: string) =>
  Effect.gen(function*() {
    const problem = bucketProblem(bucket)
    if (problem !== undefined) return yield* problem
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const real = yield* Effect.mapError(fs.realPath(path.join(root, bucket)), () => new BucketNotFound({ bucket }))
    const realRoot = yield* Effect.mapError(fs.realPath(root), ioError("read", "root", root))
    const info = yield* Effect.mapError(fs.stat(real), ioError("read", "bucket", bucket))
    if (info.type !== "Directory" || !inside(path, realRoot, real)) return yield* new BucketNotFound({ bucket })
    return { real, realRoot }
  })

/** The real path of object `name` of the bucket whose real path is `real`: it must be there and inside the bucket. */
const objectPath = (real: string, bucket: string, name: string) =>
  Effect.gen(function*() {
    const problem = nameProblem(name)
    if (problem !== undefined) return yield* problem
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = yield* Effect.mapError(fs.realPath(path.join(real, ...name.split("/"))), () => new ObjectNotFound({ bucket, key: name }))
    if (!inside(path, real, file)) return yield* new OutsideBucket({ bucket, key: name })
    return file
  })

/** Object `name` opened (in the scope) and measured: a file, or refused. */
const openObject = (real: string, bucket: string, name: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const file = yield* objectPath(real, bucket, name)
    const handle = yield* Effect.mapError(fs.open(file, { flag: "r" }), ioError("read", "object", name))
    const info = yield* Effect.mapError(handle.stat, ioError("read", "object", name))
    if (info.type !== "File") return yield* new NotAFile({ bucket, key: name })
    return { handle, info }
  })

/** A listing's verdict on one file: an object, or a file not read and why. */
type Listed = { readonly object: StoredObject } | { readonly refused: RefusedObject }

/** How many entries of a folder a listing looks at together. */
const listConcurrency = 16

/**
 * The objects of `bucket` whose names start with `prefix`, by name, and the files there that are
 * not read (a link leading out of the bucket, anything not a file). Fails when the bucket is not
 * a folder of the store, or the bucket or prefix is unsafe.
 */
export const listObjects = (root: string, bucket: string, prefix = "") =>
  Effect.gen(function*() {
    const problem = prefixProblem(prefix)
    if (problem !== undefined) return yield* problem
    const { real } = yield* bucketPath(root, bucket)
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const refuse = (name: string, reason: string): ReadonlyArray<Listed> => [{ refused: { name, reason } }]

    // a walk of real folders only: a link to a folder is not followed (one leading out is refused;
    // one inside would list what the walk lists anyway, or loop). `folder` is a real path, so an
    // entry is a link exactly when its real path differs from its path.
    const walk = (folder: string, name: string): Effect.Effect<ReadonlyArray<Listed>, ObjectStoreIoError> =>
      Effect.gen(function*() {
        const entries = yield* Effect.mapError(fs.readDirectory(folder), ioError("read", "folder", name || bucket))
        const listed = yield* Effect.forEach(entries.sort(), (entry) => look(folder, name, entry), { concurrency: listConcurrency })
        return listed.flat()
      })

    const look = (folder: string, name: string, entry: string): Effect.Effect<ReadonlyArray<Listed>, ObjectStoreIoError> =>
      Effect.gen(function*() {
        const entryName = name === "" ? entry : `${name}/${entry}`
        if (nameProblem(entryName) !== undefined) {
          // listed under a name that fits (a refused name becomes an artifact's too)
          const shown = entryName.length > maxNameLength ? `${entryName.slice(0, maxNameLength - 1)}…` : entryName
          return refuse(shown, `A file name this store cannot address: ${JSON.stringify(shown)}`)
        }
        // a folder that cannot hold a name starting with the prefix is not walked
        if (!entryName.startsWith(prefix) && !prefix.startsWith(`${entryName}/`)) return []
        const full = path.join(folder, entry)
        const resolved = yield* Effect.option(fs.realPath(full))
        if (Option.isNone(resolved)) {
          // a link to nothing, or an entry gone since the folder was read
          const link = yield* Effect.isSuccess(fs.readLink(full))
          return refuse(entryName, link ? `Object ${entryName} is a link to nothing` : `Object ${entryName} cannot be read`)
        }
        const link = resolved.value !== full
        if (link && !inside(path, real, resolved.value)) return refuse(entryName, `Object ${entryName} leads outside its bucket`)
        const info = yield* Effect.option(fs.stat(resolved.value))
        if (Option.isNone(info)) return refuse(entryName, `Object ${entryName} cannot be read`)
        if (info.value.type === "Directory") return link ? [] : yield* walk(full, entryName)
        if (info.value.type !== "File") return refuse(entryName, `Object ${entryName} is not a file`)
        return entryName.startsWith(prefix) ? [{ object: storedObject(entryName, info.value) }] : []
      })

    const listed = yield* walk(real, "")
    const objects: Array<StoredObject> = []
    const refused: Array<RefusedObject> = []
    for (const one of listed) {
      if ("object" in one) objects.push(one.object)
      else refused.push(one.refused)
    }
    return { objects, refused }
  })

/**
 * Object `name` of the bucket whose real path is `real`, if it is at most `maxBytes` long: read
 * from the file opened at its real path (which must lie inside the bucket), never more than one
 * byte past the size it measured (a file that grew since, or a device, is refused).
 */
const readWithin = (real: string, bucket: string, name: string, maxBytes: number) =>
  Effect.scoped(Effect.gen(function*() {
    const { handle, info } = yield* openObject(real, bucket, name)
    const size = Number(info.size)
    if (size > maxBytes) return yield* new ObjectTooLarge({ bucket, key: name, size, maxBytes })
    const bytes = new Uint8Array(size + 1)
    let read = 0
    for (;;) {
      const bytesRead = Number(yield* Effect.mapError(handle.read(bytes.subarray(read)), ioError("read", "object", name)))
      if (bytesRead === 0) break
      read += bytesRead
      if (read > size) return yield* new ObjectChanged({ bucket, key: name })
    }
    return bytes.subarray(0, read)
  }))

/** The bytes of object `name` of `bucket`, if it is at most `maxBytes` long (`readWithin`). */
export const readObject = (root: string, bucket: string, name: string, maxBytes: number) =>
  Effect.flatMap(bucketPath(root, bucket), ({ real }) => readWithin(real, bucket, name, maxBytes))

/**
 * The bytes of each object of `names` of `bucket` (`readObject`), or why it cannot be read; the
 * bucket resolved once. Fails when the bucket cannot be read at all. The files are read together
 * (each read is a few calls on libuv's threads, where one after the other left the event loop
 * idle about half a millisecond a file); the caller bounds how many (an ingestion batch: 16).
 */
export const readObjects = (root: string, bucket: string, names: ReadonlyArray<string>, maxBytes: number) =>
  Effect.flatMap(bucketPath(root, bucket), ({ real }) =>
    Effect.forEach(names, (name) => Effect.either(readWithin(real, bucket, name, maxBytes)), { concurrency: "unbounded" }))

/** Object `name` of `bucket`: its size and last change. */
export const headObject = (root: string, bucket: string, name: string) =>
  Effect.gen(function*() {
    const { real } = yield* bucketPath(root, bucket)
    const fs = yield* FileSystem.FileSystem
    const info = yield* Effect.mapError(fs.stat(yield* objectPath(real, bucket, name)), ioError("read", "object", name))
    if (info.type !== "File") return yield* new NotAFile({ bucket, key: name })
    return storedObject(name, info)
  })

/** The size of a chunk of a streamed object. */
const streamChunkBytes = 64 * 1024

/**
 * The bytes of object `name` of `bucket` as a stream of chunks, however large: the file opened at
 * its real path and held open while the stream runs; exactly the size measured at the open (a
 * file that grows or shrinks meanwhile fails the stream with `ObjectChanged`), so a caller may
 * announce the size before the bytes.
 */
export const streamObject = (root: string, bucket: string, name: string): Stream.Stream<Uint8Array, ObjectStoreError, Services> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const { real } = yield* bucketPath(root, bucket)
    const { handle, info } = yield* openObject(real, bucket, name)
    const readAlloc = (bytes: number) => Effect.mapError(handle.readAlloc(bytes), ioError("read", "object", name))
    return Stream.unfoldEffect(Number(info.size), (remaining) =>
      remaining === 0
        ? Effect.flatMap(readAlloc(1), (more) => Option.isSome(more) ? new ObjectChanged({ bucket, key: name }) : Effect.succeedNone)
        : Effect.flatMap(readAlloc(Math.min(streamChunkBytes, remaining)), (chunk) =>
          Option.isNone(chunk)
            ? new ObjectChanged({ bucket, key: name })
            : Effect.succeedSome([chunk.value, remaining - chunk.value.length] as const)))
  }))

/**
 * The path object `name` of the bucket whose real path is `real` is written at: the folders on its
 * way made one at a time, each checked to lie inside the bucket (one there already may be a link
 * that stays inside).
 */
const placeOf = (real: string, bucket: string, name: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const failed = ioError("write", "object", name)
    const segments = name.split("/")
    let folder = real
    for (const segment of segments.slice(0, -1)) {
      const next = path.join(folder, segment)
      yield* fs.makeDirectory(next).pipe(
        Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "AlreadyExists", () => Effect.void),
        Effect.mapError(failed)
      )
      folder = yield* Effect.mapError(fs.realPath(next), failed)
      if (folder !== real && !inside(path, real, folder)) return yield* new OutsideBucket({ bucket, key: name })
    }
    return path.join(folder, segments.at(-1)!)
  })

/** How many bytes an object's write gathers before it writes them to its file. */
const writeBytes = 256 * 1024

/**
 * Writes object `name` of `bucket` from `bytes` (streamed: at most `writeBytes` and a chunk in memory), replacing
 * one of that name; answers it as stored. The folders on its way are made one at a time, each
 * checked to lie inside the bucket (one there already may be a link that stays inside). The
 * bytes go to a file directly under the root (no bucket: nothing lists or reads it), synced, then
 * renamed into place: an object is whole or absent, never half-written, and a failed write leaves
 * nothing (so a bucket on another file system than the root cannot be written). A failure of
 * `bytes` is the write's, as it is.
 */
export const writeObject = <E, R>(root: string, bucket: string, name: string, bytes: Stream.Stream<Uint8Array, E, R>) =>
  Effect.gen(function*() {
    const { real, realRoot } = yield* bucketPath(root, bucket)
    const problem = nameProblem(name)
    if (problem !== undefined) return yield* problem
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const failed = ioError("write", "object", name)
    const target = yield* placeOf(real, bucket, name)
    const existing = yield* Effect.option(fs.stat(target))
    if (Option.isSome(existing) && existing.value.type === "Directory") return yield* new NotAFile({ bucket, key: name })
    const partial = path.join(realRoot, `.partial-${Crypto.randomUUID()}`)
    yield* Effect.scoped(Effect.gen(function*() {
      const file = yield* Effect.mapError(fs.open(partial, { flag: "wx" }), failed)
      // the chunks gathered up to `writeBytes` a write: one awaited write per chunk off the network
      // (16-64 KiB) kept an upload waiting on the disk thousands of times
      let gathered: Array<Uint8Array> = []
      let size = 0
      const flush = Effect.suspend(() => {
        if (size === 0) return Effect.void
        const chunk = gathered.length === 1 ? gathered[0]! : Buffer.concat(gathered, size)
        gathered = []
        size = 0
        return Effect.mapError(file.writeAll(chunk), failed)
      })
      yield* Stream.runForEach(bytes, (chunk) => {
        gathered.push(chunk)
        size += chunk.byteLength
        return size >= writeBytes ? flush : Effect.void
      })
      yield* flush
      yield* Effect.mapError(file.sync, failed)
    })).pipe(
      Effect.zipRight(Effect.mapError(fs.rename(partial, target), failed)),
      Effect.onError(() => Effect.ignore(fs.remove(partial)))
    )
    return storedObject(name, yield* Effect.mapError(fs.stat(target), failed))
  })

/**
 * Renames object `from` of `bucket` to `to`, replacing one of that name (in one step: a reader
 * of the old one keeps reading it): for bytes written under a name of their own and named once
 * known (a file stored by its checksum: files/). The folders on `to`'s way are made as a write
 * makes them (`placeOf`); both objects stay inside the bucket.
 */
export const moveObject = (root: string, bucket: string, from: string, to: string) =>
  Effect.gen(function*() {
    const { real } = yield* bucketPath(root, bucket)
    const source = yield* objectPath(real, bucket, from)
    const problem = nameProblem(to)
    if (problem !== undefined) return yield* problem
    const fs = yield* FileSystem.FileSystem
    const target = yield* placeOf(real, bucket, to)
    yield* Effect.mapError(fs.rename(source, target), ioError("write", "object", to))
  })

/** Makes bucket `bucket` under `root` (and the root) when it is not there yet. */
export const makeBucket = (root: string, bucket: string) =>
  Effect.gen(function*() {
    const problem = bucketProblem(bucket)
    if (problem !== undefined) return yield* problem
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* Effect.mapError(fs.makeDirectory(path.join(root, bucket), { recursive: true }), ioError("write", "bucket", bucket))
  })

/**
 * Deletes object `name` of `bucket`: the file of that name (a link: the link, not what it leads
 * to), which must be one `readObject` reads. The folders on its way stay.
 */
export const removeObject = (root: string, bucket: string, name: string) =>
  Effect.gen(function*() {
    const { real } = yield* bucketPath(root, bucket)
    const problem = nameProblem(name)
    if (problem !== undefined) return yield* problem
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const segments = name.split("/")
    const folder = yield* Effect.mapError(fs.realPath(path.join(real, ...segments.slice(0, -1))), () => new ObjectNotFound({ bucket, key: name }))
    if (folder !== real && !inside(path, real, folder)) return yield* new OutsideBucket({ bucket, key: name })
    const entry = path.join(folder, segments.at(-1)!)
    const file = yield* Effect.mapError(fs.realPath(entry), () => new ObjectNotFound({ bucket, key: name }))
    if (!inside(path, real, file)) return yield* new OutsideBucket({ bucket, key: name })
    const info = yield* Effect.mapError(fs.stat(file), ioError("delete", "object", name))
    if (info.type !== "File") return yield* new NotAFile({ bucket, key: name })
    yield* Effect.mapError(fs.remove(entry), ioError("delete", "object", name))
  })

/**
 * Node's `FileSystem` with `realPath` answered by libuv's `realpath(3)` in one call on its
 * threads: the platform's, Node's callback `fs.realpath`, lstat's each segment of the path in
 * turn, and the store resolves every file it lists or reads (1,000 files: 13 ms against 80 on a
 * development machine).
 */
export const ObjectStoreFileSystem = Layer.effect(
  FileSystem.FileSystem,
  Effect.map(FileSystem.FileSystem, (fs): FileSystem.FileSystem => ({
    ...fs,
    realPath: (path) =>
      Effect.tryPromise({
        try: () => Fs.realpath(path),
        catch: (cause) => {
          const code = (cause as NodeJS.ErrnoException).code
          return new PlatformError.SystemError({
            reason: code === "ENOENT" ? "NotFound" : code === "EACCES" ? "PermissionDenied" : code === "ENOTDIR" || code === "ELOOP" ? "BadResource" : "Unknown",
            module: "FileSystem",
            method: "realPath",
            pathOrDescriptor: path,
            cause
          })
        }
      })
  }))
).pipe(Layer.provide(NodeFileSystem.layer))

/** One of the store's own buckets (`ObjectStore.own`). */
export interface OwnBucket {
  readonly write: <E, R>(name: string, bytes: Stream.Stream<Uint8Array, E, R>) => Effect.Effect<StoredObject, ObjectStoreError | E, R>
  readonly stream: (name: string) => Stream.Stream<Uint8Array, ObjectStoreError>
  readonly head: (name: string) => Effect.Effect<StoredObject, ObjectStoreError>
  readonly remove: (name: string) => Effect.Effect<void, ObjectStoreError>
  readonly move: (from: string, to: string) => Effect.Effect<void, ObjectStoreError>
}

/**
 * What the store does, on either backend (the folder here, S3 in S3ObjectStore.ts): the same
 * operations, answers and failures.
 */
export interface ObjectStoreBackend {
  /** The folder, or the `s3://bucket/prefix` of the service. */
  readonly root: string
  readonly maxBytes: number
  readonly list: (
    bucket: string,
    prefix?: string
  ) => Effect.Effect<{ readonly objects: Array<StoredObject>; readonly refused: Array<RefusedObject> }, ObjectStoreError>
  readonly read: (bucket: string, name: string) => Effect.Effect<Uint8Array, ObjectStoreError>
  readonly readAll: (
    bucket: string,
    names: ReadonlyArray<string>
  ) => Effect.Effect<Array<Either.Either<Uint8Array, ObjectStoreError>>, ObjectStoreError>
  readonly head: (bucket: string, name: string) => Effect.Effect<StoredObject, ObjectStoreError>
  readonly stream: (bucket: string, name: string) => Stream.Stream<Uint8Array, ObjectStoreError>
  readonly write: <E, R>(bucket: string, name: string, bytes: Stream.Stream<Uint8Array, E, R>) => Effect.Effect<StoredObject, ObjectStoreError | E, R>
  readonly remove: (bucket: string, name: string) => Effect.Effect<void, ObjectStoreError>
  /**
   * A bucket of the server's own (under `ownFolder`, out of reach of the bucket names users
   * give), made at its first write: where a family keeps the files its accounts upload.
   */
  readonly own: (bucket: string) => OwnBucket
}

/**
 * The object store of the server: on the machine's file system (`PLATFORM_OBJECT_STORE_ROOT`), or
 * on an S3-compatible service when `PLATFORM_OBJECT_STORE_URL` is set (S3ObjectStore.ts, loaded
 * only then); whole reads up to `PLATFORM_OBJECT_MAX_BYTES`. What uploads and a data source's
 * verify read, and what files, training datasets and builds write.
 */
export class ObjectStore extends Effect.Service<ObjectStore>()("@platform-kit/server/ObjectStore", {
  effect: Effect.gen(function*() {
    const maxBytes = yield* ObjectMaxBytes
    const url = yield* ObjectStoreUrl
    if (Option.isSome(url)) {
      const { makeS3ObjectStore } = yield* Effect.promise(() => import("./S3ObjectStore.js"))
      return yield* makeS3ObjectStore(url.value, maxBytes)
    }
    const root = yield* ObjectStoreRoot
    const services = yield* Effect.context<Services>()
    const ownRoot = (yield* Path.Path).join(root, ownFolder)
    const store: ObjectStoreBackend = {
      root,
      maxBytes,
      list: (bucket: string, prefix = "") => Effect.provide(listObjects(root, bucket, prefix), services),
      read: (bucket: string, name: string) => Effect.provide(readObject(root, bucket, name, maxBytes), services),
      readAll: (bucket: string, names: ReadonlyArray<string>) => Effect.provide(readObjects(root, bucket, names, maxBytes), services),
      head: (bucket: string, name: string) => Effect.provide(headObject(root, bucket, name), services),
      stream: (bucket: string, name: string) => Stream.provideContext(streamObject(root, bucket, name), services),
      write: <E, R>(bucket: string, name: string, bytes: Stream.Stream<Uint8Array, E, R>) =>
        Effect.provide(writeObject(root, bucket, name, bytes), services),
      remove: (bucket: string, name: string) => Effect.provide(removeObject(root, bucket, name), services),
      own: (bucket: string) => ({
        write: <E, R>(name: string, bytes: Stream.Stream<Uint8Array, E, R>) =>
          Effect.provide(Effect.zipRight(makeBucket(ownRoot, bucket), writeObject(ownRoot, bucket, name, bytes)), services),
        stream: (name: string) => Stream.provideContext(streamObject(ownRoot, bucket, name), services),
        head: (name: string) => Effect.provide(headObject(ownRoot, bucket, name), services),
        remove: (name: string) => Effect.provide(removeObject(ownRoot, bucket, name), services),
        move: (from: string, to: string) => Effect.provide(moveObject(ownRoot, bucket, from, to), services)
      })
    }
    return store
  }).pipe(Effect.orDie),
  dependencies: [ObjectStoreFileSystem, NodePath.layer]
}) {}
