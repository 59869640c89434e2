/**
 * Raw HTTP/1.1 for the reliability tests: what the typed client will not do (a chunked body, a
 * body held open, a request left in flight), with node:http so every byte is under the test's control.
 */
import * as Http from "node:http"
import * as Net from "node:net"

export interface RawResult {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly text: string
  readonly json: any
}

/** Reads a whole response. */
export const readResponse = (response: Http.IncomingMessage): Promise<RawResult> =>
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
  readonly response: Promise<RawResult>
}

/**
 * Starts a request on a fresh connection and leaves the body to the caller (`write`, `end`). Without
 * a `content-length` header, node sends the body chunked.
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
  const response = new Promise<RawResult>((resolve, reject) => {
    request.once("response", (response) => readResponse(response).then(resolve, reject))
    request.once("error", reject)
  })
  // the body is written after the response may have come: do not let a late write error go unhandled
  response.catch(() => {})
  request.flushHeaders()
  return { request, response }
}

/** One whole request with a JSON (or text) body sent with its content-length. */
export const send = (options: {
  readonly port: number
  readonly method: string
  readonly path: string
  readonly headers?: Record<string, string>
  readonly body?: unknown
}): Promise<RawResult> => {
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
): Promise<RawResult> => {
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
