/**
 * Raw HTTP, for the tests that must see the wire: what the typed client will not send (bad input,
 * no key, malformed JSON, headers of the test's choosing) or will not show (statuses, headers and
 * bytes as sent). Two levels:
 * - `request`: one request through the `HttpClient` of the layer (the test server's, whose
 *   relative URLs go to it), answered with its status, headers and body (parsed when it is JSON);
 * - node:http on the test server's port, every byte under the test's control: `send` (one whole
 *   request on a fresh connection), `start` and `write` (a body sent chunked or held open, a
 *   request left in flight), `sendChunks`, `openStream` (a task's live stream on a plain socket),
 *   and a `Wire` (a keep-alive pool for many requests) with `jsonRequest`, `formRequest` and
 *   `queryString` to build what it sends.
 */
import { HttpClient, HttpClientRequest, HttpServer } from "@effect/platform"
import { Effect } from "effect"
import * as Http from "node:http"
import * as Net from "node:net"

// ---------------------------------------------------------------------------------------------
// Through the test server's HttpClient

export interface RawResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: any
}

/**
 * A raw request through the `HttpClient` of the layer. `body` is sent as JSON unless it is a
 * string, which is sent as is (with content-type application/json).
 */
export const request = (
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE" | "OPTIONS",
  path: string,
  options: { readonly key?: string; readonly body?: unknown; readonly headers?: Record<string, string> } = {}
) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let req = HttpClientRequest.make(method)(path)
    if (options.key !== undefined) req = HttpClientRequest.setHeader(req, "x-api-key", options.key)
    for (const [k, v] of Object.entries(options.headers ?? {})) req = HttpClientRequest.setHeader(req, k, v)
    if (options.body !== undefined) {
      req = typeof options.body === "string"
        ? HttpClientRequest.bodyText(req, options.body, "application/json")
        : yield* HttpClientRequest.bodyJson(req, options.body)
    }
    const response = yield* client.execute(req)
    const text = yield* response.text
    let body: unknown = text
    try {
      body = text.length > 0 ? JSON.parse(text) : undefined
    } catch {
      // not JSON: keep the text
    }
    const raw: RawResponse = { status: response.status, headers: response.headers, body }
    return raw
  }).pipe(Effect.scoped, Effect.orDie)

// ---------------------------------------------------------------------------------------------
// node:http on a port

/** Status, headers, text, and the body parsed as JSON (`undefined` when it is not JSON). */
export interface WireResponse {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly text: string
  readonly json: any
}

/** The port of the `HttpServer` of the layer (the test server's, on 127.0.0.1). */
export const serverPort = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address
  if (address._tag !== "TcpAddress") throw new Error("the test server is not on TCP")
  return address.port
})

/** Reads a whole response. */
export const readResponse = (response: Http.IncomingMessage): Promise<WireResponse> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    response.on("data", (chunk: Buffer) => chunks.push(chunk))
    response.once("error", reject)
    response.once("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      let json: unknown = undefined
      try {
        json = text.length > 0 ? JSON.parse(text) : undefined
      } catch {
        // not JSON
      }
      resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json })
    })
  })

export interface Started {
  readonly request: Http.ClientRequest
  /** The response, whenever it comes (before the body is finished, if the server answers early). */
  readonly response: Promise<WireResponse>
}

/**
 * Starts a request on a fresh connection and leaves the body to the caller (`write`, `end`).
 * Without a `content-length` header, node sends the body chunked.
 */
export const start = (options: {
  readonly port: number
  readonly method: string
  readonly path: string
  readonly headers?: Record<string, string | number>
}): Started => {
  const request = Http.request({
    host: "127.0.0.1",
    port: options.port,
    method: options.method,
    path: options.path,
    headers: options.headers ?? {},
    agent: false
  })
  const response = new Promise<WireResponse>((resolve, reject) => {
    request.once("response", (response) => readResponse(response).then(resolve, reject))
    request.once("error", reject)
  })
  // the body is written after the response may have come: do not let a late write error go unhandled
  response.catch(() => {})
  request.flushHeaders()
  return { request, response }
}

/** One whole request on a fresh connection, with a JSON (or text) body sent with its content-length. */
export const send = (options: {
  readonly port: number
  readonly method: string
  readonly path: string
  readonly headers?: Record<string, string>
  readonly body?: unknown
}): Promise<WireResponse> => {
  const body = options.body === undefined
    ? undefined
    : typeof options.body === "string"
    ? options.body
    : JSON.stringify(options.body)
  const headers: Record<string, string | number> = { ...options.headers }
  if (body !== undefined) {
    headers["content-type"] = "application/json"
    headers["content-length"] = Buffer.byteLength(body)
  }
  const started = start({ port: options.port, method: options.method, path: options.path, headers })
  started.request.end(body)
  return started.response
}

/** Writes `chunk` and resolves once it is handed to the socket. */
export const write = (request: Http.ClientRequest, chunk: Buffer | string): Promise<void> =>
  new Promise((resolve, reject) => request.write(chunk, (error) => (error ? reject(error) : resolve())))

/** One request whose body is sent chunked, `chunks` one write after the other, each handed to the socket before the next. */
export const sendChunks = async (
  options: { readonly port: number; readonly method: string; readonly path: string; readonly headers?: Record<string, string> },
  chunks: Iterable<Buffer | string>
): Promise<WireResponse> => {
  const started = start(options)
  for (const chunk of chunks) await write(started.request, chunk)
  started.request.end()
  return started.response
}

