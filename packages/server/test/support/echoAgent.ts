/**
 * An agent's ACP server of the test's own on 127.0.0.1 (docs/agent-tasks.md "Calling agents"):
 * it answers each `message/send` with "You said: <text>" (a start, then a delta, then done), and
 * keeps every call it received (`seen`) and the `x-agent-api-key` each came with (`keys`).
 */
import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export const echoAgent = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly server: Http.Server; readonly seen: Array<any>; readonly keys: Array<string | undefined> }>((resume) => {
    const seen: Array<any> = []
    const keys: Array<string | undefined> = []
    const server = Http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
        seen.push(body)
        const key = req.headers["x-agent-api-key"]
        keys.push(Array.isArray(key) ? key[0] : key)
        const line = (result: unknown) => JSON.stringify({ jsonrpc: "2.0", id: body.id, result, error: null }) + "\n"
        res.writeHead(200, { "content-type": "application/x-ndjson" })
        res.write(line({ type: "start", index: 0, content: { type: "text", author: "agent", content: "You said: " } }))
        res.write(line({ type: "delta", index: 0, delta: { type: "text", text_delta: body.params.content.content } }))
        res.end(line({ type: "done", index: 0 }))
      })
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, seen, keys })))
  }),
  ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
)
