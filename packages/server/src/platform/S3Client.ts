/**
 * A small client of the S3 HTTP API, for the object store's S3 backend (S3ObjectStore.ts): the
 * dozen calls the store makes (put, get, head, delete, copy, list, multipart upload), each request
 * signed with AWS Signature Version 4 and sent with `node:http`/`node:https`, bodies streamed both
 * ways. Bodies are sent as `UNSIGNED-PAYLOAD` (the signature covers the headers, TLS the bytes),
 * except the small XML a multipart completion sends. Why not `@aws-sdk/client-s3`:
 * docs/knowledge-bases.md "The object store".
 */
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import * as Https from "node:https"

/** Where and as whom the client calls: parsed from `PLATFORM_OBJECT_STORE_URL` (S3ObjectStore.ts). */
export interface S3Target {
  /** The service's base URL: `https://s3.<region>.amazonaws.com` unless an endpoint is given. */
  readonly endpoint: URL
  readonly region: string
  /** `https://host/bucket/key` rather than `https://bucket.host/key`. */
  readonly pathStyle: boolean
  readonly accessKeyId: string
  readonly secretAccessKey: string
  readonly sessionToken: string | undefined
}

/** An answer other than the one expected: its status and the S3 error code of its body, if any. */
export class S3ResponseError extends Error {
  constructor(readonly status: number, readonly code: string, readonly operation: string) {
    super(`S3 ${operation}: ${status} ${code}`)
  }
}

/** RFC 3986 encoding, as SigV4 wants it (`/` kept in a path). */
const encode = (value: string, keepSlash = false) => {
  const encoded = encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return keepSlash ? encoded.replace(/%2F/g, "/") : encoded
}

const sha256 = (data: string | Uint8Array) => Crypto.createHash("sha256").update(data).digest("hex")
const hmac = (key: Crypto.BinaryLike, data: string) => Crypto.createHmac("sha256", key).update(data).digest()

/** One request: what is asked of which bucket and key, and the body (bytes, or a stream of known length). */
export interface S3Request {
  readonly method: "GET" | "HEAD" | "PUT" | "POST" | "DELETE"
  readonly bucket: string
  readonly key?: string
  readonly query?: Record<string, string>
  readonly headers?: Record<string, string>
  readonly body?: Uint8Array
  /** A body whose bytes are hashed into the signature (small XML); others go unsigned. */
  readonly signBody?: boolean
}

/** The URL of a request and its headers, signed (SigV4, service `s3`). */
export const signed = (target: S3Target, request: S3Request, now = new Date()) => {
  const key = request.key ?? ""
  const host = target.pathStyle ? target.endpoint.host : `${request.bucket}.${target.endpoint.host}`
  const base = target.endpoint.pathname.replace(/\/$/, "")
  // a bucket's own calls (a listing) end at the bucket: `/bucket` path-style, `/` on its own host
  const bucketPath = target.pathStyle ? `/${encode(request.bucket)}` : ""
  const path = key === "" ? `${base}${bucketPath || "/"}` : `${base}${bucketPath}/${encode(key, true)}`
  const query = Object.entries(request.query ?? {}).map(([k, v]) => [encode(k), encode(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`).join("&")
  const amzDate = now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "")
  const day = amzDate.slice(0, 8)
  const payload = request.signBody === true && request.body !== undefined ? sha256(request.body) : "UNSIGNED-PAYLOAD"
  const headers: Record<string, string> = {
    ...Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    host,
    "x-amz-content-sha256": payload,
    "x-amz-date": amzDate,
    ...(target.sessionToken === undefined ? {} : { "x-amz-security-token": target.sessionToken })
  }
  const names = Object.keys(headers).filter((name) => name === "host" || name.startsWith("x-amz-") || name === "content-type" || name === "content-md5").sort()
  const canonical = [
    request.method,
    path,
    query,
    names.map((name) => `${name}:${headers[name]!.trim()}\n`).join(""),
    names.join(";"),
    payload
  ].join("\n")
  const scope = `${day}/${target.region}/s3/aws4_request`
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonical)].join("\n")
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${target.secretAccessKey}`, day), target.region), "s3"), "aws4_request")
  const signature = Crypto.createHmac("sha256", signingKey).update(toSign).digest("hex")
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${target.accessKeyId}/${scope}, SignedHeaders=${names.join(";")}, Signature=${signature}`
  if (request.body !== undefined) headers["content-length"] = String(request.body.length)
  else if (request.method === "PUT" || request.method === "POST") headers["content-length"] = "0"
  const url = new URL(`${target.endpoint.protocol}//${host}${path}${query === "" ? "" : `?${query}`}`)
  return { url, headers }
}

