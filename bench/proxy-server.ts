/**
 * The floor of the execution benchmark: bare `node:http` in front of the upstream, through undici
 * (the HTTP client the kit uses, on a keep-alive pool), doing the least a model proxy can do. It
 * reads a chat completion request (`{prompt}`), sends the upstream one chat completion, reads its
 * JSON answer and answers `completions: [[prompt, [text]]]`. No key, no database, no validation,
 * no usage recorded: what two more hops on the loopback and one Node process in the path cost on
 * this machine, so that the kit's added latency can be read against the least any Node proxy adds.
 *
 * Environment: `PORT`, `HOST`; `UPSTREAM` (the upstream's base URL, with `/v1`).
 */
import { createServer } from "node:http"
import { Agent, request } from "undici"

const upstream = `${process.env.UPSTREAM ?? "http://127.0.0.1:8083/v1"}/chat/completions`
const dispatcher = new Agent({ keepAliveTimeout: 60_000 })

const server = createServer((incoming, response) => {
  if (incoming.method === "GET") {
    response.writeHead(incoming.url === "/health" ? 200 : 404, { "content-type": "application/json" })
    return void response.end("{}")
  }
  let body = ""
  incoming.setEncoding("utf8")
  incoming.on("data", (chunk: string) => (body += chunk))
  incoming.on("end", async () => {
    try {
      const { prompt } = JSON.parse(body) as { prompt: string }
      const answer = await request(upstream, {
        method: "POST",
        dispatcher,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "bench-model", messages: [{ role: "user", content: prompt }] })
      })
      const completion = await answer.body.json() as {
        choices: ReadonlyArray<{ message: { content: string }; finish_reason: string }>
        usage: { prompt_tokens: number; completion_tokens: number }
      }
      const out = JSON.stringify({
        completions: [[prompt, [completion.choices[0]!.message.content]]],
        finish_reason: completion.choices[0]!.finish_reason,
        prompt_tokens: completion.usage.prompt_tokens,
        response_tokens: completion.usage.completion_tokens
      })
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(out) })
      response.end(out)
    } catch (error) {
      response.writeHead(502, { "content-type": "application/json" })
      response.end(JSON.stringify({ detail: String(error) }))
    }
  })
})
server.keepAliveTimeout = 60_000

const shutdown = () => server.close(() => process.exit(0))
process.on("SIGINT", shutdown)
process.on("SIGTERM", shutdown)

server.listen(Number(process.env.PORT ?? 8084), process.env.HOST ?? "127.0.0.1")
