/**
 * The object store on an S3-compatible service (AWS S3, MinIO, R2…), chosen by
 * `PLATFORM_OBJECT_STORE_URL=s3://bucket/prefix?endpoint=…&region=…&force_path_style=…`
 * (docs/knowledge-bases.md "The object store"): the same operations and failures as the folder
 * backend (ObjectStore.ts), on S3 objects (S3Client.ts). Loaded only when configured.
 *
 * - The store's own buckets (`own`: files, application files, training datasets) are prefixes of
 *   the configured bucket: `<prefix>/.platform/<bucket>/<name>`.
 * - A bucket a user names (a knowledge base's `OBJECT_STORE` data source) is a bucket of the
 *   service, read with the server's credentials; the configured bucket itself is refused (it holds
 *   every account's files), as the folder backend refuses `.platform`.
 * - A write is streamed: up to one part (8 MiB) in memory; an object that fits is one PUT of known
 *   length, a larger one a multipart upload completed at the end (aborted on failure). Either way
 *   the object is visible whole or not at all.
 * - A move is a copy then a delete of the source (S3 has no rename; a copy is at most 5 GiB).
 */
import { Config, Effect, Option, Redacted, Stream } from "effect"
import type * as Http from "node:http"
import {
  BucketNotFound,
  bucketProblem,
  maxNameLength,
  nameProblem,
  ObjectChanged,
  ObjectNotFound,
  type ObjectStoreBackend,
  type ObjectStoreError,
  ObjectStoreIoError,
  ObjectTooLarge,
  ownFolder,
  prefixProblem,
  type RefusedObject,
  type StoredObject
} from "./ObjectStore.js"
import { call, element, listAll, S3ResponseError, type S3Target, send, text } from "./S3Client.js"

/** The size of a part of a multipart upload (S3's least is 5 MiB, but for the last). */
export const partBytes = 8 * 1024 * 1024

/** The bucket, key prefix and service of a `PLATFORM_OBJECT_STORE_URL`, with the credentials of the environment. */
export const S3Location = (url: string) =>
  Effect.gen(function*() {
    const parsed = yield* Effect.try({
      try: () => new URL(url),
      catch: () => new Error(`PLATFORM_OBJECT_STORE_URL is not a URL: ${url}`)
    })
    if (parsed.protocol !== "s3:" || parsed.hostname === "") {
      return yield* Effect.fail(new Error(`PLATFORM_OBJECT_STORE_URL must be s3://bucket[/prefix][?endpoint=…&region=…&force_path_style=…]: ${url}`))
    }
    const param = (name: string) => parsed.searchParams.get(name) ?? undefined
    const region = param("region") ??
      Option.getOrUndefined(yield* Config.option(Config.string("AWS_REGION"))) ??
      Option.getOrUndefined(yield* Config.option(Config.string("AWS_DEFAULT_REGION"))) ??
      "us-east-1"
    const endpoint = param("endpoint") ?? Option.getOrUndefined(yield* Config.option(Config.string("AWS_ENDPOINT_URL_S3")))
    const pathStyle = param("force_path_style") === undefined ? endpoint !== undefined : param("force_path_style") === "true"
    const sessionToken = yield* Config.option(Config.redacted("AWS_SESSION_TOKEN"))
    const target: S3Target = {
      endpoint: new URL(endpoint ?? `https://s3.${region}.amazonaws.com`),
      region,
      pathStyle,
      accessKeyId: yield* Config.string("AWS_ACCESS_KEY_ID"),
      secretAccessKey: Redacted.value(yield* Config.redacted("AWS_SECRET_ACCESS_KEY")),
      sessionToken: Option.match(sessionToken, { onNone: () => undefined, onSome: Redacted.value })
    }
    const path = decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, "")
    return { bucket: parsed.hostname, prefix: path === "" ? "" : `${path}/`, target }
  })

/** A failed call as the store's failure: a bucket or object not there, or an I/O error. */
const failure = (operation: ObjectStoreIoError["operation"], bucket: string, name: string) => (cause: unknown): ObjectStoreError => {
  if (cause instanceof S3ResponseError) {
    if (cause.code === "NoSuchBucket") return new BucketNotFound({ bucket, s3: true })
    if (cause.code === "NoSuchKey" || cause.status === 404) return new ObjectNotFound({ bucket, key: name })
  }
  return new ObjectStoreIoError({ operation, subject: "object", target: name, cause })
}

/** The S3 error of a response that is not 2xx (its body read for the code). */
const responseError = async (response: Http.IncomingMessage, operation: string) => {
  const body = await text(response)
  return new S3ResponseError(response.statusCode ?? 0, element(body, "Code") ?? String(response.statusCode), operation)
}