/** Keep-alive agents, one per protocol: the store makes many small calls. */
const agents = { http: new Http.Agent({ keepAlive: true }), https: new Https.Agent({ keepAlive: true }) }

/**
 * Sends `request`; answers the response, its body not read (the caller reads or destroys it).
 * `signal` aborts it (an interrupted read or write).
 */
export const send = (target: S3Target, request: S3Request, signal?: AbortSignal) =>
  new Promise<Http.IncomingMessage>((resolve, reject) => {
    const { headers, url } = signed(target, request)
    const https = url.protocol === "https:"
    const made = (https ? Https : Http).request(url, {
      method: request.method,
      headers,
      agent: https ? agents.https : agents.http,
      ...(signal === undefined ? {} : { signal })
    }, resolve)
    made.on("error", reject)
    made.end(request.body)
  })

/** The whole body of `response`, as text. */
export const text = (response: Http.IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    response.on("data", (chunk: Buffer) => chunks.push(chunk))
    response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    response.on("error", reject)
  })

/** XML's five entities and numeric references, decoded. */
const unescapeXml = (value: string) =>
  value.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, entity: string) =>
    entity === "amp" ? "&" : entity === "lt" ? "<" : entity === "gt" ? ">" : entity === "quot" ? "\"" : entity === "apos" ? "'"
    : String.fromCodePoint(entity[1] === "x" ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10)))

/** The text of each `<tag>` element of `xml` (no nesting of the same tag: S3's answers have none). */
export const elements = (xml: string, tag: string) =>
  Array.from(xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g")), (match) => match[1]!)

/** The text of the first `<tag>` of `xml`, decoded. */
export const element = (xml: string, tag: string) => {
  const found = elements(xml, tag)[0]
  return found === undefined ? undefined : unescapeXml(found)
}

/** Sends `request` and fails with its status and S3 error code unless the status is 2xx; answers the body's text. */
export const call = async (target: S3Target, request: S3Request, operation: string) => {
  const response = await send(target, request)
  const body = await text(response)
  const status = response.statusCode ?? 0
  // a copy or a multipart completion may answer 200 with an error in its body
  if (status < 200 || status > 299 || body.includes("<Error>")) {
    throw new S3ResponseError(status, element(body, "Code") ?? String(status), operation)
  }
  return { response, body }
}

/** One object of a listing page. */
export interface S3Listed {
  readonly key: string
  readonly size: number
  readonly modified_ms: number
}

/** Every object of `bucket` whose key starts with `prefix` (ListObjectsV2, page by page). */
export const listAll = async (target: S3Target, bucket: string, prefix: string) => {
  const listed: Array<S3Listed> = []
  let token: string | undefined
  do {
    const { body } = await call(target, {
      method: "GET",
      bucket,
      query: { "list-type": "2", prefix, ...(token === undefined ? {} : { "continuation-token": token }) }
    }, "list")
    for (const contents of elements(body, "Contents")) {
      listed.push({
        key: element(contents, "Key") ?? "",
        size: Number(element(contents, "Size") ?? 0),
        modified_ms: Date.parse(element(contents, "LastModified") ?? "") || 0
      })
    }
    token = element(body, "IsTruncated") === "true" ? element(body, "NextContinuationToken") : undefined
  } while (token !== undefined)
  return listed
}
