/**
 * A stand-in for an OpenAI-compatible model server (vLLM, llama.cpp's server…): `POST
 * /v1/chat/completions` answers one constant chat completion after reading the request body. No
 * model runs: the execution benchmark measures what the kit adds on the way to an upstream, so the
 * upstream costs as little as it can.
 *
 * Environment: `PORT`, `HOST`; `UPSTREAM_DELAY_MS` (default 0): how long each answer takes, as a
 * model's generation would (a timer: no CPU).
 */
import { createServer } from "node:http"

const body = Buffer.from(JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "bench-model",
  choices: [{ index: 0, message: { role: "assistant", content: "The quick brown fox jumps over the lazy dog." }, finish_reason: "stop", logprobs: null }],
  usage: { prompt_tokens: 12, completion_tokens: 10, total_tokens: 22 }
}))

const delayMs = Number(process.env.UPSTREAM_DELAY_MS ?? 0)

const server = createServer((request, response) => {
  request.resume()
  request.once("end", () => {
    if (request.method === "GET" && request.url === "/health") {
      response.writeHead(200, { "content-type": "application/json" })
      return void response.end("{}")
    }
    if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
      response.writeHead(404, { "content-type": "application/json" })
      return void response.end("{\"error\":{\"message\":\"not found\"}}")
    }
    const answer = () => {
      response.writeHead(200, { "content-type": "application/json", "content-length": body.length })
      response.end(body)
    }
    if (delayMs > 0) setTimeout(answer, delayMs)
    else answer()
  })
})
server.keepAliveTimeout = 60_000

const shutdown = () => server.close(() => process.exit(0))
process.on("SIGINT", shutdown)
process.on("SIGTERM", shutdown)

server.listen(Number(process.env.PORT ?? 8083), process.env.HOST ?? "127.0.0.1")