/** The store on the service of `location` (`S3Location`), whole reads up to `maxBytes`. */
export const makeS3ObjectStore = (url: string, maxBytes: number) =>
  Effect.gen(function*() {
    const location = yield* S3Location(url)
    const { target } = location
    const attempt = <A>(operation: ObjectStoreIoError["operation"], bucket: string, name: string, run: () => Promise<A>) =>
      Effect.tryPromise({ try: run, catch: failure(operation, bucket, name) })

    type Place = { readonly bucket: string; readonly prefix: string }
    /** A bucket a user names: a bucket of the service, not the store's own. */
    const userBucket = (bucket: string): Effect.Effect<Place, ObjectStoreError> => {
      const problem = bucketProblem(bucket)
      if (problem !== undefined) return Effect.fail(problem)
      if (bucket === location.bucket) return Effect.fail(new BucketNotFound({ bucket, s3: true }))
      return Effect.succeed({ bucket, prefix: "" })
    }
    /** One of the store's own buckets: a prefix of the configured bucket. */
    const ownBucket = (bucket: string) => ({ bucket: location.bucket, prefix: `${location.prefix}${ownFolder}/${bucket}/` })

    const checked = (name: string) => {
      const problem = nameProblem(name)
      return problem === undefined ? Effect.void : Effect.fail(problem)
    }

    const head = (place: Place, shown: string, name: string) =>
      Effect.zipRight(
        checked(name),
        attempt("read", shown, name, async () => {
          const response = await send(target, { method: "HEAD", bucket: place.bucket, key: place.prefix + name })
          response.resume()
          if (response.statusCode === 404) throw new S3ResponseError(404, "NoSuchKey", "head")
          // a HEAD answer has no body to name the error: its status is all
          if ((response.statusCode ?? 0) >= 300) throw new S3ResponseError(response.statusCode ?? 0, String(response.statusCode), "head")
          return {
            name,
            size: Number(response.headers["content-length"] ?? 0),
            modified_ms: Date.parse(response.headers["last-modified"] ?? "") || 0
          } satisfies StoredObject
        })
      )

    /** The response of a GET of an object (in the scope: destroyed when it closes), and its size. */
    const open = (place: Place, shown: string, name: string) =>
      Effect.gen(function*() {
        yield* checked(name)
        const controller = new AbortController()
        const response = yield* Effect.acquireRelease(
          attempt("read", shown, name, () => send(target, { method: "GET", bucket: place.bucket, key: place.prefix + name }, controller.signal)),
          (response) => Effect.sync(() => response.destroy())
        )
        yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
        if ((response.statusCode ?? 0) >= 300) {
          const error = yield* Effect.promise(() => responseError(response, "get").catch((cause: unknown) => cause))
          return yield* Effect.fail(failure("read", shown, name)(error))
        }
        return { response, size: Number(response.headers["content-length"] ?? 0) }
      })

    const stream = (place: Place, shown: string, name: string): Stream.Stream<Uint8Array, ObjectStoreError> =>
      Stream.unwrapScoped(Effect.map(open(place, shown, name), ({ response, size }) => {
        let seen = 0
        return Stream.fromAsyncIterable(response as AsyncIterable<Buffer>, failure("read", shown, name)).pipe(
          Stream.map((chunk): Uint8Array => {
            seen += chunk.length
            return chunk
          }),
          Stream.concat(Stream.execute(Effect.suspend(() => seen === size ? Effect.void : Effect.fail(new ObjectChanged({ bucket: shown, key: name })))))
        )
      }))

    /** The bytes of a GET, whole (at most `maxBytes`, checked against the size it announced). */
    const readWhole = (place: Place, shown: string, name: string) =>
      Effect.scoped(Effect.gen(function*() {
        const { response, size } = yield* open(place, shown, name)
        if (size > maxBytes) return yield* new ObjectTooLarge({ bucket: shown, key: name, size, maxBytes })
        const chunks = yield* attempt("read", shown, name, async () => {
          const chunks: Array<Buffer> = []
          for await (const chunk of response as AsyncIterable<Buffer>) chunks.push(chunk)
          return chunks
        })
        const bytes = new Uint8Array(Buffer.concat(chunks))
        if (bytes.length !== size) return yield* new ObjectChanged({ bucket: shown, key: name })
        return bytes
      }))

    const write = <E, R>(place: Place, shown: string, name: string, bytes: Stream.Stream<Uint8Array, E, R>) =>
      Effect.gen(function*() {
        yield* checked(name)
        const key = place.prefix + name
        let buffered: Array<Buffer> = []
        let bufferedBytes = 0
        let upload: { readonly id: string; readonly etags: Array<string> } | undefined
        const take = () => {
          const body = Buffer.concat(buffered)
          buffered = []
          bufferedBytes = 0
          return body
        }
        const sendPart = Effect.suspend(() => {
          const body = take()
          return attempt("write", shown, name, async () => {
            if (upload === undefined) {
              const { body: created } = await call(target, { method: "POST", bucket: place.bucket, key, query: { uploads: "" } }, "create multipart upload")
              upload = { id: element(created, "UploadId") ?? "", etags: [] }
            }
            const { response } = await call(target, {
              method: "PUT",
              bucket: place.bucket,
              key,
              query: { partNumber: String(upload.etags.length + 1), uploadId: upload.id },
              body
            }, "upload part")
            upload.etags.push(String(response.headers.etag ?? ""))
          })
        })
        const finish = Effect.suspend(() => {
          if (upload === undefined) {
            const body = take()
            return attempt("write", shown, name, () => call(target, { method: "PUT", bucket: place.bucket, key, body }, "put"))
          }
          const started = upload
          return Effect.zipRight(
            bufferedBytes > 0 ? sendPart : Effect.void,
            attempt("write", shown, name, () => {
              const parts = started.etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${etag.replace(/&/g, "&amp;")}</ETag></Part>`)
              const body = Buffer.from(`<CompleteMultipartUpload>${parts.join("")}</CompleteMultipartUpload>`)
              return call(target, { method: "POST", bucket: place.bucket, key, query: { uploadId: started.id }, body, signBody: true }, "complete multipart upload")
            })
          )
        })
        yield* Stream.runForEach(bytes, (chunk) => {
          // copied: a producer may reuse its buffer once the chunk is handed on
          buffered.push(Buffer.from(chunk))
          bufferedBytes += chunk.length
          return bufferedBytes >= partBytes ? sendPart : Effect.void
        }).pipe(
          Effect.zipRight(finish),
          Effect.onError(() =>
            upload === undefined
              ? Effect.void
              : Effect.ignore(Effect.tryPromise(() => call(target, { method: "DELETE", bucket: place.bucket, key, query: { uploadId: upload!.id } }, "abort")))
          )
        )
        return yield* head(place, shown, name)
      })

    const remove = (place: Place, shown: string, name: string) =>
      Effect.zipRight(
        head(place, shown, name),
        attempt("delete", shown, name, () => call(target, { method: "DELETE", bucket: place.bucket, key: place.prefix + name }, "delete"))
      )

    const move = (place: Place, shown: string, from: string, to: string) =>
      Effect.gen(function*() {
        yield* checked(from)
        yield* checked(to)
        const source = `/${place.bucket}/${(place.prefix + from).split("/").map(encodeURIComponent).join("/")}`
        yield* attempt("write", shown, from, () =>
          call(target, { method: "PUT", bucket: place.bucket, key: place.prefix + to, headers: { "x-amz-copy-source": source } }, "copy"))
        yield* attempt("delete", shown, from, () => call(target, { method: "DELETE", bucket: place.bucket, key: place.prefix + from }, "delete"))
      })

    /** The objects under `prefix` (and the keys this store cannot address, refused as the folder refuses them). */
    const list = (place: Place, shown: string, prefix: string) =>
      Effect.gen(function*() {
        const problem = prefixProblem(prefix)
        if (problem !== undefined) return yield* problem
        const listed = yield* Effect.tryPromise({
          try: () => listAll(target, place.bucket, place.prefix + prefix),
          catch: (cause) =>
            cause instanceof S3ResponseError && cause.code === "NoSuchBucket"
              ? new BucketNotFound({ bucket: shown, s3: true })
              : new ObjectStoreIoError({ operation: "read", subject: "bucket", target: shown, cause })
        })
        const objects: Array<StoredObject> = []
        const refused: Array<RefusedObject> = []
        for (const one of listed) {
          const name = one.key.slice(place.prefix.length)
          // a "folder" made by a console: a key ending in "/" with nothing in it
          if (name.endsWith("/") && one.size === 0) continue
          if (nameProblem(name) !== undefined) {
            const shownName = name.length > maxNameLength ? `${name.slice(0, maxNameLength - 1)}…` : name
            refused.push({ name: shownName, reason: `A file name this store cannot address: ${JSON.stringify(shownName)}` })
          } else objects.push({ name, size: one.size, modified_ms: one.modified_ms })
        }
        objects.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        return { objects, refused }
      })

    const users = <A, E>(bucket: string, run: (place: Place) => Effect.Effect<A, E>) => Effect.flatMap(userBucket(bucket), run)

    const store: ObjectStoreBackend = {
      root: url.replace(/\?.*$/, ""),
      maxBytes,
      list: (bucket, prefix = "") => users(bucket, (place) => list(place, bucket, prefix)),
      read: (bucket, name) => users(bucket, (place) => readWhole(place, bucket, name)),
      readAll: (bucket, names) =>
        users(bucket, (place) => Effect.forEach(names, (name) => Effect.either(readWhole(place, bucket, name)), { concurrency: 16 })),
      head: (bucket, name) => users(bucket, (place) => head(place, bucket, name)),
      stream: (bucket, name) => Stream.unwrap(Effect.map(userBucket(bucket), (place) => stream(place, bucket, name))),
      write: (bucket, name, bytes) => Effect.flatMap(userBucket(bucket), (place) => write(place, bucket, name, bytes)),
      remove: (bucket, name) => users(bucket, (place) => remove(place, bucket, name)),
      own: (bucket) => {
        const place = ownBucket(bucket)
        return {
          write: (name, bytes) => write(place, bucket, name, bytes),
          stream: (name) => stream(place, bucket, name),
          head: (name) => head(place, bucket, name),
          remove: (name) => remove(place, bucket, name),
          move: (from, to) => move(place, bucket, from, to)
        }
      }
    }
    return store
  })
