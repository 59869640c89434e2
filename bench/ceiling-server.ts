/**
 * The ceiling: bare `node:http` answering every request with one constant JSON body (a model group
 * of the size the GET scenario returns). No routing, no parsing, no database: what one core of
 * Node can serve at all, so every other figure can be read as a fraction of it.
 *
 * Environment: `PORT`, `HOST`.
 */
import { createServer } from "node:http"

const body = Buffer.from(JSON.stringify({
  id: "5f0c6d59-8a57-4a43-9f0b-3f7c1d7a2b10",
  name: "model group 42",
  description: "group number 42 of the benchmark",
  account_id: "0d9d6a1e-5a6b-4c3f-8d2e-1f0a9b8c7d6e",
  created_by_user_id: "7e6d5c4b-3a29-4f18-8e7d-6c5b4a392817",
  created_by_identity_type: "user",
  created_at: "2026-01-01T00:00:42.000Z"
}))

const server = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "application/json", "content-length": body.length })
  response.end(body)
})

const shutdown = () => server.close(() => process.exit(0))
process.on("SIGINT", shutdown)
process.on("SIGTERM", shutdown)

server.listen(Number(process.env.PORT ?? 8082), process.env.HOST ?? "127.0.0.1")
