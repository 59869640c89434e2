/**
 * The subscribers of the task-stream benchmark (`npm run bench -- --streams`), in a process of
 * their own: `SUBSCRIBERS` connections to `STREAM_URL` (headers from `STREAM_HEADERS`, JSON), each
 * reading server-sent events from a plain socket with buffer scans (so the reading costs little
 * beside the server it measures). Prints `connected` once every subscriber has its `connected`
 * frame; at the end of every stream, one JSON line: deliveries timed, frames per subscriber, frames
 * out of order or repeated, latency p50/p99 (the send time a message carries to its read here; a
 * message whose content is not a time, the warm-up's, is checked but not timed).
 */
import * as Net from "node:net"
import { niceHelperThreads } from "../packages/server/src/platform/helperThreads.js"

// this process's helper threads (V8's workers, libuv's) at nice 19, as the kit gives its own
// (docs/operations.md "Helper threads"): a full collection's workers here would otherwise take
// the reading thread's core, and their delay would be counted as the kit's
niceHelperThreads(19)

const url = new URL(process.env.STREAM_URL!)
const headers = JSON.parse(process.env.STREAM_HEADERS ?? "{}") as Record<string, string>
const count = Number(process.env.SUBSCRIBERS ?? 1000)

const latencies: Array<number> = []
const problems: Array<string> = []
const framesEach: Array<number> = []
let connected = 0
const bySecond: Record<number, Array<number>> = {}

const now = () => performance.timeOrigin + performance.now()
const contentKey = "\"content\":\""

/**
 * The SSE frames of one subscriber's body, as `text` arrives: numbered in order, each message's
 * latency taken (its send time to `at`, this read of its socket). Keeps what it has not scanned.
 */
const frameScanner = () => {
  let buffer = ""
  let expected = 1
  return {
    get seen() {
      return expected - 1
    },
    scan(text: string, at: number) {
      buffer += text
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
    }
  }
}

/**
 * One subscriber on a socket of its own: a plain HTTP/1.1 GET, the response's head checked (200,
 * chunked), its chunked body taken apart here (read as latin1: a character a byte, so chunk sizes
 * count characters). Not `node:http`: with 1,000 subscribers in one process, what it spends
 * reading one socket is counted as delay of every socket read after it, and its parser and
 * response streams took this process 65 % of its core where this takes 55 % (docs/benchmarks.md
 * "The streams' fan-out").
 */
const subscribe = () =>
  new Promise<void>((resolve, reject) => {
    const socket = Net.connect(Number(url.port), url.hostname)
    socket.setEncoding("latin1")
    const frames = frameScanner()
    let head: string | undefined = ""
    let pending = ""
    let chunkLeft = 0
    let skip = 0
    let done = false
    socket.once("connect", () => {
      const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("")
      socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n${lines}connection: close\r\n\r\n`)
    })
    socket.on("data", (chunk: string) => {
      const at = now()
      let data = chunk
      if (head !== undefined) {
        head += data
        const ends = head.indexOf("\r\n\r\n")
        if (ends < 0) return
        const status = head.slice(0, head.indexOf("\r\n"))
        if (!/^HTTP\/1\.1 200 /.test(status)) return reject(new Error(`stream answered ${status}`))
        if (!/\r\ntransfer-encoding: chunked\r\n/i.test(head.slice(0, ends + 2))) return reject(new Error("stream not chunked"))
        data = head.slice(ends + 4)
        head = undefined
      }
      // the chunked encoding: a size line in hex, that many characters, CRLF; a size 0 ends it
      pending += data
      let body = ""
      let pos = 0
      while (pos < pending.length && !done) {
        if (skip > 0) {
          const skipped = Math.min(skip, pending.length - pos)
          skip -= skipped
          pos += skipped
        } else if (chunkLeft > 0) {
          const taken = Math.min(chunkLeft, pending.length - pos)
          body += pending.slice(pos, pos + taken)
          chunkLeft -= taken
          pos += taken
          if (chunkLeft === 0) skip = 2
        } else {
          const line = pending.indexOf("\r\n", pos)
          if (line < 0) break
          const size = parseInt(pending.slice(pos, line), 16)
          pos = line + 2
          if (size === 0) done = true
          else chunkLeft = size
        }
      }
      pending = pending.slice(pos)
      if (body.length > 0) frames.scan(body, at)
      if (done) {
        framesEach.push(frames.seen)
        socket.destroy()
        resolve()
      }
    })
    socket.once("close", () => {
      if (!done) reject(new Error("stream closed before its end"))
    })
    socket.on("error", reject)
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
