/**
 * A pushed body attached to a `node:http` response (http/pushedBody.ts): what was pushed before and
 * what is sent after reach the client in order through the chunked encoding, the end ends the
 * response (the connection kept alive for the next request), and a client that goes away
 * destroys the body.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { chunkOf, PushedBody } from "../src/http/pushedBody.js"

const text = (value: string) => new TextEncoder().encode(value)

/** A server whose every request is answered by a new body (given to `onBody`), attached or piped. */
const serve = async (onBody: (body: PushedBody, attached: boolean) => void) => {
  const server = Http.createServer((req, res) => {
    const body = new PushedBody()
    body.push(text("opening\n"))
    res.writeHead(200, { "content-type": "text/event-stream" })
    const attached = body.attach(res)
    if (!attached) body.pipe(res)
    onBody(body, attached)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { server, port: (server.address() as AddressInfo).port }
}

const send = (body: PushedBody, value: string) => {
  const bytes = text(value)
  body.send(bytes, () => chunkOf(bytes))
}

describe("a pushed body", () => {
  it("attached: what was pushed, then each send, then the end; the connection serves the next request", async () => {
    const bodies: Array<PushedBody> = []
    const { server, port } = await serve((body, attached) => {
      expect(attached).toBe(true)
      bodies.push(body)
      send(body, "one\n")
      setTimeout(() => {
        send(body, "two\n")
        body.finish()
      }, 20)
    })
    const agent = new Http.Agent({ keepAlive: true, maxSockets: 1 })
    const get = () =>
      new Promise<{ body: string; socket: unknown; chunked: boolean }>((resolve, reject) => {
        Http.get({ port, host: "127.0.0.1", agent }, (res) => {
          let body = ""
          res.setEncoding("utf8")
          res.on("data", (chunk) => (body += chunk))
          res.on("end", () => resolve({ body, socket: res.socket, chunked: res.headers["transfer-encoding"] === "chunked" }))
        }).on("error", reject)
      })
    const first = await get()
    const second = await get()
    agent.destroy()
    server.close()
    expect(first.body).toBe("opening\none\ntwo\n")
    expect(first.chunked).toBe(true)
    expect(second.body).toBe("opening\none\ntwo\n")
    expect(second.socket).toBe(first.socket)
    expect(bodies.every((body) => body.destroyed)).toBe(true)
  })

  it("destroyed when its client goes away; sends after that are dropped", async () => {
    let body: PushedBody | undefined
    const closed = new Promise<void>((resolve) => {
      void serve((made) => {
        body = made
        made.once("close", resolve)
        send(made, "one\n")
      }).then(({ port, server }) => {
        const request = Http.get({ port, host: "127.0.0.1" }, (res) => {
          res.once("data", () => request.destroy())
        })
        request.on("error", () => {})
        void closed.then(() => server.close())
      })
    })
    await closed
    expect(body!.destroyed).toBe(true)
    send(body!, "two\n")
    expect(body!.behind).toBe(0)
  })

  it("finished before it is served: not attached (the caller pipes what it holds, then the end)", async () => {
    const body = new PushedBody()
    body.push(text("all\n"))
    body.finish()
    const response = new Http.ServerResponse(new Http.IncomingMessage(null as any))
    expect(body.attach(response)).toBe(false)
    let read = ""
    body.setEncoding("utf8")
    for await (const chunk of body) read += chunk
    expect(read).toBe("all\n")
  })
})
