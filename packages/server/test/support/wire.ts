/**
 * Raw HTTP for the fuzz, isolation and secrets tests: any method, path, query, headers and body
 * bytes (duplicate keys, truncated JSON, a wrong content type, a chunked body), over one keep-alive
 * connection pool to the server under test.
 */
import { HttpServer } from "@effect/platform"
import { Effect } from "effect"
import * as Http from "node:http"
import { type RawResult, readResponse } from "./rawHttp.js"

/** Status, headers, text, and the body parsed as JSON (`undefined` when it is not JSON). */
export type WireResponse = RawResult

export interface WireRequest {
  readonly method: string
  /** Path and query, sent as is (already encoded, or deliberately not). */
  readonly target: string
  readonly headers?: Record<string, string>
  readonly body?: string | Buffer
  /** Send the body chunked (no content-length). */
  readonly chunked?: boolean
}

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

/** A wire to the `HttpServer` of the current layer (the test server on its random port). */
export const serverWire = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address
  if (address._tag !== "TcpAddress") throw new Error("the test server is not on TCP")
  return makeWire(address.port)
})

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

/** A part of a form: a field's text, or files (`{name, content}` each, repeated under the key). */
export type FormValue = string | ReadonlyArray<{ readonly name: string; readonly content: string }>

/** A multipart/form-data request with the key: each field a part, each file a part of its own. */
export const formRequest = (
  method: string,
  target: string,
  key: string | undefined,
  fields: Readonly<Record<string, FormValue>>,
  headers: Record<string, string> = {}
): WireRequest => {
  const boundary = "platform-kit-test-boundary"
  const parts: Array<string> = []
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === "string") {
      parts.push(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
    } else {
      for (const file of value) {
        parts.push(
          `--${boundary}\r\ncontent-disposition: form-data; name="${name}"; filename="${file.name}"\r\ncontent-type: text/plain\r\n\r\n${file.content}\r\n`
        )
      }
    }
  }
  return {
    method,
    target,
    headers: {
      ...(key !== undefined ? { "x-api-key": key } : {}),
      "content-type": `multipart/form-data; boundary=${boundary}`,
      ...headers
    },
    body: `${parts.join("")}--${boundary}--\r\n`
  }
}
