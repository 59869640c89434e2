/**
 * The subscribers of the task-stream benchmark (`npm run bench -- --streams`), in a process of
 * their own: `SUBSCRIBERS` connections to `STREAM_URL` (headers from `STREAM_HEADERS`, JSON), each
 * reading server-sent events with plain `node:http` and buffer scans (so the reading costs little
 * beside the server it measures). Prints `connected` once every subscriber has its `connected`
 * frame; at the end of every stream, one JSON line: deliveries timed, frames per subscriber, frames
 * out of order or repeated, latency p50/p99 (the send time a message carries to its read here; a
 * message whose content is not a time, the warm-up's, is checked but not timed).
 */
import * as Http from "node:http"
import { niceHelperThreads } from "../packages/server/src/platform/helperThreads.js"

// this process's helper threads (V8's workers, libuv's) at nice 19, as the kit gives its own
// (docs/operations.md "Helper threads"): a full collection's workers here would otherwise take
// the reading thread's core, and their delay would be counted as the kit's
niceHelperThreads(19)

const url = new URL(process.env.STREAM_URL!)
const headers = JSON.parse(process.env.STREAM_HEADERS ?? "{}") as Record<string, string>
const count = Number(process.env.SUBSCRIBERS ?? 1000)
const agent = new Http.Agent({ keepAlive: false, maxSockets: Infinity })

const latencies: Array<number> = []
const problems: Array<string> = []
const framesEach: Array<number> = []
let connected = 0
const bySecond: Record<number, Array<number>> = {}

const now = () => performance.timeOrigin + performance.now()
const contentKey = "\"content\":\""

const subscribe = () =>
  new Promise<void>((resolve, reject) => {
    const request = Http.get(url, { headers, agent }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`stream answered ${response.statusCode}`))
      response.setEncoding("latin1")
      let buffer = ""
      let expected = 1
      response.on("data", (chunk: string) => {
        const at = now()
        buffer += chunk
        let end = buffer.indexOf("\n\n")
        let start = 0
        while (end >= 0) {
          const block = buffer.slice(start, end)
          start = end + 2
          end = buffer.indexOf("\n\n", start)
          if (block.startsWith(":")) continue
          if (!block.startsWith("id: ")) {
            if (block.includes("\"connected\"") && ++connected === count) process.stdout.write("connected\n")
            continue
          }
          const id = Number(block.slice(4, block.indexOf("\n")))
          if (id !== expected) problems.push(`frame ${id} where ${expected} was due`)
          expected = id + 1
          if (block.includes("\"type\":\"full\"")) {
            const from = block.indexOf(contentKey) + contentKey.length
            const sentAt = Number(block.slice(from, block.indexOf("\"", from)))
            if (Number.isNaN(sentAt)) continue // a warm-up message
            latencies.push(at - sentAt)
            if (process.env.STREAM_DEBUG) (bySecond[Math.floor(sentAt / 1000)] ??= []).push(at - sentAt)
          }
        }
        buffer = buffer.slice(start)
      })
      response.on("end", () => {
        framesEach.push(expected - 1)
        resolve()
      })
      response.on("error", reject)
    })
    request.on("error", reject)
  })

const all = Array.from({ length: count }, subscribe)
Promise.all(all).then(() => {
  latencies.sort((a, b) => a - b)
  for (const [second, values] of Object.entries(bySecond)) {
    values.sort((a, b) => a - b)
    process.stderr.write(`${second}: n=${values.length} p50=${values[Math.floor(values.length / 2)]!.toFixed(1)} p99=${values[Math.floor(values.length * 0.99)]!.toFixed(1)} max=${values.at(-1)!.toFixed(1)}\n`)
  }
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN
  process.stdout.write(JSON.stringify({
    deliveries: latencies.length,
    frames_each: [Math.min(...framesEach), Math.max(...framesEach)],
    problems: problems.length,
    first_problems: problems.slice(0, 5),
    p50: at(50),
    p99: at(99),
    max: latencies.at(-1) ?? NaN
  }) + "\n")
  process.exit(0)
}, (error) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