/** A task stream opened on a socket of its own: every byte it has been sent, and its connection's close. */
export interface OpenStream {
  readonly text: () => string
  readonly closed: Promise<void>
}

/**
 * `GET path` of a task's live stream with `key` on a plain socket (the response's bytes as sent:
 * head, chunked framing and all), resolved once its `connected` frame has come (the subscription
 * is made).
 */
export const openStream = (port: number, path: string, key: string): Promise<OpenStream> =>
  new Promise((resolve, reject) => {
    const socket = Net.connect(port, "127.0.0.1")
    let text = ""
    let opened = false
    const closed = new Promise<void>((done) => socket.once("close", () => done()))
    socket.setEncoding("latin1")
    socket.on("data", (chunk: string) => {
      text += chunk
      if (!opened && text.includes("\"connected\"")) {
        opened = true
        resolve({ text: () => text, closed })
      }
    })
    socket.once("connect", () => socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${key}\r\n\r\n`))
    socket.once("error", reject)
  })

/** What a `Wire` sends: any method, target, headers and body bytes. */
export interface WireRequest {
  readonly method: string
  /** Path and query, sent as is (already encoded, or deliberately not). */
  readonly target: string
  readonly headers?: Record<string, string>
  readonly body?: string | Buffer
  /** Send the body chunked (no content-length). */
  readonly chunked?: boolean
}

/**
 * Many raw requests to one port over a keep-alive pool (the fuzz, isolation and secrets tests):
 * duplicate keys, truncated JSON, a wrong content type, a chunked body.
 */
export interface Wire {
  readonly port: number
  readonly send: (request: WireRequest) => Promise<WireResponse>
}

export const makeWire = (port: number): Wire => {
  const agent = new Http.Agent({ keepAlive: true, maxSockets: 4 })
  const send = (request: WireRequest): Promise<WireResponse> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...request.headers }
      if (request.body !== undefined && !request.chunked) headers["content-length"] = Buffer.byteLength(request.body)
      const req = Http.request({ host: "127.0.0.1", port, method: request.method, path: request.target, headers, agent })
      req.once("error", reject)
      req.once("response", (response) => readResponse(response).then(resolve, reject))
      if (request.body !== undefined && request.chunked) {
        // a few chunks, so the server sees a streamed body
        const buffer = Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body)
        const step = Math.max(1, Math.ceil(buffer.length / 4))
        for (let i = 0; i < buffer.length; i += step) req.write(buffer.subarray(i, i + step))
      }
      req.end(request.body !== undefined && !request.chunked ? request.body : undefined)
    })
  return { port, send }
}

/** A wire to the `HttpServer` of the layer (the test server on its random port). */
export const serverWire = Effect.map(serverPort, makeWire)

/** `?a=1&b=2` from a record (values encoded; arrays repeated). */
export const queryString = (query: Readonly<Record<string, string | ReadonlyArray<string>>>): string => {
  const parts: Array<string> = []
  for (const [key, value] of Object.entries(query)) {
    for (const v of typeof value === "string" ? [value] : value) {
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(v)}`)
    }
  }
  return parts.length === 0 ? "" : `?${parts.join("&")}`
}

/** A JSON request with the key, the common case. */
export const jsonRequest = (
  method: string,
  target: string,
  key: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {}
): WireRequest => ({
  method,
  target,
  headers: {
    ...(key !== undefined ? { "x-api-key": key } : {}),
    ...(body !== undefined ? { "content-type": "application/json" } : {}),
    ...headers
  },
  ...(body !== undefined ? { body: JSON.stringify(body) } : {})
})

/** A part of a form: a field's text, or files (`{name, content}` each, repeated under the key; bytes sent as they are). */
export type FormValue = string | ReadonlyArray<{ readonly name: string; readonly content: string | Uint8Array }>

/** A multipart/form-data request with the key: each field a part, each file a part of its own. */
export const formRequest = (
  method: string,
  target: string,
  key: string | undefined,
  fields: Readonly<Record<string, FormValue>>,
  headers: Record<string, string> = {}
): WireRequest => {
  const boundary = "platform-kit-test-boundary"
  const parts: Array<string | Uint8Array> = []
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === "string") {
      parts.push(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
    } else {
      for (const file of value) {
        const head = `--${boundary}\r\ncontent-disposition: form-data; name="${name}"; filename="${file.name}"\r\ncontent-type: text/plain\r\n\r\n`
        if (typeof file.content === "string") parts.push(`${head}${file.content}\r\n`)
        else parts.push(head, file.content, "\r\n")
      }
    }
  }
  const end = `--${boundary}--\r\n`
  return {
    method,
    target,
    headers: {
      ...(key !== undefined ? { "x-api-key": key } : {}),
      "content-type": `multipart/form-data; boundary=${boundary}`,
      ...headers
    },
    // text as before; a form with bytes in it, as bytes
    body: parts.every((part) => typeof part === "string")
      ? `${parts.join("")}${end}`
      : Buffer.concat([...parts, end].map((part) => typeof part === "string" ? Buffer.from(part) : part))
  }
}
